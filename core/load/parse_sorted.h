// The second phase of a load: every tokenized event, in timestamp order, to
// its parser; a big trace is merged on one more thread and its ftrace rows
// written on another while this one parses.
#pragma once

#include "base/status.h"
#include "core/import/sorter.h"
#include "core/import/trace_context.h"
#include "core/load/tokenizer_set.h"
#include "core/trace_processor.h"

namespace fathom {

// Parses what `sorter` holds, then finishes the import (open slices closed,
// derived tables filled). Reports progress in `prog`; an error only when the
// callback cancelled.
Status ParseSorted(TraceContext* ctx, Sorter* sorter, TokenizerSet* tokenizers,
                   const LoadTuning& tuning, const ProgressCallback& progress, LoadProgress* prog);

}  // namespace fathom
