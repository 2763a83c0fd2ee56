#include "widgets/timeline/process_activity.h"

#include <algorithm>

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

int64_t ActivityProfile::IntegralAt(int64_t t) const {
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

ProcessActivity buildProcessActivity(const TraceStorage& s) {
  const uint32_t processes = s.process.row_count();
  std::vector<std::vector<std::pair<int64_t, int64_t>>> sched(processes), slices(processes);
  auto upidOf = [&](uint32_t utid) -> std::optional<uint32_t> {
    if (utid == 0 || utid >= s.thread.row_count()) return std::nullopt;
    return s.thread.upid.Get(utid);
  };
  // A slice that did not end (dur -1) stays open to the end of the trace.
  auto endOf = [&](int64_t ts, int64_t dur) {
    return dur < 0 ? std::max(ts, s.max_ts()) : ts + dur;
  };
  for (uint32_t r = 0; r < s.sched.row_count(); ++r) {
    auto upid = upidOf(s.sched.utid[r]);
    if (upid && *upid < processes)
      sched[*upid].push_back({s.sched.ts[r], endOf(s.sched.ts[r], s.sched.dur[r])});
  }
  const SliceTable& sl = s.slice;
  for (uint32_t r = 0; r < sl.row_count(); ++r) {
    if (sl.depth[r] != 0) continue;
    const uint32_t track = sl.track_id[r];
    std::optional<uint32_t> upid = s.track.upid.Get(track);
    if (!upid)
      if (auto utid = s.track.utid.Get(track)) upid = upidOf(*utid);
    if (upid && *upid < processes && sched[*upid].empty())
      slices[*upid].push_back({sl.ts[r], endOf(sl.ts[r], sl.dur[r])});
  }
  ProcessActivity out;
  out.profiles.resize(processes);
  out.from_sched.resize(processes);
  for (uint32_t upid = 0; upid < processes; ++upid) {
    out.from_sched[upid] = !sched[upid].empty();
    out.profiles[upid] = ActivityProfile::FromIntervals(
        std::move(out.from_sched[upid] ? sched[upid] : slices[upid]));
  }
  return out;
}

}  // namespace fathom::gui
