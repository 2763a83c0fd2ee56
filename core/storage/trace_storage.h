// Everything a loaded trace holds: the string pool, every table, the stats.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "core/base/string_pool.h"
#include "core/storage/android_input_tables.h"
#include "core/storage/frame_timeline_tables.h"
#include "core/storage/game_intervention_table.h"
#include "core/storage/profile_tables.h"
#include "core/storage/stats.h"
#include "core/storage/tables.h"
#include "core/storage/winscope_tables.h"

namespace fathom {

class TraceStorage {
 public:
  TraceStorage();

  StringPool strings;
  Stats stats;  // the host's (machine row 0) and the load's as a whole

  // The stats of one `machine` row: upstream keeps a full set per machine.
  Stats& StatsFor(uint32_t machine) {
    return machine == kHostMachineId ? stats : remote_stats_[machine];
  }

  ProcessTable process;
  ThreadTable thread;
  SchedSliceTable sched;
  ThreadStateTable thread_state;
  TrackTable track;
  CounterTable counter;
  SliceTable slice;
  StateTable state;
  FlowTable flow;
  PackageListTable package_list;
  GameInterventionListTable game_intervention_list;
  InterruptMappingTable interrupt_mapping;
  FtraceEventTable ftrace_event;
  ArgsTable args;
  AndroidLogTable android_logs;
  MetadataTable metadata;
  StatsTable stats_table;
  CpuTable cpu;
  CpuFreqTable cpu_freq;
  TraceBoundsTable trace_bounds;
  MachineTable machine;
  TraceDiagnosticsTable trace_diagnostics;
  TraceImportLogsTable import_logs;
  TraceFileTable trace_files;
  ProfileTables profile;                         // heapprofd, perf, heap graphs (profile_tables.h)
  FrameTimelineSliceTable frame_timeline_slice;  // frame_timeline_tables.h
  AndroidInputTables android_input;              // android_input_tables.h
  WinscopeTables winscope;                       // winscope_tables.h

  // Tables exposed to SQL (in registration order).
  std::vector<Table*> AllTables();

  StringId Intern(std::string_view s) { return strings.Intern(s); }

  // The `machine` row of a packet's TracePacket.machine_id (0 or absent: the
  // host, row 0), added on first sight. Upstream numbers a load's traces
  // from 0; Fathom loads one, so trace-scoped rows say trace_id 0.
  uint32_t MachineFor(int64_t raw_machine_id);
  static constexpr uint32_t kTraceId = 0;
  std::string_view GetString(StringId id) const { return strings.Get(id); }

  // Trace bounds over every timestamped event that reached a table.
  void UpdateBounds(int64_t ts) {
    if (ts < min_ts_) min_ts_ = ts;
    if (ts > max_ts_) max_ts_ = ts;
  }
  bool has_bounds() const { return min_ts_ <= max_ts_; }
  int64_t min_ts() const { return has_bounds() ? min_ts_ : 0; }
  int64_t max_ts() const { return has_bounds() ? max_ts_ : 0; }

  // Reserves column capacity for an import of this many events, so tables
  // do not grow by reallocation (which copies and, for a moment, holds two
  // copies). Unused capacity is virtual memory only: pages never written are
  // not resident.
  void ReserveForImport(size_t ftrace_events, size_t compact_switches, size_t compact_wakings,
                        size_t packets);

  // Fills stats_table and trace_bounds from the live counters. Called once the
  // import finishes (and again if more data is appended).
  // ... and, as the import's last step, lets the arg sets take their final ids
  // (ArgsTable::MarkImportFinished).
  void FinalizeDerivedTables();

 private:
  // Rewrites every arg set column (a UInt32Column named *arg_set_id) from
  // provisional to final ids (ArgsTable's remap hook).
  void RemapArgSetIds(const std::vector<uint32_t>& remap);
  // One stats_table row per stat (per index of an indexed one) of a machine.
  void AppendStatsRows(const Stats& values, uint32_t machine_id);

  int64_t min_ts_ = std::numeric_limits<int64_t>::max();
  int64_t max_ts_ = std::numeric_limits<int64_t>::min();
  std::map<uint32_t, Stats> remote_stats_;  // by machine row, for rows > 0
};

}  // namespace fathom
