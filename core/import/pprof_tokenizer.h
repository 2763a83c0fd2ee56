// Feeds a pprof file through the load loop: a Profile can only be decoded
// whole (its string table usually comes last), so the tokenizer collects the
// (already gunzipped) stream and ImportPprof runs once it has ended.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/import/chunked_tokenizer.h"
#include "core/import/pprof_parser.h"

namespace fathom {

struct TraceContext;

class PprofTokenizer : public ChunkedTokenizer {
 public:
  // `scope`: the __intrinsic_aggregate_profile.scope of this file.
  PprofTokenizer(TraceContext* ctx, std::string scope) : ctx_(ctx), scope_(std::move(scope)) {}
  Result<size_t> Feed(std::unique_ptr<TraceBlob> blob, uint64_t stream_offset) override;
  // Samples imported (0 until Finish).
  uint64_t units() const override { return result_.samples; }
  size_t retained_bytes() const override { return bytes_.size(); }
  // Decodes and imports the collected bytes; frees them.
  Status Finish();
  const PprofImportResult& result() const { return result_; }

  // Profiles are compact (aggregated stacks); anything larger is not one.
  static constexpr size_t kMaxBytes = size_t{2} << 30;

 private:
  TraceContext* ctx_;
  std::string scope_;
  std::vector<uint8_t> bytes_;
  PprofImportResult result_;
};

}  // namespace fathom
