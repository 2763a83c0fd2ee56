// perfetto_table_info('name'): the columns of a PERFETTO TABLE as upstream
// describes them (id, table_name, name, col_type, nullable, sorted), its
// hidden _auto_id last. Upstream's tables choose a storage type and a sort
// state per column from the rows; here they are read off the rows the same
// way: col_type is id (the values are the row indexes), uint32, int32,
// int64, double or string; sorted is 0 for id, 1 for a set id (each value
// the index of its first row), 2 for non-decreasing, 3 otherwise (also for
// any nullable or empty column). Checked against trace_processor_shell.
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom::psql {

Status RegisterTableInfo(sqlite3* db);

}  // namespace fathom::psql
