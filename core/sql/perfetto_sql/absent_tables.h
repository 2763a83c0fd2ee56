// Upstream's internal tables for data that Fathom does not import (V8's JIT
// code, track-event callstacks, ...), created empty with upstream's names and
// columns. The standard library's modules read them while they load (e.g.
// callstacks.stack_profile includes v8.jit), so without them a module fails
// to load even on a trace that has none of that data. A trace that does carry
// such data answers as if it had none: a documented difference, never a
// wrong column.
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom::psql {

// Creates the empty tables on `db`; a name the connection already serves
// (because Fathom imports it) is left alone.
Status RegisterAbsentTables(sqlite3* db);

}  // namespace fathom::psql
