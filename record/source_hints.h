// Hints for data sources that were asked for but gave nothing: which source, the likely
// reason on this kind of target, and the fix (tracefs permissions, perf_event_paranoid,
// a process that never ran...). Part of the troubleshooting after a recording.
#pragma once

#include <string>
#include <vector>

#include "record/troubleshooting.h"

namespace fathom::record {

// The SQL that counts what each source put in the trace, by source name.
const std::vector<std::pair<std::string, std::string>>& SourceRowQueries();
// After a recording that produced a trace.
std::vector<Hint> EmptySourceHints(const SessionObservations& seen, const TraceFacts& facts);
// After a recording that failed: the recorder's own refusal of a source.
std::vector<Hint> SourceErrorHints(const SessionObservations& seen, const std::string& text);

}  // namespace fathom::record
