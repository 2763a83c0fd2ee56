#include "core/storage/trace_storage.h"

#include <algorithm>

#include "core/storage/stat_keys.h"

namespace fathom {

void ArgsTable::Materialize() {
  std::lock_guard<std::mutex> lock(materialize_mu_);
  DeferredArgSets* d = deferred_.get();
  size_t n_deferred = d->count();
  if (n_deferred == 0) return;
  // Take the written rows out and write everything again in set order: the
  // written rows and the deferred sets are each sorted by set id, so this is
  // one merge. Row ids are then what an eager import would have given.
  ColumnVector<uint32_t> sets;
  sets.swap(arg_set_id.v_);
  ColumnVector<StringId> keys = key.Take();
  ColumnVector<StringId> differing;
  differing.swap(flat_key.differing_);
  ColumnVector<int32_t> lo;
  lo.swap(slot_lo_);
  ColumnVector<WideSlot> wide;
  wide.swap(wide_);
  ColumnVector<uint8_t> types;
  types.swap(type_);
  ResetRowCount();
  // Raw ftrace events average four to five args; a generous reservation
  // costs only address space (pages never written are not resident), a
  // short one a reallocation copy of the biggest table at its largest.
  Reserve(sets.size() + n_deferred * 8);

  size_t wide_next = 0;
  auto copy_row = [&](uint32_t r) {
    StringId k = keys[r];
    StringId fk = k;
    if (!differing.empty()) {
      StringId dv = differing[r];
      fk = dv == kNullStringId ? k : dv == FlatKey::kNullFlat ? kNullStringId : dv;
    }
    int64_t slot = lo[r];
    if (types[r] & kWide) {
      while (wide[wide_next].row < r) ++wide_next;
      slot = wide[wide_next].value;
    }
    arg_set_id.v_.push_back(sets[r]);
    flat_key.Append(fk, k);
    key.Append(k);
    uint8_t type = types[r] & kTypeMask;
    if (slot != static_cast<int32_t>(slot)) {
      type |= kWide;
      wide_.push_back({static_cast<uint32_t>(slot_lo_.size()), slot});
    }
    slot_lo_.push_back(static_cast<int32_t>(slot));
    type_.push_back(type);
    CommitRow();
  };
  uint32_t r = 0, rows = static_cast<uint32_t>(sets.size());
  for (uint32_t set = 0; d->NextSet(&set);) {
    while (r < rows && sets[r] < set) copy_row(r++);
    d->AppendRows(this);
  }
  while (r < rows) copy_row(r++);
  d->Clear();
}

TraceStorage::TraceStorage() {
  args.SetTypeNames(strings.Intern("bool"), strings.Intern("uint"), strings.Intern("pointer"));
  // upstream numbering: upid 0 is the idle process, utid 0 the swapper thread.
  process.Insert(0);
  thread.Insert(0, /*idle=*/true);
  thread.upid.Set(0, 0);  // named "swapper" only for kernel traces (ProcessTracker)
  machine.Insert(0);      // the host, kHostMachineId
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

// Stats that only exist per index (one row per CPU, or per profiled
// process): as upstream, a machine whose CPUs (processes) never reported them
// has no row at all rather than a 0.
bool IsIndexOnlyStat(Stat s) {
  return (s >= Stat::kFtraceCpuEntriesBegin && s <= Stat::kFtraceCpuOldestEventTsEnd) ||
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
}

}  // namespace fathom
