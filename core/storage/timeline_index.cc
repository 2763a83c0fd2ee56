#include "core/storage/timeline_index.h"

#include <algorithm>
#include <cmath>

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
  // What the CPU tracks draw: the idle thread is a gap, not a slice, and
  // folding must not merge busy slices across idle time.
  cpu_drawn_rows_.resize(cpu_rows_.size());
  for (size_t cpu = 0; cpu < cpu_rows_.size(); ++cpu) {
    for (uint32_t row : cpu_rows_[cpu])
      if (sched.utid[row] != 0) cpu_drawn_rows_[cpu].push_back(row);
  }
  for (auto& rows : track_rows_)
    if (!std::is_sorted(rows.begin(), rows.end(), by_ts(counter.ts)))
      std::stable_sort(rows.begin(), rows.end(), by_ts(counter.ts));

  counter_blocks_.resize(track_rows_.size());
  for (size_t track = 0; track < track_rows_.size(); ++track) {
    const auto& rows = track_rows_[track];
    auto& blocks = counter_blocks_[track];
    blocks.reserve(rows.size() / kBlock);
    for (size_t i = 0; i + kBlock <= rows.size(); i += kBlock) {
      auto [lo, hi] = std::minmax_element(
          rows.begin() + i, rows.begin() + i + kBlock,
          [&](uint32_t a, uint32_t b) { return counter.value[a] < counter.value[b]; });
      blocks.push_back({counter.value[*lo], counter.value[*hi]});
    }
  }

  // Busy-time prefix sums and start times per block of kBusyBlock rows:
  // CpuBusyNs then needs one binary search over the block starts and a walk
  // of at most two blocks, at any zoom.
  cpu_busy_prefix_.resize(cpu_rows_.size());
  cpu_block_ts_.resize(cpu_rows_.size());
  for (size_t cpu = 0; cpu < cpu_rows_.size(); ++cpu) {
    const auto& rows = cpu_rows_[cpu];
    auto& prefix = cpu_busy_prefix_[cpu];
    prefix.reserve(rows.size() / kBusyBlock + 2);
    int64_t sum = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (i % kBusyBlock == 0) {
        prefix.push_back(sum);
        cpu_block_ts_[cpu].push_back(sched.ts[rows[i]]);
      }
      if (sched.utid[rows[i]] != 0) sum += SchedEnd(rows[i]) - sched.ts[rows[i]];
    }
    prefix.push_back(sum);
  }

  const ThreadStateTable& state = storage.thread_state;
  for (uint32_t row = 0; row < state.row_count(); ++row) {
    uint32_t utid = state.utid[row];
    if (utid >= thread_state_rows_.size()) thread_state_rows_.resize(utid + 1);
    thread_state_rows_[utid].push_back(row);
  }
  for (auto& rows : thread_state_rows_)
    if (!std::is_sorted(rows.begin(), rows.end(), by_ts(state.ts)))
      std::stable_sort(rows.begin(), rows.end(), by_ts(state.ts));

  const SliceTable& slice = storage.slice;
  slice_rows_.resize(storage.track.row_count());
  for (uint32_t row = 0; row < slice.row_count(); ++row) {
    uint32_t track = slice.track_id[row], depth = slice.depth[row];
    if (track >= slice_rows_.size()) slice_rows_.resize(track + 1);
    auto& levels = slice_rows_[track];
    if (depth >= levels.size()) levels.resize(depth + 1);
    levels[depth].push_back(row);
  }
  for (auto& levels : slice_rows_)
    for (auto& rows : levels)
      if (!std::is_sorted(rows.begin(), rows.end(), by_ts(slice.ts)))
        std::stable_sort(rows.begin(), rows.end(), by_ts(slice.ts));
}

