// Problems after a recording, explained in words a user can act on (after
// Perfetto's heapprofd troubleshooting): an app that may not be profiled, an
// empty heap profile and its likely causes, a buffer overrun, SELinux, traced
// off. Inputs are what the session saw and what the loaded trace says; record/
// does not link the core, so the caller runs the SQL (FactsQueries()) on its
// trace processor and hands the rows back.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "record/recording_session.h"

namespace fathom::record {

// What the loaded trace says.
struct TraceFacts {
  std::map<std::string, int64_t> stats;  // stats with a nonzero value, summed over indices
  int64_t heap_samples = 0;              // rows of heap_profile_allocation
  std::vector<std::string> process_names;
  std::map<std::string, int64_t> source_rows;  // rows each data source gave, by its name
};

// Runs one SQL statement, returning its rows as text (NULL as "").
using RowsQuery =
    std::function<Result<std::vector<std::vector<std::string>>>(const std::string& sql)>;
// Reads the facts with a handful of small queries; a failing query leaves its
// fact at the default rather than failing the whole check.
TraceFacts GatherTraceFacts(const RowsQuery& query);

struct Hint {
  std::string problem;  // one line: what went wrong
  std::string advice;   // what to do about it
  std::string Format() const { return problem + "\n  → " + advice; }
};

// After a recording that produced a trace.
std::vector<Hint> Troubleshoot(const SessionObservations& seen, const TraceFacts& facts);
// After a recording that failed with `error` (no trace to look at).
std::vector<Hint> TroubleshootError(const SessionObservations& seen, const std::string& error);

// Whether a device or recorder message mentions `what` (plain substring: the
// messages hints look for are fixed phrases from tools, never patterns).
bool Mentions(const std::string& text, const std::string& what);

}  // namespace fathom::record
