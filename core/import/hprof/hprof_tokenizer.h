// Feeds an HPROF heap dump through the load loop: records are read as the
// chunks stream by (hprof::Reader), and the heap_graph_* rows are written once
// the file has ended, when every root and reference target is known.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/import/chunked_tokenizer.h"
#include "core/import/hprof/hprof_dump.h"
#include "core/import/hprof/hprof_reader.h"

namespace fathom {

struct TraceContext;

class HprofTokenizer : public ChunkedTokenizer {
 public:
  HprofTokenizer(TraceContext* ctx, std::string name);
  Result<size_t> Feed(std::unique_ptr<TraceBlob> blob, uint64_t stream_offset) override;
  // Records read: names and classes count, so a dump cut before its first
  // object still loads (empty) with its warning.
  uint64_t units() const override {
    return static_cast<uint64_t>(dump_.string_count + dump_.class_count) + dump_.objects.size();
  }
  size_t retained_bytes() const override { return 0; }
  // The file ended with `tail_bytes` unread: writes the tables and appends
  // what was damaged (with its byte offset) to `warnings`.
  void Finish(size_t tail_bytes, uint64_t end_offset, std::vector<std::string>* warnings);

 private:
  TraceContext* ctx_;
  std::string name_;
  hprof::Dump dump_;
  std::unique_ptr<TraceBlob> last_;  // the blob fed last (its tail is read after Feed)
  hprof::Reader reader_{&dump_};
};

}  // namespace fathom