template <typename TsColumn, typename EndFn>
std::vector<TimelineSpan> TimelineIndex::Spans(const std::vector<uint32_t>& rows,
                                               const TsColumn& ts, EndFn end, int64_t t0,
                                               int64_t t1, uint32_t pixels) const {
  std::vector<TimelineSpan> out;
  if (rows.empty() || t1 <= t0 || pixels == 0) return out;
  const double ns_per_px = static_cast<double>(t1 - t0) / pixels;
  auto by_ts = [&ts](uint32_t row, int64_t t) { return ts[row] < t; };
  auto it = std::lower_bound(rows.begin(), rows.end(), t0, by_ts);
  if (it != rows.begin() && end(*std::prev(it)) > t0) --it;
  size_t i = static_cast<size_t>(it - rows.begin());
  const size_t n = rows.size();
  while (i < n && ts[rows[i]] < t1) {
    uint32_t row = rows[i];
    TimelineSpan span{ts[row], std::max(end(row), ts[row]), row, 0};
    // Rows that start before the next pixel column after this span's end are
    // hidden under that column: fold them in and jump past them.
    double column = std::floor(static_cast<double>(span.end - t0) / ns_per_px);
    int64_t boundary = t0 + static_cast<int64_t>(std::ceil((column + 1) * ns_per_px));
    auto next = std::lower_bound(rows.begin() + i + 1, rows.end(), boundary, by_ts);
    size_t j = static_cast<size_t>(next - rows.begin());
    if (j > i + 1) {
      uint32_t last = rows[j - 1];
      if (end(last) > boundary) {
        // The last hidden row reaches past the column: draw it on its own.
        span.merged = static_cast<uint32_t>(j - i - 2);
        span.end = std::max(span.end, ts[last]);
        i = j - 1;
      } else {
        span.merged = static_cast<uint32_t>(j - i - 1);
        span.end = std::max(span.end, end(last));
        i = j;
      }
    } else {
      ++i;
    }
    out.push_back(span);
  }
  return out;
}

std::vector<TimelineSpan> TimelineIndex::SchedSpans(uint32_t cpu, int64_t t0, int64_t t1,
                                                    uint32_t pixels) const {
  if (cpu >= cpu_rows_.size()) return {};
  return Spans(
      cpu_drawn_rows_[cpu], storage_.sched.ts, [this](uint32_t r) { return SchedEnd(r); }, t0, t1,
      pixels);
}

uint64_t TimelineIndex::SchedCountInRange(uint32_t cpu, int64_t t0, int64_t t1) const {
  if (cpu >= cpu_rows_.size() || t1 <= t0) return 0;
  const auto& rows = cpu_rows_[cpu];
  const auto& ts = storage_.sched.ts;
  auto by_ts = [&ts](uint32_t row, int64_t t) { return ts[row] < t; };
  auto a = std::lower_bound(rows.begin(), rows.end(), t0, by_ts);
  auto b = std::lower_bound(a, rows.end(), t1, by_ts);
  return static_cast<uint64_t>(b - a);
}

int64_t TimelineIndex::BusyBefore(uint32_t cpu, int64_t t) const {
  // Whole rows starting before t, minus the part of the last of them that
  // runs past t (rows of one CPU do not overlap).
  const auto& rows = cpu_rows_[cpu];
  const auto& ts = storage_.sched.ts;
  const auto& utid = storage_.sched.utid;
  // First row starting at or after t: a binary search over the contiguous
  // block start times (cache friendly, unlike ts[rows[mid]]), then a scan of
  // at most one block.
  const auto& starts = cpu_block_ts_[cpu];
  size_t k =
      static_cast<size_t>(std::lower_bound(starts.begin(), starts.end(), t) - starts.begin());
  size_t i = k * kBusyBlock;
  if (k > 0) {
    i = (k - 1) * kBusyBlock;
    size_t stop = std::min(rows.size(), k * kBusyBlock);
    while (i < stop && ts[rows[i]] < t) ++i;
  }
  i = std::min(i, rows.size());
  size_t block = i / kBusyBlock;
  int64_t sum = cpu_busy_prefix_[cpu][block];
  for (size_t k = block * kBusyBlock; k < i; ++k)
    if (utid[rows[k]] != 0) sum += SchedEnd(rows[k]) - ts[rows[k]];
  if (i > 0 && utid[rows[i - 1]] != 0) sum -= std::max<int64_t>(0, SchedEnd(rows[i - 1]) - t);
  return sum;
}

int64_t TimelineIndex::CpuBusyNs(uint32_t cpu, int64_t t0, int64_t t1) const {
  if (cpu >= cpu_rows_.size() || t1 <= t0) return 0;
  return std::max<int64_t>(0, BusyBefore(cpu, t1) - BusyBefore(cpu, t0));
}

