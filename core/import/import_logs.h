// Per-event import problems (upstream's `_trace_import_logs`). Where an
// importer counts a stat for one event it can also say which event: the row
// carries the stat's name and severity, the event's timestamp and args that
// describe it, so a user can find the event a stat counted.
#pragma once

#include <cstdint>
#include <optional>

#include "core/import/args_tracker.h"
#include "core/storage/stats.h"
#include "core/storage/trace_storage.h"

namespace fathom {

// Counts `stat` (as Stats::Increment) and adds one _trace_import_logs row
// (`ts` NULL for a problem met before the event had a trace time).
void LogImportProblem(TraceStorage* storage, Stat stat, std::optional<int64_t> ts,
                      ArgsTracker::Builder args);

}  // namespace fathom
