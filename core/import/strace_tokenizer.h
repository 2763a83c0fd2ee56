// Loads `strace -f -ttt` text output: every syscall is a slice (category
// "strace", args "args" and "ret") on its thread's track; a syscall that
// strace printed in two halves ("<unfinished ...>" / "<... resumed>") spans
// from the first half to the second. Lines are written as they come (strace
// prints in time order), so nothing is sorted.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/import/chunked_tokenizer.h"
#include "core/import/trace_context.h"

namespace fathom {

class StraceTokenizer : public ChunkedTokenizer {
 public:
  explicit StraceTokenizer(TraceContext* ctx);
  Result<size_t> Feed(std::unique_ptr<TraceBlob> blob, uint64_t stream_offset) override;
  uint64_t units() const override { return syscalls_; }
  size_t retained_bytes() const override { return 0; }
  // Call once the stream ended, with its unterminated last line (if any).
  void FinishLastLine(std::string_view line);
  // Gives the syscalls that never resumed the arguments they had.
  void Finish();

 private:
  // A syscall strace left "<unfinished ...>" on a thread.
  struct Pending {
    StringId name;
    uint32_t slice_id;
    std::string args;
  };
  void ParseLine(std::string_view line);
  uint32_t TrackFor(uint32_t pid);
  void BeginPending(int64_t ts, uint32_t pid, StringId name, std::string_view args);

  TraceContext* ctx_;
  StringId category_;
  std::unordered_map<uint32_t, std::vector<Pending>> pending_;  // by pid
  uint64_t syscalls_ = 0;
  std::unique_ptr<TraceBlob> last_blob_;  // the loader copies the unfinished line from it
};

}  // namespace fathom