std::vector<TimelineSpan> TimelineIndex::ThreadStateSpans(uint32_t utid, int64_t t0, int64_t t1,
                                                          uint32_t pixels) const {
  if (utid >= thread_state_rows_.size()) return {};
  const auto& st = storage_.thread_state;
  return Spans(
      thread_state_rows_[utid], st.ts,
      [this, &st](uint32_t r) { return st.dur[r] < 0 ? trace_end_ : st.ts[r] + st.dur[r]; }, t0, t1,
      pixels);
}

std::vector<TimelineSpan> TimelineIndex::SliceSpans(uint32_t track_id, uint32_t depth, int64_t t0,
                                                    int64_t t1, uint32_t pixels) const {
  if (track_id >= slice_rows_.size() || depth >= slice_rows_[track_id].size()) return {};
  const auto& sl = storage_.slice;
  return Spans(
      slice_rows_[track_id][depth], sl.ts,
      [this, &sl](uint32_t r) { return sl.dur[r] < 0 ? trace_end_ : sl.ts[r] + sl.dur[r]; }, t0, t1,
      pixels);
}

template <typename TsColumn, typename EndFn>
void TimelineIndex::AppendOverlapping(const std::vector<uint32_t>& rows, const TsColumn& ts,
                                      EndFn end, int64_t t0, int64_t t1,
                                      std::vector<uint32_t>* out) {
  if (t1 <= t0) return;
  // First row starting at or after t0; the one before may still overlap.
  auto it = std::lower_bound(rows.begin(), rows.end(), t0,
                             [&](uint32_t row, int64_t t) { return ts[row] < t; });
  if (it != rows.begin() && end(*std::prev(it)) > t0) --it;
  for (; it != rows.end() && ts[*it] < t1; ++it)
    if (end(*it) > t0 || ts[*it] >= t0) out->push_back(*it);
}

std::vector<uint32_t> TimelineIndex::ThreadStateRowsInRange(uint32_t utid, int64_t t0,
                                                            int64_t t1) const {
  std::vector<uint32_t> out;
  if (utid >= thread_state_rows_.size()) return out;
  const auto& st = storage_.thread_state;
  AppendOverlapping(
      thread_state_rows_[utid], st.ts,
      [this, &st](uint32_t r) { return st.dur[r] < 0 ? trace_end_ : st.ts[r] + st.dur[r]; }, t0, t1,
      &out);
  return out;
}

std::vector<uint32_t> TimelineIndex::SliceRowsInRange(uint32_t track_id, int64_t t0,
                                                      int64_t t1) const {
  std::vector<uint32_t> out;
  if (track_id >= slice_rows_.size()) return out;
  const auto& sl = storage_.slice;
  for (const auto& rows : slice_rows_[track_id])
    AppendOverlapping(
        rows, sl.ts,
        [this, &sl](uint32_t r) { return sl.dur[r] < 0 ? trace_end_ : sl.ts[r] + sl.dur[r]; }, t0,
        t1, &out);
  return out;
}

std::vector<uint32_t> TimelineIndex::CounterRowsInRange(uint32_t track_id, int64_t t0, int64_t t1,
                                                        std::optional<uint32_t>* before) const {
  if (before) *before = std::nullopt;
  if (track_id >= track_rows_.size() || t1 <= t0) return {};
  const auto& rows = track_rows_[track_id];
  const auto& ts = storage_.counter.ts;
  auto by_ts = [&ts](uint32_t row, int64_t t) { return ts[row] < t; };
  auto a = std::lower_bound(rows.begin(), rows.end(), t0, by_ts);
  auto b = std::lower_bound(a, rows.end(), t1, by_ts);
  if (before && a != rows.begin()) *before = *std::prev(a);
  return std::vector<uint32_t>(a, b);
}

uint32_t TimelineIndex::SliceDepthCount(uint32_t track_id) const {
  return track_id < slice_rows_.size() ? static_cast<uint32_t>(slice_rows_[track_id].size()) : 0;
}

