// Upstream-compatible SQL functions over the trace tables.
#pragma once

#include <sqlite3.h>

#include "base/status.h"
#include "core/storage/trace_storage.h"

namespace fathom {

Status RegisterSqlFunctions(sqlite3* db, TraceStorage* storage);

}  // namespace fathom
