// TO_FTRACE(ftrace_event id): one raw ftrace event rendered as a line of the
// kernel's text format (what `cat trace` prints), as upstream's function of
// the same name does, e.g.
//   "       <unknown>-10    (   10) [000] .... 0.000000: kfree: call_site=16 ptr=32"
#pragma once

#include <sqlite3.h>

#include <string>

#include "base/status.h"
#include "core/storage/trace_storage.h"

namespace fathom {

// The text line for ftrace_event row `row` (empty if out of range).
std::string FormatFtraceEventLine(const TraceStorage& storage, uint32_t row);

Status RegisterToFtraceFunction(sqlite3* db, TraceStorage* storage);

}  // namespace fathom
