// Loads a tiallocsample text log (ART's agent or Fathom's device/jvmti agent)
// as Java allocation samples: stack_profile_frame/callsite rows (frames
// outermost first, the allocated class as the leaf) and one
// heap_profile_allocation row per callsite on heap "com.android.art", the heap
// upstream uses for ART's Java allocation samples, so experimental_flamegraph
// and every exporter see a Java allocation flamegraph.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/import/art_alloc_log_parser.h"
#include "core/import/chunked_tokenizer.h"
#include "core/import/trace_context.h"

namespace fathom {

class ArtAllocLogTokenizer : public ChunkedTokenizer {
 public:
  // `log_name` names the synthetic process when the log carries no pid.
  ArtAllocLogTokenizer(TraceContext* ctx, std::string log_name);
  Result<size_t> Feed(std::unique_ptr<TraceBlob> blob, uint64_t stream_offset) override;
  uint64_t units() const override { return parser_.lines(); }
  size_t retained_bytes() const override { return 0; }
  // Call once the stream ended, with its unterminated last line (if any), then
  // Finish to write the rows; warnings describe skipped lines.
  void FinishLastLine(std::string_view line);
  void Finish(std::vector<std::string>* warnings);

  const ArtAllocLogParser& parser() const { return parser_; }

 private:
  TraceContext* ctx_;
  std::string log_name_;
  ArtAllocLogParser parser_;
  std::unique_ptr<TraceBlob> last_blob_;  // the loader copies the unfinished line from it
};

}  // namespace fathom
