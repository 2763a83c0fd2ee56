#include "core/storage/trace_storage.h"

#include <algorithm>

#include "core/storage/stat_keys.h"

namespace fathom {

TraceStorage::TraceStorage() {
  args.SetTypeNames(strings.Intern("bool"), strings.Intern("uint"), strings.Intern("pointer"));
  // upstream numbering: upid 0 is the idle process, utid 0 the swapper thread.
  process.Insert(0);
  thread.Insert(0, /*idle=*/true);
  thread.upid.Set(0, 0);  // named "swapper" only for kernel traces (ProcessTracker)
  machine.Insert(0);      // the host, kHostMachineId
  args.SetRemapHook([this](const std::vector<uint32_t>& remap) { RemapArgSetIds(remap); });
}

void TraceStorage::RemapArgSetIds(const std::vector<uint32_t>& remap) {
  static constexpr std::string_view kSuffix = "arg_set_id";
  for (Table* t : AllTables()) {
    if (t == &args) continue;
    for (ColumnBase* c : t->columns()) {
      const std::string& name = c->name();
      if (name.size() < kSuffix.size() ||
          name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0)
        continue;
      auto* ids = dynamic_cast<UInt32Column*>(c);
      if (!ids) continue;
      for (uint32_t row = 0, n = static_cast<uint32_t>(ids->size()); row < n; ++row) {
        if (ids->IsNull(row)) continue;
        uint32_t set = (*ids)[row];
        uint32_t final_id = set < remap.size() ? remap[set] : ArgsTable::kNoSet;
        if (final_id == ArgsTable::kNoSet) {
          ids->SetNull(row);
        } else {
          ids->Set(row, final_id);
        }
      }
    }
  }
}

uint32_t TraceStorage::MachineFor(int64_t raw_machine_id) {
  // Few machines in any trace: a scan beats a map. Row 0 may be a remote
  // machine's (the first packet's machine: see ProtoTokenizer).
  for (uint32_t row = 0; row < machine.row_count(); ++row)
    if (machine.raw_id[row] == raw_machine_id) return row;
  return machine.Insert(raw_machine_id);
}

void TraceStorage::ReserveForImport(size_t ftrace_events, size_t compact_switches,
                                    size_t compact_wakings, size_t packets) {
  size_t raw = ftrace_events + compact_switches + compact_wakings;
  size_t switches = ftrace_events / 2 + compact_switches;
  sched.ReserveRows(switches);
  size_t states = 2 * switches + compact_wakings + ftrace_events / 4;
  thread_state.ReserveRows(states);
  ftrace_event.ReserveRows(raw);
  // Raw events' args are deferred (DeferredArgSets): only other args here.
  args.Reserve(packets * 4);
}

std::vector<Table*> TraceStorage::AllTables() {
  std::vector<Table*> tables = {
      &process,     &thread, &sched,        &thread_state, &track,        &counter,
      &slice,       &flow,   &ftrace_event, &args,         &android_logs, &metadata,
      &stats_table, &cpu,    &cpu_freq,     &trace_bounds, &machine,      &trace_diagnostics};
  tables.push_back(&state);
  tables.push_back(&package_list);
  tables.push_back(&game_intervention_list);
  tables.push_back(&interrupt_mapping);
  tables.push_back(&import_logs);
  tables.push_back(&trace_files);
  for (Table* t : profile.All()) tables.push_back(t);
  tables.push_back(&frame_timeline_slice);
  tables.push_back(&android_input.key_events);
  tables.push_back(&android_input.motion_events);
  tables.push_back(&android_input.dispatch);
  tables.push_back(&winscope.inputmethod_clients);
  tables.push_back(&winscope.inputmethod_manager_service);
  tables.push_back(&winscope.inputmethod_service);
  return tables;
}

namespace {

// Stats that only exist per index (one row per CPU, per profiled process or
// per trace buffer): as upstream, a machine whose CPUs (processes, buffers)
// never reported them has no row at all rather than a 0.
bool IsIndexOnlyStat(Stat s) {
  return (s >= Stat::kFtraceCpuEntriesBegin && s <= Stat::kFtraceCpuOldestEventTsEnd) ||
         (s >= Stat::kTracedBufBufferSize && s <= Stat::kTracedBufTraceWriterPacketLoss) ||
         (s >= Stat::kHeapprofdBufferCorrupted && s <= Stat::kHeapprofdLastProfileTimestamp);
}

}  // namespace

void TraceStorage::AppendStatsRows(const Stats& values, uint32_t machine_id) {
  for (uint32_t i = 0; i < static_cast<uint32_t>(Stat::kCount); ++i) {
    Stat s = static_cast<Stat>(i);
    const bool load_wide = IsLoadWideStat(s);
    if (load_wide && machine_id != kHostMachineId) continue;
    const StatInfo& info = GetStatInfo(s);
    StringId name = Intern(info.name), sev = Intern(info.severity), src = Intern(info.source),
             desc = Intern(info.description);
    const std::optional<int64_t> key = UpstreamStatKey(info.name);
    RowScope scope;
    if (!load_wide) scope = {machine_id, kTraceId};
    if (const auto* indexed = values.GetIndexed(s)) {
      for (const auto& [idx, v] : *indexed)
        stats_table.Insert(name, key, idx, sev, src, v, desc, scope);
    } else if (!IsIndexOnlyStat(s)) {
      stats_table.Insert(name, key, std::nullopt, sev, src, values.Get(s), desc, scope);
    }
  }
}

void TraceStorage::FinalizeDerivedTables() {
  stats_table.~StatsTable();
  new (&stats_table) StatsTable();
  // Upstream lists every stat once for the load (load-wide ones) or once per
  // machine: a remote machine's rows repeat the whole set with its values.
  const uint32_t machines = std::max<uint32_t>(1, machine.row_count());
  for (uint32_t m = 0; m < machines; ++m) {
    auto it = remote_stats_.find(m);
    static const Stats kNone;
    const Stats& values = m == kHostMachineId         ? stats
                          : it == remote_stats_.end() ? kNone
                                                      : it->second;
    AppendStatsRows(values, m);
  }
  // As upstream: a trace whose events all share one timestamp (a lone heap
  // dump, say) still spans 1 ns, so end_ts > start_ts whenever it has data.
  int64_t end = max_ts();
  if (has_bounds() && end == min_ts()) ++end;
  trace_bounds.Set(min_ts(), end);
  args.MarkImportFinished();
}

}  // namespace fathom
