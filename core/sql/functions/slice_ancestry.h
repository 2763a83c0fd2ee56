// slice_is_ancestor(ancestor_id, descendant_id): 1 when the first slice is on
// the second's parent chain, 0 when not (a slice is not its own ancestor),
// NULL when either id is NULL or names no slice, as upstream Perfetto's
// function. Ids must be integers.
#pragma once

#include <sqlite3.h>

#include "base/status.h"
#include "core/storage/trace_storage.h"

namespace fathom {

Status RegisterSliceAncestryFunctions(sqlite3* db, TraceStorage* storage);

}  // namespace fathom
