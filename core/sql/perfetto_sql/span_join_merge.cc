#include "core/sql/perfetto_sql/span_join_merge.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace fathom::psql {
namespace {

constexpr int64_t kEndOfTime = std::numeric_limits<int64_t>::max();

// One piece of a side's walk through a partition: a real span or a shadow.
struct Piece {
  int64_t ts;
  int64_t end;
  int64_t row;  // -1 for a shadow
  bool real() const { return row >= 0; }
};

// The end a span is compared by: an unfinished span (dur -1) counts as
// ending where it starts.
int64_t EndOf(const SideSpan& s) { return s.dur == -1 ? s.ts : s.ts + s.dur; }

// The pieces of one side within a partition (spans [begin, end) of `spans`);
// shadows only when `shadows`, never empty ones.
std::vector<Piece> PiecesOf(const std::vector<SideSpan>& spans, size_t begin, size_t end,
                            bool shadows) {
  std::vector<Piece> out;
  auto shadow = [&](int64_t from, int64_t to) {
    if (shadows && from != to) out.push_back(Piece{from, to, -1});
  };
  if (begin == end) {
    shadow(0, kEndOfTime);
    return out;
  }
  int64_t prev_end = 0;
  for (size_t i = begin; i < end; ++i) {
    shadow(prev_end, spans[i].ts);
    out.push_back(Piece{spans[i].ts, EndOf(spans[i]), spans[i].row});
    prev_end = EndOf(spans[i]);
  }
  shadow(prev_end, kEndOfTime);
  return out;
}

bool Overlaps(const Piece& a, const Piece& b) {
  if (!a.real() && !b.real()) return false;
  return (a.ts == b.ts && a.real() && b.real()) || (a.ts >= b.ts && a.ts < b.end) ||
         (b.ts >= a.ts && b.ts < a.end);
}

void MergePartition(int64_t partition, const std::vector<Piece>& a, const std::vector<Piece>& b,
                    std::vector<JoinedSpan>* out) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const Piece& x = a[i];
    const Piece& y = b[j];
    if (Overlaps(x, y)) {
      const int64_t ts = std::max(x.ts, y.ts);
      out->push_back(JoinedSpan{partition, ts, std::min(x.end, y.end) - ts, x.row, y.row});
    }
    // Step the piece that ends first; on a tie a shadow goes before a span,
    // and the right side before the left.
    if (std::make_tuple(x.end, x.real()) < std::make_tuple(y.end, y.real()))
      ++i;
    else
      ++j;
  }
}

// The [begin, end) ranges of each partition of a sorted side.
struct Range {
  int64_t partition;
  size_t begin, end;
};
std::vector<Range> PartitionsOf(const std::vector<SideSpan>& spans) {
  std::vector<Range> out;
  for (size_t i = 0; i < spans.size();) {
    size_t j = i;
    while (j < spans.size() && spans[j].partition == spans[i].partition) ++j;
    out.push_back(Range{spans[i].partition, i, j});
    i = j;
  }
  return out;
}

}  // namespace

std::vector<JoinedSpan> MergeSpans(const std::vector<SideSpan>& left, bool left_partitioned,
                                   const std::vector<SideSpan>& right, bool right_partitioned,
                                   SpanJoinKind kind) {
  const bool left_shadows = kind == SpanJoinKind::kOuter;
  const bool right_shadows = kind != SpanJoinKind::kInner;
  std::vector<JoinedSpan> out;
  const std::vector<Range> lp = PartitionsOf(left), rp = PartitionsOf(right);
  if (left_partitioned != right_partitioned) {
    // The unpartitioned side is the same walk in every partition of the other.
    const bool left_is_whole = !left_partitioned;
    const std::vector<Piece> whole = left_is_whole
                                         ? PiecesOf(left, 0, left.size(), left_shadows)
                                         : PiecesOf(right, 0, right.size(), right_shadows);
    for (const Range& r : left_is_whole ? rp : lp) {
      if (left_is_whole)
        MergePartition(r.partition, whole, PiecesOf(right, r.begin, r.end, right_shadows), &out);
      else
        MergePartition(r.partition, PiecesOf(left, r.begin, r.end, left_shadows), whole, &out);
    }
    return out;
  }
  // Both partitioned (or neither: one partition): walk the union of the
  // partitions; a side missing one is a single shadow there.
  size_t a = 0, b = 0;
  while (a < lp.size() || b < rp.size()) {
    int64_t p;
    if (b == rp.size() || (a < lp.size() && lp[a].partition < rp[b].partition))
      p = lp[a].partition;
    else
      p = rp[b].partition;
    const bool in_left = a < lp.size() && lp[a].partition == p;
    const bool in_right = b < rp.size() && rp[b].partition == p;
    const std::vector<Piece> x = in_left ? PiecesOf(left, lp[a].begin, lp[a].end, left_shadows)
                                         : PiecesOf(left, 0, 0, left_shadows);
    const std::vector<Piece> y = in_right ? PiecesOf(right, rp[b].begin, rp[b].end, right_shadows)
                                          : PiecesOf(right, 0, 0, right_shadows);
    MergePartition(p, x, y, &out);
    a += in_left;
    b += in_right;
  }
  return out;
}

}  // namespace fathom::psql
