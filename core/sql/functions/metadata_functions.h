// Lookups in the metadata table, as upstream Perfetto's functions:
//   extract_metadata(name)                       the primary machine's (or
//                                                trace-wide) value
//   extract_metadata_for_machine(machine, name)  that machine's value
//   extract_metadata_for_trace(trace, name)      that trace's value
// The value is int_value when set, else str_value; NULL when no row matches.
// Scopes come from the table's machine_id/trace_id columns; while the table
// has no such column every row counts as unscoped (NULL).
#pragma once

#include <sqlite3.h>

#include "base/status.h"
#include "core/storage/trace_storage.h"

namespace fathom {

Status RegisterMetadataFunctions(sqlite3* db, TraceStorage* storage);

}  // namespace fathom
