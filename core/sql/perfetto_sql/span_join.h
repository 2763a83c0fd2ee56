// The SPAN_JOIN, SPAN_LEFT_JOIN and SPAN_OUTER_JOIN virtual table modules:
//   CREATE VIRTUAL TABLE x USING SPAN_JOIN(a [PARTITIONED col], b [PARTITIONED col])
// x has ts, dur, the partition column (when either side has one), then every
// other column of a, then every other column of b. Its rows are the
// intersections of a's and b's spans within each partition; the left and
// outer forms also keep the parts of one (or both) sides that the other does
// not cover, with the other side's columns NULL. The interval rule itself is
// in span_join_merge.h; this file is the SQLite side: argument checks with
// upstream's messages, reading both tables, and serving the rows.
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom::psql {

Status RegisterSpanJoin(sqlite3* db);

}  // namespace fathom::psql
