#include "widgets/timeline/packed_rows.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/storage/timeline_index.h"
#include "core/storage/trace_storage.h"
#include "widgets/timeline/timeline_data.h"

namespace fathom::gui {
namespace {

int64_t sliceEnd(const TraceStorage& s, uint32_t row) {
  const int64_t dur = s.slice.dur[row];
  return dur < 0 ? std::max<int64_t>(s.slice.ts[row], s.max_ts()) : s.slice.ts[row] + dur;
}

// The top-level ancestor of `row` (itself at depth 0). Depth bounds the walk.
uint32_t rootOf(const TraceStorage& s, uint32_t row) {
  for (uint32_t steps = s.slice.depth[row]; steps > 0; --steps) {
    auto parent = s.slice.parent_id.Get(row);
    if (!parent || *parent >= s.slice.row_count()) break;
    row = *parent;
  }
  return row;
}

}  // namespace

std::shared_ptr<const PackedSlices> packSlices(const TraceStorage& s, const TimelineIndex& index,
                                               const QVector<SlicePart>& parts, size_t max_slices) {
  size_t total = 0;
  for (const SlicePart& p : parts) total += index.SliceCount(p.track_id);
  if (total == 0 || total > max_slices) return nullptr;
  std::vector<uint32_t> rows;
  rows.reserve(total);
  for (const SlicePart& p : parts) {
    const std::vector<uint32_t> r = index.SliceRowsInRange(
        p.track_id, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
    rows.insert(rows.end(), r.begin(), r.end());
  }
  // Each top-level slice and how many levels its subtree needs.
  QHash<quint32, int> height;  // root row -> levels
  std::vector<uint32_t> roots;
  for (uint32_t row : rows) {
    const uint32_t root = rootOf(s, row);
    const int need = int(s.slice.depth[row] - s.slice.depth[root]) + 1;
    auto it = height.find(root);
    if (it == height.end()) {
      height.insert(root, need);
      roots.push_back(root);
    } else {
      it.value() = std::max(it.value(), need);
    }
  }
  std::sort(roots.begin(), roots.end(), [&](uint32_t a, uint32_t b) {
    if (s.slice.ts[a] != s.slice.ts[b]) return s.slice.ts[a] < s.slice.ts[b];
    return a < b;
  });
  // First fit in start order: a level is free at t when its last slice ended by t.
  std::vector<int64_t> busy_until;
  QHash<quint32, int> base;
  for (uint32_t root : roots) {
    const int h = height.value(root);
    const int64_t ts = s.slice.ts[root], end = sliceEnd(s, root);
    int b = 0;
    for (;; ++b) {
      bool free = true;
      for (int l = b; l < b + h && l < int(busy_until.size()); ++l) free &= busy_until[l] <= ts;
      if (free) break;
    }
    if (int(busy_until.size()) < b + h)
      busy_until.resize(b + h, std::numeric_limits<int64_t>::min());
    for (int l = b; l < b + h; ++l) busy_until[l] = end;
    base.insert(root, b);
  }
  auto out = std::make_shared<PackedSlices>();
  out->levels.resize(int(busy_until.size()));
  out->level_of.reserve(qsizetype(rows.size()));
  for (uint32_t row : rows) {
    const uint32_t root = rootOf(s, row);
    const int level = base.value(root) + int(s.slice.depth[row] - s.slice.depth[root]);
    out->level_of.insert(row, level);
    out->levels[level].push_back(row);
  }
  for (QVector<quint32>& level : out->levels)
    std::sort(level.begin(), level.end(), [&](quint32 a, quint32 b) {
      return s.slice.ts[a] != s.slice.ts[b] ? s.slice.ts[a] < s.slice.ts[b] : a < b;
    });
  return out;
}

QVector<PaintSpan> packedLevelSpans(const TraceStorage& s, const QVector<quint32>& rows, int64_t t0,
                                    int64_t t1, double ns_per_px,
                                    const std::function<void(PaintSpan&, bool wide)>& make) {
  QVector<PaintSpan> out;
  // A level's slices are disjoint and in start order, so their ends are ordered too.
  auto it = std::partition_point(rows.begin(), rows.end(),
                                 [&](quint32 r) { return sliceEnd(s, r) <= t0; });
  while (it != rows.end() && s.slice.ts[*it] < t1) {
    const uint32_t row = *it;
    const int64_t ts = s.slice.ts[row], end = sliceEnd(s, row);
    PaintSpan span{ts, end, row, 0, 0, {}};
    if (double(end - ts) >= ns_per_px) {
      make(span, true);
      out.push_back(std::move(span));
      ++it;
      continue;
    }
    // Under a pixel: fold in every slice that starts in the same pixel column.
    const double column = std::floor(double(ts - t0) / ns_per_px);
    const int64_t next = t0 + int64_t((column + 1) * ns_per_px) + 1;
    auto stop =
        std::partition_point(it, rows.end(), [&](quint32 r) { return s.slice.ts[r] < next; });
    if (stop == it) ++stop;
    span.end = std::max(end, sliceEnd(s, *(stop - 1)));
    span.merged = quint32(stop - it - 1);
    make(span, false);
    out.push_back(std::move(span));
    it = stop;
  }
  return out;
}

}  // namespace fathom::gui
