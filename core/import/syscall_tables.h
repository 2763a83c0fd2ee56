// Per-architecture Linux syscall name tables (sys_enter/sys_exit naming).
#pragma once

#include <cstddef>
#include <string_view>

namespace fathom {

enum class SyscallArch { kUnknown, kArm64, kX86_64, kArm32, kX86 };

// names[nr] is the syscall's name without the "sys_" prefix, or null when the
// architecture has no syscall with that number.
struct SyscallTable {
  const char* const* names;
  size_t size;
};

SyscallTable GetSyscallTable(SyscallArch arch);

// utsname.machine -> table. Only the machine strings upstream recognises: any
// other (e.g. "arm64", "i386") leaves syscalls named by number.
inline SyscallArch SyscallArchFromMachine(std::string_view machine) {
  if (machine == "aarch64") return SyscallArch::kArm64;
  if (machine == "x86_64") return SyscallArch::kX86_64;
  if (machine == "armv7l" || machine == "armv8l") return SyscallArch::kArm32;
  if (machine == "i686") return SyscallArch::kX86;
  return SyscallArch::kUnknown;
}

}  // namespace fathom
