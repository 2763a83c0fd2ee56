#include "core/storage/timeline_index.h"

#include <algorithm>

namespace fathom {

TimelineIndex::TimelineIndex(const TraceStorage& storage)
    : storage_(storage), trace_end_(storage.max_ts()) {
  const SchedSliceTable& sched = storage.sched;
  for (uint32_t row = 0; row < sched.row_count(); ++row) {
    uint32_t cpu = sched.cpu[row];
    if (cpu >= cpu_rows_.size()) cpu_rows_.resize(cpu + 1);
    cpu_rows_[cpu].push_back(row);
  }
  // sched rows are inserted in ts order, so each list is sorted already; the
  // counter table is too, but sort defensively: this runs once per load.
  const CounterTable& counter = storage.counter;
  track_rows_.resize(storage.track.row_count());
  for (uint32_t row = 0; row < counter.row_count(); ++row) {
    uint32_t track = counter.track_id[row];
    if (track >= track_rows_.size()) track_rows_.resize(track + 1);
    track_rows_[track].push_back(row);
  }
  auto by_ts = [&](const auto& ts_column) {
    return [&ts_column](uint32_t a, uint32_t b) { return ts_column[a] < ts_column[b]; };
  };
  for (auto& rows : cpu_rows_)
    if (!std::is_sorted(rows.begin(), rows.end(), by_ts(sched.ts)))
      std::stable_sort(rows.begin(), rows.end(), by_ts(sched.ts));
  for (auto& rows : track_rows_)
    if (!std::is_sorted(rows.begin(), rows.end(), by_ts(counter.ts)))
      std::stable_sort(rows.begin(), rows.end(), by_ts(counter.ts));
}

int64_t TimelineIndex::SchedEnd(uint32_t row) const {
  int64_t dur = storage_.sched.dur[row];
  int64_t ts = storage_.sched.ts[row];
  return dur < 0 ? std::max(ts, trace_end_) : ts + dur;
}

std::vector<uint32_t> TimelineIndex::SchedSlicesInRange(uint32_t cpu, int64_t t0,
                                                        int64_t t1) const {
  std::vector<uint32_t> out;
  if (cpu >= cpu_rows_.size() || t1 <= t0) return out;
  const auto& rows = cpu_rows_[cpu];
  const auto& ts = storage_.sched.ts;
  // First slice starting at or after t0; the one before may still overlap.
  auto it = std::lower_bound(rows.begin(), rows.end(), t0,
                             [&](uint32_t row, int64_t t) { return ts[row] < t; });
  if (it != rows.begin() && SchedEnd(*std::prev(it)) > t0) --it;
  for (; it != rows.end() && ts[*it] < t1; ++it)
    if (SchedEnd(*it) > t0 || ts[*it] >= t0) out.push_back(*it);
  return out;
}

std::vector<double> TimelineIndex::CpuUtilization(uint32_t cpu, int64_t t0, int64_t t1,
                                                  uint32_t buckets) const {
  std::vector<double> busy(buckets, 0.0);
  if (buckets == 0 || t1 <= t0) return busy;
  double width = static_cast<double>(t1 - t0) / buckets;
  for (uint32_t row : SchedSlicesInRange(cpu, t0, t1)) {
    if (storage_.sched.utid[row] == 0) continue;  // idle
    int64_t s = std::max(storage_.sched.ts[row], t0);
    int64_t e = std::min(SchedEnd(row), t1);
    if (e <= s) continue;
    // Spread [s, e) over the buckets it covers.
    uint32_t b0 = static_cast<uint32_t>((s - t0) / width);
    uint32_t b1 = std::min<uint32_t>(buckets - 1, static_cast<uint32_t>((e - 1 - t0) / width));
    for (uint32_t b = b0; b <= b1; ++b) {
      double bs = t0 + b * width, be = bs + width;
      double overlap = std::min<double>(e, be) - std::max<double>(s, bs);
      if (overlap > 0) busy[b] += overlap / width;
    }
  }
  for (double& v : busy) v = std::min(1.0, v);
  return busy;
}

std::vector<CounterBucket> TimelineIndex::CounterBuckets(uint32_t track_id, int64_t t0, int64_t t1,
                                                         uint32_t buckets) const {
  std::vector<CounterBucket> out(buckets);
  if (buckets == 0 || t1 <= t0 || track_id >= track_rows_.size()) return out;
  const auto& rows = track_rows_[track_id];
  const auto& ts = storage_.counter.ts;
  const auto& value = storage_.counter.value;
  double width = static_cast<double>(t1 - t0) / buckets;
  // The sample in force at t0 is the last one at or before it.
  auto it = std::upper_bound(rows.begin(), rows.end(), t0,
                             [&](int64_t t, uint32_t row) { return t < ts[row]; });
  bool have = it != rows.begin();
  double current = have ? value[*std::prev(it)] : 0;
  for (uint32_t b = 0; b < buckets; ++b) {
    int64_t be = t0 + static_cast<int64_t>((b + 1) * width);
    if (b + 1 == buckets) be = t1;
    CounterBucket& bucket = out[b];
    if (have) bucket = {current, current, current, true};
    for (; it != rows.end() && ts[*it] < be; ++it) {
      current = value[*it];
      if (!bucket.has_value) {
        bucket = {current, current, current, true};
      } else {
        bucket.min = std::min(bucket.min, current);
        bucket.max = std::max(bucket.max, current);
        bucket.last = current;
      }
      have = true;
    }
  }
  return out;
}

}  // namespace fathom
