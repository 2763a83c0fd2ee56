// INTERNAL_LAYOUT(ts, dur): window function giving each interval the lowest
// row ("depth") free at its start, so overlapping intervals stack and
// disjoint ones share a row, as upstream Perfetto's function of that name.
// A depth frees when its interval ends at or before the new start; dur -1
// means the interval never ends, dur 0 frees at the next start. Rows must
// come in ts order, one at a time:
//   INTERNAL_LAYOUT(ts, dur) OVER (ORDER BY ts
//       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
// (other frames, unsorted rows, dur < -1 or non-integer arguments are
// errors).
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom {

Status RegisterLayoutDepthFunction(sqlite3* db);

}  // namespace fathom
