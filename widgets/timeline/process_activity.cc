#include "widgets/timeline/process_activity.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "core/storage/trace_storage.h"

namespace fathom::gui {

ActivityProfile ActivityProfile::FromIntervals(std::vector<std::pair<int64_t, int64_t>> intervals) {
  ActivityProfile p;
  std::vector<std::pair<int64_t, int32_t>> steps;  // (time, +1 / -1)
  steps.reserve(intervals.size() * 2);
  for (const auto& [start, end] : intervals) {
    if (end <= start) continue;
    steps.push_back({start, 1});
    steps.push_back({end, -1});
  }
  intervals = {};
  std::sort(steps.begin(), steps.end());
  int32_t count = 0;
  int64_t integral = 0;
  for (size_t i = 0; i < steps.size();) {
    const int64_t t = steps[i].first;
    if (!p.times_.empty()) integral += int64_t(count) * (t - p.times_.back());
    for (; i < steps.size() && steps[i].first == t; ++i) count += steps[i].second;
    p.times_.push_back(t);
    p.integral_.push_back(integral);
    p.count_.push_back(count);
    p.max_count_ = std::max(p.max_count_, int(count));
  }
  return p;
}

ActivityProfile ActivityProfile::FromGrid(int64_t t0, int64_t width,
                                          const std::vector<int64_t>& busy) {
  ActivityProfile p;
  if (busy.empty() || width <= 0) return p;
  p.t0_ = t0;
  p.width_ = width;
  p.integral_.reserve(busy.size() + 1);
  int64_t integral = 0;
  p.integral_.push_back(0);
  for (int64_t b : busy) {
    p.integral_.push_back(integral += b);
    p.max_count_ = std::max(p.max_count_, int((b + width - 1) / width));
  }
  return p;
}

int64_t ActivityProfile::IntegralAt(int64_t t) const {
  if (times_.empty()) {  // gridded: linear inside a cell
    if (integral_.empty() || t <= t0_) return 0;
    const int64_t cells = int64_t(integral_.size()) - 1;
    const int64_t k = std::min((t - t0_) / width_, cells);
    if (k == cells) return integral_.back();
    const int64_t in_cell = t - t0_ - k * width_;
    return integral_[k] +
           int64_t(static_cast<__int128>(integral_[k + 1] - integral_[k]) * in_cell / width_);
  }
  auto it = std::upper_bound(times_.begin(), times_.end(), t);
  if (it == times_.begin()) return 0;
  const size_t k = size_t(it - times_.begin()) - 1;
  return integral_[k] + int64_t(count_[k]) * (t - times_[k]);
}

int64_t ActivityProfile::BucketStart(int64_t t0, int64_t t1, int buckets, int i) {
  // 128-bit product: a span of years at ns resolution times thousands of columns.
  return t0 + int64_t(static_cast<__int128>(t1 - t0) * i / std::max(1, buckets));
}

QVector<float> ActivityProfile::Buckets(int64_t t0, int64_t t1, int buckets) const {
  QVector<float> out(std::max(0, buckets), 0.f);
  if (empty() || t1 <= t0) return out;
  int64_t a = BucketStart(t0, t1, buckets, 0), ia = IntegralAt(a);
  for (int i = 0; i < buckets; ++i) {
    const int64_t b = BucketStart(t0, t1, buckets, i + 1), ib = IntegralAt(b);
    if (b > a) out[i] = float(double(ib - ia) / double(b - a));
    a = b;
    ia = ib;
  }
  return out;
}

namespace {

// Busy time per grid cell; whole cells an interval covers go through a difference array, so
// an interval costs O(1) however long it is.
class Grid {
 public:
  Grid(int64_t t0, int64_t t1, int cells)
      : t0_(t0),
        width_(std::max<int64_t>(1, (t1 - t0 + cells) / cells)),
        busy_(cells, 0),
        whole_(cells + 1, 0) {}
  void Add(int64_t a, int64_t b) {
    const int64_t end = t0_ + width_ * int64_t(busy_.size());
    a = std::clamp(a, t0_, end);
    b = std::clamp(b, t0_, end);
    if (b <= a) return;
    const size_t ka = size_t((a - t0_) / width_), kb = size_t((b - 1 - t0_) / width_);
    if (ka == kb) {
      busy_[ka] += b - a;
      return;
    }
    busy_[ka] += t0_ + int64_t(ka + 1) * width_ - a;
    busy_[kb] += b - (t0_ + int64_t(kb) * width_);
    whole_[ka + 1] += 1;
    whole_[kb] -= 1;
  }
  ActivityProfile Profile() {
    int64_t covering = 0;
    for (size_t k = 0; k < busy_.size(); ++k) busy_[k] += (covering += whole_[k]) * width_;
    return ActivityProfile::FromGrid(t0_, width_, busy_);
  }

