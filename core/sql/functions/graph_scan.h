// The standard library's graph scans (graphs.scan's _graph_scan! and
// _graph_aggregating_scan!):
//   __intrinsic_row_dataframe_agg('col', value, ...)  rows -> table pointer
//   __intrinsic_graph_scan(graph, init, step_sql, '(col, ...)')
//   __intrinsic_graph_aggregating_scan(graph, init, step_sql, '(col, ...)')
// Both scans return a table pointer (id, col, ...): the init rows, then the
// rows each step's query gives, step after step. A step's query reads `$table`:
// one row per edge followed, the edge's destination as `id` with the source's
// values. The plain scan follows every edge of the previous step's rows at
// once (a node reached twice is scanned twice); the aggregating scan holds a
// node back until every edge into it has been followed, then hands all of
// them to the query together. These are upstream's answers, checked with
// trace_processor_shell on small graphs (tests/core/graph_scan_test.cc).
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom {

Status RegisterGraphScan(sqlite3* db);

}  // namespace fathom
