// Trace time to another clock, as upstream Perfetto's functions:
//   to_realtime(ts)   REALTIME (wall clock) ns
//   to_monotonic(ts)  MONOTONIC ns
//   abs_time_str(ts)  to_realtime(ts) as "YYYY-MM-DDTHH:MM:SS.nnnnnnnnn" (UTC)
//   to_timecode(ts)   "HH:MM:SS mmm uuu nnn" of ts itself
// from the trace's ClockSnapshots (each placed in trace time by its trace
// clock value, or else by converting the target clock's value): the latest
// snapshot at or before ts gives the offset (clock value + (ts - snapshot's
// trace time)), capped at the next snapshot's clock value; a ts before the
// first snapshot gets that snapshot's clock value as is. NULL when no
// snapshot holds the clock (or ts is NULL); a non-integer ts is an error.
// Snapshots are read at call time, so the functions can be registered before
// the trace loads.
#pragma once

#include <sqlite3.h>

#include "base/status.h"
#include "core/import/clock_tracker.h"

namespace fathom {

Status RegisterClockFunctions(sqlite3* db, ClockTracker* clocks);

}  // namespace fathom
