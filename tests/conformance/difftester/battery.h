// The fixed battery of queries the tester runs on both trace processors:
// every public table both sides have, all rows, in a deterministic order,
// plus the non-zero stats.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace fathom::difftester {

struct TableSpec {
  std::string table;
  std::string order_by;           // natural key first; all selected columns follow
  std::string where;              // optional filter (e.g. stats with a value)
  std::vector<std::string> only;  // non-empty: compare just these columns
  std::vector<std::string> skip;  // columns left out of the comparison
};

// An id-free summary: rows grouped by a name, so a difference is classed by
// that name ("<name>:<key>") instead of drowning in id-order differences.
// Its SQL may use only columns both sides have.
struct SummarySpec {
  std::string name;
  std::string sql;  // first column is the key
};

const std::vector<SummarySpec>& BatterySummaries();

const std::vector<TableSpec>& BatteryTables();

struct BatteryQuery {
  std::string table;
  std::string sql;
  bool keyed = false;  // a summary: compare rows by their first column
};

// One query per table that has at least one column in `columns` (table ->
// the columns both sides have, in the reference's order), then the summaries.
std::vector<BatteryQuery> BuildBattery(
    const std::map<std::string, std::vector<std::string>>& columns);

}  // namespace fathom::difftester
