// Small POSIX helpers shared by the recorder's sources.
#pragma once

#include <time.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace fathom::recorder {

inline int64_t ClockNs(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}
inline int64_t BootNs() { return ClockNs(CLOCK_BOOTTIME); }
inline int64_t MonoNs() { return ClockNs(CLOCK_MONOTONIC); }

// Whole file (small /proc and tracefs files). Errors carry strerror.
Result<std::string> ReadFile(const std::string& path);
// Writes `value` to an existing control file (tracefs). "permission denied" errors say
// how to fix them.
Status WriteFile(const std::string& path, std::string_view value, bool create = false);
bool FileExists(const std::string& path);

// pread()s a kept-open /proc file from offset 0 into *buf (capacity reused). False when the
// file is gone (process exited).
bool PreadAll(int fd, std::string* buf);

// Parses the unsigned decimal number at *p (skipping spaces); advances *p.
inline uint64_t ParseU64(const char** p, const char* end) {
  const char* q = *p;
  while (q < end && (*q == ' ' || *q == '\t')) q++;
  uint64_t v = 0;
  while (q < end && *q >= '0' && *q <= '9') v = v * 10 + static_cast<uint64_t>(*q++ - '0');
  *p = q;
  return v;
}

}  // namespace fathom::recorder
