// What upstream's stdlib `prelude/` gives every query, provided over Fathom's
// own tables instead of loading that folder: the trace-bound functions
// (trace_start/trace_end/trace_dur), the cast macros (cast_int!,
// cast_double!, cast_string!) and the builtin helpers the library's modules
// call (HASH, STR_SPLIT).
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom::psql {

class PerfettoSqlEngine;

// Registers the prelude's scalar functions on `db` and defines its macros in
// `engine` (which runs over the same connection).
Status RegisterPrelude(sqlite3* db, PerfettoSqlEngine* engine);

}  // namespace fathom::psql
