// Feeds a simpleperf report-sample file through the load loop: its File
// records may come after the samples that use them, so the tokenizer collects
// the stream and ImportSimpleperfProto runs once it has ended.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/import/chunked_tokenizer.h"
#include "core/import/simpleperf_proto_parser.h"

namespace fathom {

struct TraceContext;

class SimpleperfProtoTokenizer : public ChunkedTokenizer {
 public:
  explicit SimpleperfProtoTokenizer(TraceContext* ctx) : ctx_(ctx) {}
  Result<size_t> Feed(std::unique_ptr<TraceBlob> blob, uint64_t stream_offset) override;
  // Records read (0 until Finish).
  uint64_t units() const override { return result_.records; }
  size_t retained_bytes() const override { return bytes_.size(); }
  // Decodes and imports the collected bytes; frees them.
  Status Finish();

  static constexpr size_t kMaxBytes = size_t{4} << 30;

 private:
  TraceContext* ctx_;
  std::vector<uint8_t> bytes_;
  SimpleperfImportResult result_;
};

}  // namespace fathom