uint64_t TimelineIndex::SliceCount(uint32_t track_id) const {
  uint64_t n = 0;
  if (track_id < slice_rows_.size())
    for (const auto& rows : slice_rows_[track_id]) n += rows.size();
  return n;
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
  if (buckets == 0 || t1 <= t0 || cpu >= cpu_rows_.size()) return busy;
  const double width = static_cast<double>(t1 - t0) / buckets;
  auto edge = [&](uint32_t b) { return b >= buckets ? t1 : t0 + static_cast<int64_t>(b * width); };
  const auto& rows = cpu_rows_[cpu];
  const auto& ts = storage_.sched.ts;
  const auto& utid = storage_.sched.utid;
  auto by_ts = [&ts](uint32_t row, int64_t t) { return ts[row] < t; };
  auto first = std::lower_bound(rows.begin(), rows.end(), t0, by_ts);
  auto last = std::lower_bound(first, rows.end(), t1, by_ts);
  if (static_cast<uint64_t>(last - first) <= 8ull * buckets) {
    // Few rows in range: one sweep over them, spreading each over its buckets.
    if (first != rows.begin()) --first;  // may straddle t0
    for (auto it = first; it != last; ++it) {
      if (utid[*it] == 0) continue;
      int64_t s = std::max(ts[*it], t0), e = std::min(SchedEnd(*it), t1);
      if (e <= s) continue;
      uint32_t b0 = std::min<uint32_t>(buckets - 1, static_cast<uint32_t>((s - t0) / width));
      for (uint32_t b = b0; b < buckets && edge(b) < e; ++b) {
        int64_t overlap = std::min(e, edge(b + 1)) - std::max(s, edge(b));
        if (overlap > 0) busy[b] += static_cast<double>(overlap);
      }
    }
  } else {
    // Many rows: busy time before each bucket edge from the prefix sums, each
    // edge computed once and shared by the buckets on both sides.
    int64_t before = BusyBefore(cpu, edge(0));
    for (uint32_t b = 0; b < buckets; ++b) {
      int64_t after = BusyBefore(cpu, edge(b + 1));
      busy[b] = static_cast<double>(after - before);
      before = after;
    }
  }
  for (uint32_t b = 0; b < buckets; ++b) {
    int64_t w = edge(b + 1) - edge(b);
    busy[b] = w > 0 ? std::min(1.0, busy[b] / static_cast<double>(w)) : 0.0;
  }
  return busy;
}

std::vector<CounterBucket> TimelineIndex::CounterBuckets(uint32_t track_id, int64_t t0, int64_t t1,
                                                         uint32_t buckets) const {
  std::vector<CounterBucket> out(buckets);
  if (buckets == 0 || t1 <= t0 || track_id >= track_rows_.size()) return out;
  const auto& rows = track_rows_[track_id];
  const auto& blocks = counter_blocks_[track_id];
  const auto& ts = storage_.counter.ts;
  const auto& value = storage_.counter.value;
  double width = static_cast<double>(t1 - t0) / buckets;
  // The sample in force at t0 is the last one at or before it.
  size_t i =
      static_cast<size_t>(std::upper_bound(rows.begin(), rows.end(), t0,
                                           [&](int64_t t, uint32_t row) { return t < ts[row]; }) -
                          rows.begin());
  bool have = i > 0;
  double current = have ? value[rows[i - 1]] : 0;
  auto by_ts = [&ts](uint32_t row, int64_t t) { return ts[row] < t; };
  for (uint32_t b = 0; b < buckets; ++b) {
    int64_t be = t0 + static_cast<int64_t>((b + 1) * width);
    if (b + 1 == buckets) be = t1;
    CounterBucket& bucket = out[b];
    if (have) bucket = {current, current, current, true};
    size_t j = static_cast<size_t>(std::lower_bound(rows.begin() + i, rows.end(), be, by_ts) -
                                   rows.begin());
    if (j == i) continue;
    // min/max of rows [i, j): loose rows at both ends, whole blocks between.
    double lo = value[rows[i]], hi = lo;
    size_t k = i;
    auto take = [&](double v) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    };
    for (; k < j && k % kBlock != 0; ++k) take(value[rows[k]]);
    for (; k + kBlock <= j; k += kBlock) {
      take(blocks[k / kBlock].first);
      take(blocks[k / kBlock].second);
    }
    for (; k < j; ++k) take(value[rows[k]]);
    current = value[rows[j - 1]];
    if (!bucket.has_value) {
      bucket = {lo, hi, current, true};
    } else {
      bucket.min = std::min(bucket.min, lo);
      bucket.max = std::max(bucket.max, hi);
      bucket.last = current;
    }
    have = true;
    i = j;
  }
  return out;
}

}  // namespace fathom
