// Reads the conformance suite's two lists: scope.tsv (folder, scope) and
// known_differences.md (one "- `folder`: reason" line per case).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fathom::conformance {

// Folders whose scope equals `scope` ("all" selects every row), in file order.
std::vector<std::string> CasesInScope(const std::filesystem::path& scope_tsv,
                                      const std::string& scope);

// folder -> reason, from the lines of the form "- `folder`: reason".
std::map<std::string, std::string> ReadKnownDifferences(const std::filesystem::path& md);

// Folders whose INDEX.tsv row (the suite's own index) says uses_stdlib=yes.
std::vector<std::string> CasesUsingStdlib(const std::filesystem::path& index_tsv);

// A gtest-safe name: "parser_json/args_ordered" -> "parser_json__args_ordered".
std::string TestNameOf(const std::string& folder);

}  // namespace fathom::conformance
