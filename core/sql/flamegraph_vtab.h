// experimental_flamegraph(profile_type, ts, ts_constraint, upid, upid_group,
// focus_str): upstream's table-valued function over core/flamegraph.
// profile_type is 'native' (heapprofd) or 'graph' (Java heap graph).
#pragma once

#include <sqlite3.h>

#include "base/status.h"
#include "core/storage/trace_storage.h"

namespace fathom {

Status RegisterFlamegraphFunction(sqlite3* db, TraceStorage* storage);

}  // namespace fathom
