#include "tests/conformance/difftester/compare.h"

#include <algorithm>
#include <sstream>

#include "tests/conformance/difftester/csv_table.h"

namespace fathom::difftester {
namespace {

std::string Join(const CsvRow& row) {
  std::string s;
  for (const std::string& c : row) s += (s.empty() ? "" : ",") + c;
  return s;
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// Rows present on one side only (as multisets), up to `limit` of each.
std::string RowSetDiff(const CsvTable& fathom, const CsvTable& ref, size_t limit) {
  std::vector<std::string> f, r;
  for (const CsvRow& row : fathom.rows) f.push_back(Join(row));
  for (const CsvRow& row : ref.rows) r.push_back(Join(row));
  std::sort(f.begin(), f.end());
  std::sort(r.begin(), r.end());
  std::vector<std::string> only_f, only_r;
  std::set_difference(f.begin(), f.end(), r.begin(), r.end(), std::back_inserter(only_f));
  std::set_difference(r.begin(), r.end(), f.begin(), f.end(), std::back_inserter(only_r));
  std::ostringstream os;
  os << "fathom " << fathom.rows.size() << " rows, reference " << ref.rows.size() << " rows ("
     << Join(ref.header) << ")";
  for (size_t i = 0; i < only_r.size() && i < limit; ++i) os << "\n    - ref only: " << only_r[i];
  for (size_t i = 0; i < only_f.size() && i < limit; ++i)
    os << "\n    + fathom only: " << only_f[i];
  return os.str();
}

// Rows matched by their key (first column; for stats name and idx), each
// differing key name its own class "<table>:<name>".
std::vector<Divergence> CompareKeyed(const std::string& table, const CsvTable& fathom,
                                     const CsvTable& ref) {
  const bool with_idx = table == "stats";
  auto index = [with_idx](const CsvTable& t) {
    std::map<std::pair<std::string, std::string>, std::string> m;
    for (const CsvRow& row : t.rows)
      if (!row.empty()) m[{row[0], with_idx && row.size() > 1 ? row[1] : ""}] = Join(row);
    return m;
  };
  const auto f = index(fathom), r = index(ref);
  std::map<std::string, std::string> by_name;  // first difference per stat name
  auto note = [&](const std::pair<std::string, std::string>& key, const std::string& fv,
                  const std::string& rv) {
    std::string name = key.first;
    name.erase(std::remove(name.begin(), name.end(), '"'), name.end());
    by_name.emplace(name, "fathom: " + (fv.empty() ? "(none)" : fv) +
                              " | reference: " + (rv.empty() ? "(none)" : rv));
  };
  for (const auto& [key, row] : r) {
    auto it = f.find(key);
    if (it == f.end() || it->second != row) note(key, it == f.end() ? "" : it->second, row);
  }
  for (const auto& [key, row] : f)
    if (!r.count(key)) note(key, row, "");
  std::vector<Divergence> out;
  for (const auto& [name, detail] : by_name) out.push_back({table + ":" + name, table, detail});
  return out;
}

std::vector<Divergence> CompareColumns(const std::string& table, const CsvTable& fathom,
                                       const CsvTable& ref) {
  std::vector<Divergence> out;
  for (size_t c = 0; c < ref.header.size(); ++c) {
    size_t differing = 0, first = 0;
    for (size_t i = 0; i < ref.rows.size(); ++i) {
      const std::string& rv = c < ref.rows[i].size() ? ref.rows[i][c] : "";
      const std::string& fv = c < fathom.rows[i].size() ? fathom.rows[i][c] : "";
      if (rv != fv && differing++ == 0) first = i;
    }
    if (!differing) continue;
    std::ostringstream os;
    os << differing << " of " << ref.rows.size() << " rows differ; first at row " << first
       << ": fathom=" << fathom.rows[first][c] << " reference=" << ref.rows[first][c]
       << "\n    ref row: " << Join(ref.rows[first])
       << "\n    fathom row: " << Join(fathom.rows[first]);
    out.push_back({table + "." + ref.header[c], table, os.str()});
  }
  return out;
}

}  // namespace

std::vector<Divergence> CompareAnswers(const std::string& table, const std::string& fathom,
                                       const std::string& reference, bool keyed) {
  if (fathom == reference) return {};
  if (fathom.rfind("<error", 0) == 0 || reference.rfind("<error", 0) == 0)
    return {{table + ":error", table,
             "fathom: " + FirstLine(fathom) + " | reference: " + FirstLine(reference)}};
  const CsvTable f = ParseCsv(fathom), r = ParseCsv(reference);
  if (f.header != r.header)
    return {{table + ":columns", table,
             "fathom: " + Join(f.header) + " | reference: " + Join(r.header)}};
  if (keyed || table == "stats") return CompareKeyed(table, f, r);
  if (f.rows.size() != r.rows.size()) return {{table + ":rows", table, RowSetDiff(f, r, 3)}};
  return CompareColumns(table, f, r);
}

bool IsKnownClass(const std::map<std::string, std::string>& known, const std::string& cls) {
  if (known.count(cls)) return true;
  for (const auto& [key, reason] : known)
    if (!key.empty() && key.back() == '*' && cls.rfind(key.substr(0, key.size() - 1), 0) == 0)
      return true;
  return false;
}

}  // namespace fathom::difftester
