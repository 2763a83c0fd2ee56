// Parses the CSV both trace processors print (quoted header and strings,
// "" as an escaped quote, bare numbers) into rows of cells.
#pragma once

#include <string>
#include <vector>

namespace fathom::difftester {

using CsvRow = std::vector<std::string>;

struct CsvTable {
  CsvRow header;
  std::vector<CsvRow> rows;
};

CsvTable ParseCsv(const std::string& text);

}  // namespace fathom::difftester
