// Parses one line of `strace -f -ttt` output ("PID SECONDS.FRACTION
// syscall(args) = ret", with strace's "<unfinished ...>" / "<... resumed>"
// halves of a syscall that another thread interrupted) into its parts.
#pragma once

#include <cstdint>
#include <string_view>

namespace fathom {

struct StraceLine {
  enum class Kind {
    kComplete,           // name(args) = ret
    kUnfinished,         // name(args <unfinished ...>
    kResumed,            // <... name resumed> args) = ret
    kResumedUnfinished,  // <... name resumed> args <unfinished ...>
    kNotSyscall,         // signals, exit banners, blank or other text
    kMissingPid,         // a syscall without the leading pid (strace without -f)
    kTimeOfDay,          // a syscall stamped -t/-tt (time of day, no date)
  };
  Kind kind = Kind::kNotSyscall;
  uint32_t pid = 0;
  int64_t ts = 0;  // ns since the epoch
  std::string_view name;
  std::string_view args;  // empty when there are none
  std::string_view ret;
};

StraceLine ParseStraceLine(std::string_view line);

// Whether `head` (a file's first bytes) starts with an strace -ttt syscall line.
bool LooksLikeStrace(std::string_view head);

}  // namespace fathom
