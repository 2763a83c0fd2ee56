// Converts timestamps from any clock in the trace to the trace clock
// (BOOTTIME unless a ClockSnapshot names another primary clock), using the
// ClockSnapshot packets. Conversions may hop through intermediate clocks.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace fathom {

// Builtin clock ids (BuiltinClock in the spec).
enum BuiltinClockId : uint64_t {
  kClockRealtime = 1,
  kClockRealtimeCoarse = 2,
  kClockMonotonic = 3,
  kClockMonotonicCoarse = 4,
  kClockMonotonicRaw = 5,
  kClockBoottime = 6,
};

class ClockTracker {
 public:
  // Sequence-scoped clocks (ids 64..127) are only meaningful within their
  // sequence: callers pass SequenceScopedClock(seq, id) for those.
  static uint64_t SequenceScopedClock(uint32_t seq_id, uint32_t clock_id) {
    return (static_cast<uint64_t>(seq_id) << 32) | clock_id;
  }
  static bool IsSequenceScoped(uint32_t clock_id) { return clock_id >= 64 && clock_id < 128; }

  void AddSnapshot(const std::vector<std::pair<uint64_t, int64_t>>& clocks);
  void SetTraceClock(uint64_t clock_id) { trace_clock_ = clock_id; }
  uint64_t trace_clock() const { return trace_clock_; }
  bool has_snapshots() const { return !snapshots_.empty(); }

  std::optional<int64_t> ToTraceTime(uint64_t clock_id, int64_t ts) {
    if (clock_id == trace_clock_) return ts;
    return Convert(clock_id, trace_clock_, ts);
  }
  std::optional<int64_t> Convert(uint64_t from, uint64_t to, int64_t ts);

 private:
  using Edge = std::vector<std::pair<int64_t, int64_t>>;  // (from value, to value), sorted
  const Edge* GetEdge(uint64_t from, uint64_t to);
  std::optional<std::vector<uint64_t>> FindPath(uint64_t from, uint64_t to);

  uint64_t trace_clock_ = kClockBoottime;
  std::vector<std::map<uint64_t, int64_t>> snapshots_;
  std::map<std::pair<uint64_t, uint64_t>, Edge> edges_;
  std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>> paths_;
};

}  // namespace fathom
