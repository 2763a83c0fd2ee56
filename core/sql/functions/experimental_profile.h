// EXPERIMENTAL_PROFILE(stack [, sample_type, sample_units, sample_value]...):
// an aggregate turning rows of Stack blobs (stack_blob.h) and integer values
// into an uncompressed pprof blob (stack_pprof_builder.h), as upstream answers
// it. With the stack alone each row counts 1 of ("samples", "count"). Type
// and unit are read from the first row. No rows gives NULL. Argument errors
// carry upstream's messages; upstream crashes on an argument count that is
// neither 1 nor 1 + 3k, or a type or unit that is not a string, which here are
// errors too.
#pragma once

#include <sqlite3.h>

#include "base/status.h"
#include "core/storage/trace_storage.h"

namespace fathom {

Status RegisterExperimentalProfile(sqlite3* db, TraceStorage* storage);

}  // namespace fathom
