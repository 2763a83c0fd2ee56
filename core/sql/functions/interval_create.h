// Intervals from separate start and end timestamps, for the standard
// library's intervals.create_intervals module:
//   __intrinsic_timestamp_set_agg(ts) collects timestamps into one pointer;
//   __intrinsic_interval_create(starts, ends) pairs each start with the first
//   end strictly after it (starts with none are dropped) and returns a table
//   pointer (table_ptr.h) with ts and dur, by start.
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom {

Status RegisterIntervalCreate(sqlite3* db);

}  // namespace fathom
