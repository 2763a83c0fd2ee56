// A process's activity over time, for the summary drawn on a collapsed process's header
// row: how many of its threads run at each instant (from sched), or, for a process without
// scheduling data, how many of its top-level slices are open. Both are step functions of
// intervals; the profile keeps their running integral at each step so that the average
// over any pixel column costs two binary searches, whatever the trace size.
#pragma once

#include <QVector>
#include <cstdint>
#include <utility>
#include <vector>

namespace fathom {
class TraceStorage;
}

namespace fathom::gui {

class ActivityProfile {
 public:
  ActivityProfile() = default;
  // Exact: half-open [start, end) intervals; empty ones are ignored.
  static ActivityProfile FromIntervals(std::vector<std::pair<int64_t, int64_t>> intervals);
  // Gridded: busy[k] ns in [t0 + k * width, t0 + (k + 1) * width); exact at the grid's
  // boundaries, spread evenly inside a cell (for processes too big to keep every interval).
  static ActivityProfile FromGrid(int64_t t0, int64_t width, const std::vector<int64_t>& busy);

  bool empty() const { return integral_.empty(); }
  // Sum over the intervals of their overlap with [a, b): "busy thread-ns".
  int64_t BusyNs(int64_t a, int64_t b) const { return IntegralAt(b) - IntegralAt(a); }
  // The average number of open intervals in each of `buckets` equal columns of [t0, t1)
  // (column i covers [BucketStart(i), BucketStart(i + 1))).
  QVector<float> Buckets(int64_t t0, int64_t t1, int buckets) const;
  static int64_t BucketStart(int64_t t0, int64_t t1, int buckets, int i);
  int max_count() const { return max_count_; }

 private:
  int64_t IntegralAt(int64_t t) const;
  // Exact: step times (ascending), the integral of the count up to each, and the count
  // after it. Gridded: times_ empty; integral_ at each cell boundary t0_ + k * width_.
  std::vector<int64_t> times_;
  std::vector<int64_t> integral_;
  std::vector<int32_t> count_;
  int64_t t0_ = 0, width_ = 0;
  int max_count_ = 0;
};

// Per process (indexed by upid): its threads' scheduling slices, or, when it has none, its
// depth-0 slices (thread and process tracks). `from_sched[upid]` says which. Up to
// `exact_budget` intervals (smallest processes first) are kept exactly; larger processes
// get a gridded profile (kGridCells cells over the trace, 32 KiB each), so time and memory
// stay bounded on a trace of tens of millions of slices.
struct ProcessActivity {
  static constexpr size_t kExactBudget = 1'000'000;
  static constexpr int kGridCells = 4096;
  std::vector<ActivityProfile> profiles;
  std::vector<bool> from_sched;
};
ProcessActivity buildProcessActivity(const TraceStorage& storage,
                                     size_t exact_budget = ProcessActivity::kExactBudget);

}  // namespace fathom::gui
