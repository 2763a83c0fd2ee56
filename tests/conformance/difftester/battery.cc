#include "tests/conformance/difftester/battery.h"

#include <algorithm>

namespace fathom::difftester {

namespace {

TableSpec Spec(std::string table, std::string order_by, std::string where = "",
               std::vector<std::string> only = {}, std::vector<std::string> skip = {}) {
  return {std::move(table), std::move(order_by), std::move(where), std::move(only),
          std::move(skip)};
}

}  // namespace

const std::vector<TableSpec>& BatteryTables() {
  static const std::vector<TableSpec> tables = {
      Spec("process", "pid, start_ts, name"),
      Spec("thread", "tid, start_ts, name"),
      Spec("sched", "ts, cpu"),
      Spec("thread_state", "ts, cpu, dur, state"),
      Spec("slice", "ts, dur, name, depth"),
      Spec("instant", "ts, name"),
      Spec("counter", "ts, track_id, value"),
      Spec("track", "name, id"),
      // Arg rows are compared by content: which set id a row gets is
      // compared through the arg_set_id columns of the tables that own them
      // (ordering by it here would misalign every row after one difference).
      Spec("args", "key", "", {}, {"id", "arg_set_id"}),
      Spec("ftrace_event", "ts, cpu, name"),
      Spec("android_logs", "ts, msg"),
      Spec("heap_profile_allocation", "ts, upid, callsite_id, size"),
      Spec("stack_profile_callsite", "id"),
      Spec("stack_profile_frame", "name, id"),
      Spec("stack_profile_mapping", "name, id"),
      Spec("heap_graph_object", "graph_sample_ts, upid, id"),
      Spec("heap_graph_class", "name, id"),
      Spec("heap_graph_reference", "reference_set_id, id"),
      // Stats that time the load itself (*_duration_ns) differ on every run.
      Spec("stats", "name, idx", "value != 0 and name not like '%_duration_ns'",
           {"name", "idx", "severity", "source", "value"}),
  };
  return tables;
}

const std::vector<SummarySpec>& BatterySummaries() {
  static const std::vector<SummarySpec> summaries = {
      {"counters_by_track",
       "select t.name as track_name, count(*) as n, sum(c.value) as total from counter c "
       "join track t on c.track_id = t.id group by t.name order by t.name"},
      {"slices_by_name",
       "select name, count(*) as n, sum(dur) as total_dur, max(depth) as max_depth from slice "
       "group by name order by name"},
      {"thread_states_by_state",
       "select state, count(*) as n, sum(dur) as total_dur from thread_state group by state "
       "order by state"},
      {"ftrace_events_by_name",
       "select name, count(*) as n from ftrace_event group by name order by name"},
      {"args_by_key", "select key, count(*) as n from args group by key order by key"},
  };
  return summaries;
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
      if (std::find(spec.skip.begin(), spec.skip.end(), c) != spec.skip.end()) continue;
      cols += (cols.empty() ? "" : ", ") + c;
    }
    std::string sql = "select " + cols + " from " + spec.table;
    if (!spec.where.empty()) sql += " where " + spec.where;
    sql += " order by " + spec.order_by + ", " + cols;
    out.push_back({spec.table, sql});
  }
  for (const SummarySpec& s : BatterySummaries()) out.push_back({s.name, s.sql, true});
  return out;
}

}  // namespace fathom::difftester
