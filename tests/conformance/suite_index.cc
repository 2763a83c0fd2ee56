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

std::vector<std::string> CasesUsingStdlib(const std::filesystem::path& index_tsv) {
  std::vector<std::string> out;
  std::ifstream in(index_tsv);
  std::string line;
  int column = -1;  // of uses_stdlib, learnt from the header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    for (size_t b = 0;;) {
      size_t tab = line.find('\t', b);
      cells.push_back(line.substr(b, tab == std::string::npos ? std::string::npos : tab - b));
      if (tab == std::string::npos) break;
      b = tab + 1;
    }
    if (column < 0) {
      for (size_t i = 0; i < cells.size(); ++i)
        if (cells[i] == "uses_stdlib") column = static_cast<int>(i);
      if (column < 0) return out;
      continue;
    }
    if (static_cast<int>(cells.size()) > column && cells[column] == "yes") out.push_back(cells[0]);
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
