#include "tests/conformance/difftester/battery.h"

#include <algorithm>

namespace fathom::difftester {

const std::vector<TableSpec>& BatteryTables() {
  static const std::vector<TableSpec> tables = {
      {"process", "pid, start_ts, name", ""},
      {"thread", "tid, start_ts, name", ""},
      {"sched", "ts, cpu", ""},
      {"thread_state", "ts, cpu, dur, state", ""},
      {"slice", "ts, dur, name, depth", ""},
      {"instant", "ts, name", ""},
      {"counter", "ts, track_id, value", ""},
      {"track", "name, id", ""},
      {"args", "arg_set_id, key", ""},
      {"ftrace_event", "ts, cpu, name", ""},
      {"android_logs", "ts, msg", ""},
      {"heap_profile_allocation", "ts, upid, callsite_id, size", ""},
      {"stack_profile_callsite", "id", ""},
      {"stack_profile_frame", "name, id", ""},
      {"stack_profile_mapping", "name, id", ""},
      {"heap_graph_object", "graph_sample_ts, upid, id", ""},
      {"heap_graph_class", "name, id", ""},
      {"heap_graph_reference", "reference_set_id, id", ""},
      // Stats that time the load itself (*_duration_ns) differ on every run.
      {"stats",
       "name, idx",
       "value != 0 and name not like '%_duration_ns'",
       {"name", "idx", "severity", "source", "value"}},
  };
  return tables;
}

std::vector<BatteryQuery> BuildBattery(
    const std::map<std::string, std::vector<std::string>>& columns) {
  std::vector<BatteryQuery> out;
  for (const TableSpec& spec : BatteryTables()) {
    auto it = columns.find(spec.table);
    if (it == columns.end() || it->second.empty()) continue;
    std::string cols;
    for (const std::string& c : it->second) {
      if (!spec.only.empty() && std::find(spec.only.begin(), spec.only.end(), c) == spec.only.end())
        continue;
      cols += (cols.empty() ? "" : ", ") + c;
    }
    std::string sql = "select " + cols + " from " + spec.table;
    if (!spec.where.empty()) sql += " where " + spec.where;
    sql += " order by " + spec.order_by + ", " + cols;
    out.push_back({spec.table, sql});
  }
  return out;
}

}  // namespace fathom::difftester
