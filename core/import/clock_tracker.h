// Converts timestamps from any clock in the trace to the trace clock
// (BOOTTIME unless a ClockSnapshot names another primary clock), using the
// ClockSnapshot packets. Conversions may hop through intermediate clocks.
// Each snapshot costs O(k log k) for its k clocks plus the edges in use, and a
// path search runs only when a snapshot links clocks in a new way, so loading
// stays near-linear in the number of snapshots.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <unordered_map>
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
  // Whether any snapshot so far holds `clock_id`.
  bool Knows(uint64_t clock_id) const { return snapshots_of_clock_.count(clock_id) != 0; }
  // Every snapshot so far, in arrival order: (clock, value in ns) by clock.
  const std::vector<std::vector<std::pair<uint64_t, int64_t>>>& snapshots() const {
    return snapshots_;
  }

  std::optional<int64_t> ToTraceTime(uint64_t clock_id, int64_t ts) {
    if (clock_id == trace_clock_) return ts;
    return Convert(clock_id, trace_clock_, ts);
  }
  std::optional<int64_t> Convert(uint64_t from, uint64_t to, int64_t ts);

  // Conversions the recent-conversions cache could not answer (upstream's
  // clock_sync_cache_miss stat; see ConvertCached).
  int64_t cache_misses() const { return cache_misses_; }
  // Fathom converts the ftrace clock of bundles recorded with a non-boot
  // one itself (from each bundle's sync point); upstream takes those sync
  // points as snapshots, so the conversions still go through this cache to
  // keep its miss count and slot order: a hit gives the offset to add, a
  // miss stores the caller's answer. kFtraceClock names that clock.
  static constexpr uint64_t kFtraceClock = ~uint64_t{0};
  std::optional<int64_t> CachedOffset(uint64_t from, uint64_t to, int64_t ts) const;
  void StoreMiss(uint64_t from, uint64_t to, int64_t min, int64_t max, int64_t offset);
  void ClearCache() { cache_.fill({}); }

  // A boot clock timestamp (ftrace) read before any ClockSnapshot. Fathom
  // takes it as trace time; upstream's trace clock is then the trace file's
  // own, so its first such conversion misses, fails, makes BOOTTIME equal
  // to that clock (an implicit snapshot) and misses again; later ones hit.
  // Only that count is kept here.
  void NoteBootTimestampBeforeSnapshots() {
    if (!snapshots_.empty() || boot_read_before_snapshots_) return;
    boot_read_before_snapshots_ = true;
    cache_misses_ += 2;
    cache_slot_rng_();  // the retry's conversion took a slot
  }

  // As upstream, a conversion crosses at most this many snapshot links: a
  // clock farther from the trace clock than that has no path (the timestamp
  // is dropped and counted as a clock sync failure).
  static constexpr int kMaxHops = 4;

 private:
  using Snapshot = std::vector<std::pair<uint64_t, int64_t>>;  // (clock, value), by clock
  using Edge = std::set<std::pair<int64_t, int64_t>>;          // (from value, to value)
  const Edge* GetEdge(uint64_t from, uint64_t to);
  std::optional<std::vector<uint64_t>> FindPath(uint64_t from, uint64_t to);
  std::optional<int64_t> ConvertUncached(uint64_t from, uint64_t to, int64_t ts);
  void ExtendEdges(const Snapshot& snap);

  uint64_t trace_clock_ = kClockBoottime;
  std::vector<Snapshot> snapshots_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> snapshots_of_clock_;  // indices
  // The clock graph: two clocks are linked when a snapshot holds both. Only
  // distinct sets of clocks ("shapes") are kept, so a trace that snapshots
  // the same clocks every second has one shape however long it is, and its
  // paths stay cached.
  std::map<std::vector<uint64_t>, uint32_t> shape_ids_;
  std::vector<std::vector<uint64_t>> shapes_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> shapes_of_clock_;  // first appearance order
  // Edges are built for the clock pairs conversions use, then kept current as
  // snapshots arrive.
  std::map<std::pair<uint64_t, uint64_t>, Edge> edges_;
  std::unordered_map<uint64_t, std::vector<uint64_t>> edges_from_;
  std::map<std::pair<uint64_t, uint64_t>, std::vector<uint64_t>> paths_;  // cleared on a new shape

  // As upstream, the last few conversions are remembered as (from, to, the
  // range of `from` values whose conversion uses the same snapshots, offset);
  // a conversion outside them is a cache miss and takes a slot picked by a
  // default-seeded minstd_rand (never reseeded), so the miss count matches
  // upstream's. Every snapshot empties the cache.
  struct CachedConversion {
    uint64_t from = 0, to = 0;
    int64_t min = 0, max = 0;  // [min, max) in `from`'s values
    int64_t offset = 0;
    bool used = false;
  };
  std::array<CachedConversion, 8> cache_{};
  std::minstd_rand cache_slot_rng_;
  int64_t cache_misses_ = 0;
  bool boot_read_before_snapshots_ = false;
};

}  // namespace fathom
