// Compares Fathom's answer to a battery query with the reference's and sorts
// each difference into a class: "<table>:rows" (row sets differ in size),
// "<table>.<column>" (same row count, that column's values differ),
// "<table>:columns", "<table>:error", "stats:<name>" for the stats table, or
// "<summary>:<key>" for the id-free summaries.
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

// `keyed`: rows are compared by their first column and each differing key is
// its own class "<table>:<key>" (stats is always keyed by name).
std::vector<Divergence> CompareAnswers(const std::string& table, const std::string& fathom,
                                       const std::string& reference, bool keyed = false);

// Whether `cls` is listed: an exact key, or a key ending in '*' that is a
// prefix of it (e.g. "stats:*").
bool IsKnownClass(const std::map<std::string, std::string>& known, const std::string& cls);

}  // namespace fathom::difftester
