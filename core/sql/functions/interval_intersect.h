// Interval intersection for the standard library's intervals.intersect
// module:
//   __intrinsic_interval_tree_intervals_agg(id, ts, dur [, 'col', value]...)
//     aggregates a table's intervals (and the named partition values) into
//     one pointer value;
//   __intrinsic_interval_intersect(intervals, ..., 'col, ...')
//     intersects two or more such tables within each partition (equal values
//     of the named columns) and returns a table pointer (see table_ptr.h)
//     with ts, dur, id_0..id_N-1 and the partition columns.
// Spans are [ts, ts + dur). Two spans overlap when the later start is before
// both ends; a zero-length span at t overlaps a span holding t, or another
// zero-length span at t (upstream's answers).
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom {

Status RegisterIntervalIntersect(sqlite3* db);

}  // namespace fathom
