#include "tests/conformance/suite_index.h"

#include <cctype>
#include <fstream>

namespace fathom::conformance {

std::vector<std::string> CasesInScope(const std::filesystem::path& scope_tsv,
                                      const std::string& scope) {
  std::vector<std::string> out;
  std::ifstream in(scope_tsv);
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (header) {
      header = false;
      continue;
    }
    size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    if (scope == "all" || line.substr(tab + 1) == scope) out.push_back(line.substr(0, tab));
  }
  return out;
}

std::map<std::string, std::string> ReadKnownDifferences(const std::filesystem::path& md) {
  std::map<std::string, std::string> known;
  std::ifstream in(md);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("- `", 0) != 0) continue;
    size_t close = line.find('`', 3);
    if (close == std::string::npos) continue;
    std::string reason = line.substr(close + 1);
    size_t b = reason.find_first_not_of(": ");
    known[line.substr(3, close - 3)] = b == std::string::npos ? "" : reason.substr(b);
  }
  return known;
}

std::string TestNameOf(const std::string& folder) {
  std::string name;
  for (char c : folder) {
    if (c == '/')
      name += "__";
    else
      name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return name;
}

}  // namespace fathom::conformance