 private:
  int64_t t0_, width_;
  std::vector<int64_t> busy_, whole_;
};

// The owner of each interval source: sched rows by their thread's process, depth-0 slices by
// their track's process (or its thread's), for processes without sched rows.
struct Owners {
  explicit Owners(const TraceStorage& storage)
      : s(storage), upid_of(storage.thread.row_count(), -1) {
    for (uint32_t utid = 1; utid < upid_of.size(); ++utid)
      if (auto upid = s.thread.upid.Get(utid)) upid_of[utid] = int64_t(*upid);
  }
  const TraceStorage& s;
  std::vector<int64_t> upid_of;  // by utid; -1: none (and the idle thread 0)
  std::optional<uint32_t> OfThread(uint32_t utid) const {
    if (utid >= upid_of.size() || upid_of[utid] < 0) return std::nullopt;
    return uint32_t(upid_of[utid]);
  }
  std::optional<uint32_t> OfSlice(uint32_t row) const {
    if (s.slice.depth[row] != 0) return std::nullopt;
    const uint32_t track = s.slice.track_id[row];
    if (auto upid = s.track.upid.Get(track)) return upid;
    if (auto utid = s.track.utid.Get(track)) return OfThread(*utid);
    return std::nullopt;
  }
  // A slice that did not end (dur -1) stays open to the end of the trace.
  int64_t End(int64_t ts, int64_t dur) const {
    return dur < 0 ? std::max(ts, s.max_ts()) : ts + dur;
  }
};

}  // namespace

ProcessActivity buildProcessActivity(const TraceStorage& s, size_t exact_budget) {
  const uint32_t processes = s.process.row_count();
  const Owners owners(s);
  ProcessActivity out;
  out.profiles.resize(processes);
  out.from_sched.assign(processes, false);
  // Pass 1: how many intervals each process has, from which source.
  std::vector<size_t> count(processes, 0);
  for (uint32_t r = 0; r < s.sched.row_count(); ++r)
    if (auto upid = owners.OfThread(s.sched.utid[r]); upid && *upid < processes) ++count[*upid];
  for (uint32_t upid = 0; upid < processes; ++upid) out.from_sched[upid] = count[upid] > 0;
  for (uint32_t r = 0; r < s.slice.row_count(); ++r)
    if (auto upid = owners.OfSlice(r); upid && *upid < processes && !out.from_sched[*upid])
      ++count[*upid];
  // Exact profiles for the smallest processes within the budget; grids for the rest.
  std::vector<uint32_t> order(processes);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return count[a] < count[b]; });
  std::vector<std::vector<std::pair<int64_t, int64_t>>> exact(processes);
  std::vector<std::optional<Grid>> grids(processes);
  size_t used = 0;
  for (uint32_t upid : order) {
    if (count[upid] == 0) continue;
    if (used + count[upid] <= exact_budget) {
      used += count[upid];
      exact[upid].reserve(count[upid]);
    } else {
      grids[upid].emplace(s.min_ts(), s.max_ts() + 1, ProcessActivity::kGridCells);
    }
  }
  // Pass 2: the intervals, kept or gridded.
  auto add = [&](uint32_t upid, int64_t a, int64_t b) {
    if (grids[upid])
      grids[upid]->Add(a, b);
    else
      exact[upid].push_back({a, b});
  };
  for (uint32_t r = 0; r < s.sched.row_count(); ++r)
    if (auto upid = owners.OfThread(s.sched.utid[r]); upid && *upid < processes)
      add(*upid, s.sched.ts[r], owners.End(s.sched.ts[r], s.sched.dur[r]));
  for (uint32_t r = 0; r < s.slice.row_count(); ++r)
    if (auto upid = owners.OfSlice(r); upid && *upid < processes && !out.from_sched[*upid])
      add(*upid, s.slice.ts[r], owners.End(s.slice.ts[r], s.slice.dur[r]));
  for (uint32_t upid = 0; upid < processes; ++upid)
    out.profiles[upid] = grids[upid] ? grids[upid]->Profile()
                                     : ActivityProfile::FromIntervals(std::move(exact[upid]));
  return out;
}

}  // namespace fathom::gui
