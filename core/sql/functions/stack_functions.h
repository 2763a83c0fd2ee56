// The SQL functions that build Stack blobs (stack_blob.h), as upstream's
// answer them (learned from trace_processor_shell):
//  CAT_STACKS(...): the concatenation of its arguments' stacks, the last
//    argument's entries first (arguments go root to leaf, entries leaf to
//    root). A string is one frame named by it (up to a NUL), a blob is copied
//    unchecked, NULL adds nothing; any other type is an error. No entries at
//    all gives NULL.
//  STACK_FROM_STACK_PROFILE_CALLSITE(callsite_id [, annotate]): one callsite
//    entry (annotated when `annotate` is true); NULL id or annotate gives NULL.
//  STACK_FROM_STACK_PROFILE_FRAME(frame_id): one frame entry.
// Both check that the id is a row of its table.
#pragma once

#include <sqlite3.h>

#include "base/status.h"
#include "core/storage/trace_storage.h"

namespace fathom {

Status RegisterStackFunctions(sqlite3* db, TraceStorage* storage);

}  // namespace fathom
