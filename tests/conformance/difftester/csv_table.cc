#include "tests/conformance/difftester/csv_table.h"

namespace fathom::difftester {

CsvTable ParseCsv(const std::string& text) {
  std::vector<CsvRow> lines;
  CsvRow row;
  std::string cell;
  bool in_quotes = false, row_has_content = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        cell += c;
      }
      continue;
    }
    if (c == '"') {
      in_quotes = row_has_content = true;
      // Keep quoting visible: "1" (a string) and 1 (a number) differ.
      cell += '\x01';
    } else if (c == ',') {
      row.push_back(cell);
      cell.clear();
    } else if (c == '\n') {
      if (row_has_content || !cell.empty() || !row.empty()) {
        row.push_back(cell);
        lines.push_back(row);
      }
      row.clear();
      cell.clear();
      row_has_content = false;
    } else if (c != '\r') {
      cell += c;
      row_has_content = true;
    }
  }
  if (row_has_content || !cell.empty() || !row.empty()) {
    row.push_back(cell);
    lines.push_back(row);
  }
  CsvTable t;
  if (lines.empty()) return t;
  t.header = lines.front();
  for (std::string& h : t.header)
    if (!h.empty() && h[0] == '\x01') h.erase(0, 1);
  t.rows.assign(lines.begin() + 1, lines.end());
  for (CsvRow& r : t.rows)
    for (std::string& v : r)
      if (!v.empty() && v[0] == '\x01') v = '"' + v.substr(1) + '"';
  return t;
}

}  // namespace fathom::difftester
