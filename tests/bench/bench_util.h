// Measurement helpers shared by the benchmarks: peak RSS and CPU time (on a
// shared machine wall time includes waiting for a core, so both are printed).
// Linux-only, like the benchmarks that use it.
#pragma once

#include <sys/resource.h>
#include <time.h>

#include <chrono>

namespace fathom::bench {

using Clock = std::chrono::steady_clock;

// Peak resident set of this process so far, in MB (ru_maxrss is KiB on Linux).
inline double PeakRssMb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

inline double Ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

// CPU time of the calling thread, in ms.
inline double CpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace fathom::bench
