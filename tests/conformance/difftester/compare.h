// Compares Fathom's answer to a battery query with the reference's and sorts
// each difference into a class: "<table>:rows" (row sets differ in size),
// "<table>.<column>" (same row count, that column's values differ),
// "<table>:columns", "<table>:error", or "stats:<name>" for the stats table.
// Classes are what difftester_known.md lists.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace fathom::difftester {

struct Divergence {
  std::string cls;
  std::string table;
  std::string detail;  // a short, human-readable diff
};

std::vector<Divergence> CompareAnswers(const std::string& table, const std::string& fathom,
                                       const std::string& reference);

// Whether `cls` is listed: an exact key, or a key ending in '*' that is a
// prefix of it (e.g. "stats:*").
bool IsKnownClass(const std::map<std::string, std::string>& known, const std::string& cls);

}  // namespace fathom::difftester
