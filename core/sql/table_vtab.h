// Exposes a column Table to SQLite as an eponymous virtual table. Equality and
// range constraints on the id column and on sorted columns become row ranges
// (binary search); equality on other integer and string columns is looked up
// in an index built on first use (table_eq_index.h), other filters are
// checked in C++ before SQLite sees the row. SQLite re-checks every
// constraint (omit = 0), so the push-down can only make queries faster, never
// change their answer.
#pragma once

#include <sqlite3.h>

#include <string>

#include "base/status.h"
#include "core/storage/trace_storage.h"

namespace fathom {

// Serves `table` to SQL as `name` (its own name when empty).
Status RegisterTableVtab(sqlite3* db, TraceStorage* storage, Table* table,
                         const std::string& name = "");

}  // namespace fathom
