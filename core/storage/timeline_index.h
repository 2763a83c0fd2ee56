// Direct, SQL-free answers to the viewer's hot questions: "which sched slices
// of CPU 3 overlap [t0, t1)", "how busy was each CPU in each pixel column",
// "min/max/last value of a counter track per pixel column". Built once after
// import from the column tables (per-CPU and per-track row lists sorted by
// ts), then every query is a binary search plus a linear walk over just the
// rows in range.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

// One drawable span of a timeline lookup. Spans narrower than a pixel are
// folded into their neighbours: `row` is the first row folded into the span
// and `merged` how many more rows it stands for (0 = exactly one row).
struct TimelineSpan {
  int64_t start = 0;
  int64_t end = 0;
  uint32_t row = 0;
  uint32_t merged = 0;
};

struct CounterBucket {
  double min = 0;
  double max = 0;
  double last = 0;  // value in force at the end of the bucket
  bool has_value = false;
};

class TimelineIndex {
 public:
  explicit TimelineIndex(const TraceStorage& storage);

  uint32_t cpu_count() const { return static_cast<uint32_t>(cpu_rows_.size()); }

  // sched_slice row ids on `cpu` overlapping [t0, t1), in ts order. A slice
  // still open at the end of the trace (dur -1) lasts until the trace end.
  std::vector<uint32_t> SchedSlicesInRange(uint32_t cpu, int64_t t0, int64_t t1) const;

  // Fraction (0..1) of each of `buckets` equal parts of [t0, t1) during which
  // `cpu` ran something other than the idle thread (utid 0).
  std::vector<double> CpuUtilization(uint32_t cpu, int64_t t0, int64_t t1, uint32_t buckets) const;

  // Sched slices of `cpu` over [t0, t1) for `pixels` columns: at most about two
  // spans per pixel column, whatever the number of rows (binary searches skip
  // the rows hidden under one pixel), so a frame costs O(pixels * log rows).
  std::vector<TimelineSpan> SchedSpans(uint32_t cpu, int64_t t0, int64_t t1, uint32_t pixels) const;
  // Number of sched rows of `cpu` starting in [t0, t1) (two binary searches).
  uint64_t SchedCountInRange(uint32_t cpu, int64_t t0, int64_t t1) const;
  // Non-idle nanoseconds of `cpu` in [t0, t1), from per-block prefix sums:
  // O(log rows + 16), independent of the range length.
  int64_t CpuBusyNs(uint32_t cpu, int64_t t0, int64_t t1) const;

  // thread_state rows of `utid` (same folding as SchedSpans).
  std::vector<TimelineSpan> ThreadStateSpans(uint32_t utid, int64_t t0, int64_t t1,
                                             uint32_t pixels) const;
  // Slices of slice track `track_id` at nesting `depth` (same folding).
  std::vector<TimelineSpan> SliceSpans(uint32_t track_id, uint32_t depth, int64_t t0, int64_t t1,
                                       uint32_t pixels) const;
  // Deepest nesting level + 1 of a slice track (0: no slices).
  uint32_t SliceDepthCount(uint32_t track_id) const;
  uint64_t SliceCount(uint32_t track_id) const;
  uint64_t CounterCount(uint32_t track_id) const {
    return track_id < track_rows_.size() ? track_rows_[track_id].size() : 0;
  }
  bool HasThreadStates(uint32_t utid) const {
    return utid < thread_state_rows_.size() && !thread_state_rows_[utid].empty();
  }

  // thread_state rows of `utid` overlapping [t0, t1), in ts order (area selections).
  std::vector<uint32_t> ThreadStateRowsInRange(uint32_t utid, int64_t t0, int64_t t1) const;
  // Slice rows of `track_id` at every depth overlapping [t0, t1), depth by depth.
  std::vector<uint32_t> SliceRowsInRange(uint32_t track_id, int64_t t0, int64_t t1) const;

  // Counter rows of `track_id` with ts in [t0, t1), in ts order, plus the row
  // in force at t0 (the last sample before it) when there is one.
  std::vector<uint32_t> CounterRowsInRange(uint32_t track_id, int64_t t0, int64_t t1,
                                           std::optional<uint32_t>* before = nullptr) const;

  // Per bucket of [t0, t1): min/max of the values in force during the bucket
  // (a counter holds its value until the next sample), for drawing envelopes.
  // One binary search per bucket plus per-block min/max: never walks every
  // sample of a zoomed-out track.
  std::vector<CounterBucket> CounterBuckets(uint32_t track_id, int64_t t0, int64_t t1,
                                            uint32_t buckets) const;

 private:
  static constexpr size_t kBlock = 64;      // counter min/max blocks
  static constexpr size_t kBusyBlock = 16;  // sched busy-time prefix: 0.5 byte per row
  int64_t SchedEnd(uint32_t row) const;
  int64_t BusyBefore(uint32_t cpu, int64_t t) const;  // non-idle ns of `cpu` before t
  // Appends the rows (sorted by start, not overlapping) that overlap [t0, t1).
  template <typename TsColumn, typename EndFn>
  static void AppendOverlapping(const std::vector<uint32_t>& rows, const TsColumn& ts, EndFn end,
                                int64_t t0, int64_t t1, std::vector<uint32_t>* out);
  // Rows sorted by start and not overlapping each other; `end(row)`.
  template <typename TsColumn, typename EndFn>
  std::vector<TimelineSpan> Spans(const std::vector<uint32_t>& rows, const TsColumn& ts, EndFn end,
                                  int64_t t0, int64_t t1, uint32_t pixels) const;

  const TraceStorage& storage_;
  int64_t trace_end_;
  std::vector<std::vector<uint32_t>> cpu_rows_;        // cpu -> sched rows by ts
  std::vector<std::vector<uint32_t>> cpu_drawn_rows_;  // the same without the idle thread
  std::vector<std::vector<uint32_t>> track_rows_;      // track id -> counter rows by ts
  // cpu -> busy ns of rows [0, 16k) of cpu_rows_[cpu], for k = 0..
  std::vector<std::vector<int64_t>> cpu_busy_prefix_;
  std::vector<std::vector<int64_t>> cpu_block_ts_;  // cpu -> ts of rows 0, 16, 32...
  // track id -> (min, max) of each block of kBlock counter rows, so a bucket
  // holding millions of samples costs O(rows / kBlock).
  std::vector<std::vector<std::pair<double, double>>> counter_blocks_;
  std::vector<std::vector<uint32_t>> thread_state_rows_;  // utid -> rows by ts
  // track id -> depth -> slice rows by ts
  std::vector<std::vector<std::vector<uint32_t>>> slice_rows_;
};

}  // namespace fathom
