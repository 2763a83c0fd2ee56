// Loads collapsed ("folded") stacks — `frame1;frame2;leaf COUNT` per line, as
// written by flamegraph.pl's stackcollapse scripts, `perf script | inferno`,
// async-profiler and `fathom-cli flamegraph --format folded` — into the CPU
// sample tables (stack_profile_frame/callsite + perf_sample), the ones the
// flamegraph model reads for `--kind cpu`, so the file opens as a flamegraph.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/import/chunked_tokenizer.h"
#include "core/import/trace_context.h"

namespace fathom {

// A collapsed-stacks file: every non-empty, non-comment line in the first
// bytes ends in " <digits>" and at least one holds a ';'.
bool LooksLikeCollapsedStacks(const uint8_t* data, size_t size);

class CollapsedStacksTokenizer : public ChunkedTokenizer {
 public:
  // `name` names the synthetic process the samples belong to.
  CollapsedStacksTokenizer(TraceContext* ctx, const std::string& name);
  Result<size_t> Feed(std::unique_ptr<TraceBlob> blob, uint64_t stream_offset) override;
  uint64_t units() const override { return lines_; }
  size_t retained_bytes() const override { return 0; }
  // The stream's unterminated last line; errors carry its line number.
  Status FinishLastLine(std::string_view line);
  uint64_t samples() const { return samples_; }
  uint64_t capped_samples() const { return capped_; }

  // One row per sample: a line's COUNT above this total is clipped (and
  // counted in capped_samples) so a weighted profile cannot exhaust memory.
  static constexpr uint64_t kMaxSamples = 50'000'000;

 private:
  Status Line(std::string_view line);

  TraceContext* ctx_;
  std::string name_;
  std::unique_ptr<TraceBlob> last_blob_;
  uint32_t utid_ = 0;
  uint32_t mapping_ = 0;
  bool started_ = false;
  uint64_t line_no_ = 0;
  uint64_t lines_ = 0;
  uint64_t samples_ = 0;
  uint64_t capped_ = 0;
  std::unordered_map<std::string, uint32_t> frames_;
};

}  // namespace fathom
