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

const std::vector<TableSpec>& BatteryTables();

struct BatteryQuery {
  std::string table;
  std::string sql;
};

// One query per table that has at least one column in `columns` (table ->
// the columns both sides have, in the reference's order).
std::vector<BatteryQuery> BuildBattery(
    const std::map<std::string, std::vector<std::string>>& columns);

}  // namespace fathom::difftester
