// Runs a range of seeds through a DiffSession and reports divergences the
// way both the CLI and the ctest test print them: every class once with its
// first seed, the query and a short diff, then a summary of counts.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "tests/conformance/difftester/session.h"

namespace fathom::difftester {

struct RunOptions {
  uint64_t first_seed = 1;
  uint64_t last_seed = 1;
  std::map<std::string, std::string> known;  // class -> reason (difftester_known.md)
  std::string cases_dir;                     // non-empty: save a minimal case per new class here
  bool save_known = false;                   // also save cases for listed classes
  std::string without;                       // feature families switched off, "a,b"
};

struct RunSummary {
  uint64_t seeds = 0;
  std::map<std::string, uint64_t> count;  // class -> seeds showing it
  std::map<std::string, uint64_t> first_seed;
  int unknown_classes = 0;
};

RunSummary RunSeeds(DiffSession* session, const RunOptions& o, std::ostream& log);

// The battery on real traces. A class is listed in `known` as
// "<trace file name>:<class>" (real_traces_known.md), so each trace's
// differences carry their own reasons; a listed class that no longer shows
// is reported as "gone" and counted in `unknown_classes` too, so that its
// line gets deleted.
RunSummary RunTraces(DiffSession* session, const std::vector<std::string>& traces,
                     const std::map<std::string, std::string>& known, std::ostream& log);

}  // namespace fathom::difftester
