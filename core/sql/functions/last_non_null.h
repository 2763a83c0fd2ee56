// LAST_NON_NULL(value): window (and aggregate) function giving the last
// non-NULL value in the window frame, NULL when the frame has none, as
// upstream Perfetto's function of that name. With the default frame it
// carries the latest known value forward over gaps.
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom {

Status RegisterLastNonNullFunction(sqlite3* db);

}  // namespace fathom
