#include "core/storage/trace_storage.h"

namespace fathom {

TraceStorage::TraceStorage() {
  // upstream numbering: upid 0 is the idle process, utid 0 the swapper thread.
  process.Insert(0);
  thread.Insert(0);
  thread.upid.Set(0, 0);
  thread.name.Set(0, strings.Intern("swapper"));
}

std::vector<Table*> TraceStorage::AllTables() {
  std::vector<Table*> tables = {&process,      &thread,       &sched,    &thread_state,
                                &track,        &counter,      &slice,    &flow,
                                &ftrace_event, &args,         &android_logs, &metadata,
                                &stats_table,  &cpu,          &cpu_freq, &trace_bounds};
  for (Table* t : profile.All()) tables.push_back(t);
  return tables;
}

void TraceStorage::FinalizeDerivedTables() {
  stats_table.~StatsTable();
  new (&stats_table) StatsTable();
  for (uint32_t i = 0; i < static_cast<uint32_t>(Stat::kCount); ++i) {
    Stat s = static_cast<Stat>(i);
    const StatInfo& info = GetStatInfo(s);
    StringId name = Intern(info.name), sev = Intern(info.severity), src = Intern(info.source),
             desc = Intern(info.description);
    if (const auto* indexed = stats.GetIndexed(s)) {
      for (const auto& [idx, v] : *indexed) stats_table.Insert(name, idx, sev, src, v, desc);
    } else {
      stats_table.Insert(name, std::nullopt, sev, src, stats.Get(s), desc);
    }
  }
  trace_bounds.Set(min_ts(), max_ts());
}

}  // namespace fathom
