#include "core/storage/trace_storage.h"

namespace fathom {

TraceStorage::TraceStorage() {
  args.SetTypeNames(strings.Intern("bool"), strings.Intern("uint"), strings.Intern("pointer"));
  // upstream numbering: upid 0 is the idle process, utid 0 the swapper thread.
  process.Insert(0);
  thread.Insert(0);
  thread.upid.Set(0, 0);
  thread.name.Set(0, strings.Intern("swapper"));
}

void TraceStorage::ReserveForImport(size_t ftrace_events, size_t compact_switches,
                                    size_t compact_wakings, size_t packets) {
  size_t raw = ftrace_events + compact_switches + compact_wakings;
  size_t switches = ftrace_events / 2 + compact_switches;
  sched.ts.Reserve(switches);
  sched.dur.Reserve(switches);
  sched.cpu.Reserve(switches);
  sched.utid.Reserve(switches);
  sched.end_state.Reserve(switches);
  sched.priority.Reserve(switches);
  size_t states = 2 * switches + compact_wakings + ftrace_events / 4;
  thread_state.ts.Reserve(states);
  thread_state.dur.Reserve(states);
  thread_state.cpu.Reserve(states);
  thread_state.utid.Reserve(states);
  thread_state.state.Reserve(states);
  thread_state.io_wait.Reserve(states);
  thread_state.blocked_function.Reserve(states);
  thread_state.waker_utid.Reserve(states);
  thread_state.waker_id.Reserve(states);
  thread_state.irq_context.Reserve(states);
  ftrace_event.ts.Reserve(raw);
  ftrace_event.name.Reserve(raw);
  ftrace_event.cpu.Reserve(raw);
  ftrace_event.utid.Reserve(raw);
  ftrace_event.arg_set_id.Reserve(raw);
  ftrace_event.common_flags.Reserve(raw);
  args.Reserve(raw * 7 + packets * 4);
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
