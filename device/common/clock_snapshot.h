// A ClockSnapshot TracePacket of this machine's clocks, taken now: what lets a reader put
// timestamps of different clocks (BOOTTIME for ftrace and perf samples, MONOTONIC_COARSE
// for heap profile dumps) on one time line.
#pragma once

#include <cstdint>
#include <string>

namespace fathom::device {

// BuiltinClock ids (wire-format constants).
inline constexpr uint32_t kClockRealtime = 1, kClockMonotonic = 3, kClockMonotonicCoarse = 4,
                          kClockBoottime = 6;

// Nanoseconds on a POSIX clock (CLOCK_BOOTTIME, ...).
uint64_t ClockNowNs(int posix_clock);
// The packet, on `sequence_id`, with BOOTTIME as the trace's primary clock.
std::string ClockSnapshotPacket(uint32_t sequence_id);

}  // namespace fathom::device
