// The interval merge behind SPAN_JOIN, SPAN_LEFT_JOIN and SPAN_OUTER_JOIN,
// apart from SQLite. Each side is a list of spans (ts, dur) sorted by
// (partition, ts). Within a partition a side is seen as a walk over its
// spans and the "shadows" between them: before the first span (from 0),
// between two spans, and after the last one (to the end of time); a side with
// no span in a partition is one shadow covering it. The two walks advance
// together, always stepping the side whose current piece ends first (a
// shadow before a span when both end together), and every step where the two
// pieces overlap, with at least one a real span, gives an output row. A left
// join lets the right side's shadows take part, an outer join both sides';
// an inner join neither. This reproduces upstream's answers, including for
// zero-length spans (a zero-length span overlaps a piece that starts at or
// before it and ends after it, or a zero-length span at the same ts).
#pragma once

#include <cstdint>
#include <vector>

namespace fathom::psql {

enum class SpanJoinKind { kInner, kLeft, kOuter };

struct SideSpan {
  int64_t partition = 0;  // 0 for an unpartitioned side
  int64_t ts = 0;
  int64_t dur = 0;
  uint32_t row = 0;  // the side's row this span came from
};

struct JoinedSpan {
  int64_t partition;
  int64_t ts;
  int64_t dur;
  int64_t left_row;   // -1: the left side is a shadow here (its columns are NULL)
  int64_t right_row;  // -1: the right side is a shadow here
};

// Joins the two sides. `left_partitioned`/`right_partitioned` say which sides
// have a partition column: with both, partitions pair by value; with one, the
// other side's spans are joined against each of its partitions; with none,
// all spans are one partition. Output is sorted by (partition, ts).
std::vector<JoinedSpan> MergeSpans(const std::vector<SideSpan>& left, bool left_partitioned,
                                   const std::vector<SideSpan>& right, bool right_partitioned,
                                   SpanJoinKind kind);

}  // namespace fathom::psql
