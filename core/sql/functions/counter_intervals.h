// Counter values to intervals, for the standard library's counters.intervals
// module (counter_leading_intervals!):
//   __intrinsic_counter_per_track_agg(id, ts, track_id, value) collects the
//     counter rows into one pointer;
//   __intrinsic_counter_intervals('leading', trace_end, rows) returns a table
//     pointer (table_ptr.h) with id, ts, dur, track_id, value, next_value and
//     delta_value, per track by ts. Each value holds until the next row; the
//     last until trace_end. A run of equal values keeps its first row, its
//     last row and one row for everything between (the last run of a track:
//     its first row and one row for the rest), as upstream answers.
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom {

Status RegisterCounterIntervals(sqlite3* db);

}  // namespace fathom
