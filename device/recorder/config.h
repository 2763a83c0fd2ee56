// The part of a TraceConfig the recorder acts on, decoded from the binary config with the
// small reader in device/common (no libprotobuf on the device).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace fathom::recorder {

struct FtraceSourceConfig {
  std::vector<std::string> events;  // "group/name", "group/*" or a bare name
  std::vector<std::string> atrace_categories;
  std::vector<std::string> atrace_apps;
  uint32_t buffer_size_kb = 0;   // per CPU; 0 = leave the kernel's
  uint32_t drain_period_ms = 0;  // 0 = default
  bool compact_sched = false;
};

struct ProcessStatsSourceConfig {
  bool scan_all_processes_on_start = false;
  bool record_thread_names = false;
  uint32_t proc_stats_poll_ms = 0;  // 0 = no polling
};

struct SysStatsSourceConfig {
  uint32_t meminfo_period_ms = 0;
  std::vector<int32_t> meminfo_counters;  // MeminfoCounters; empty = all
  uint32_t vmstat_period_ms = 0;
  std::vector<int32_t> vmstat_counters;  // VmstatCounters; empty = all
  uint32_t stat_period_ms = 0;
  std::vector<int32_t> stat_counters;  // SysStatsConfig.StatCounters; empty = all
};

struct RecorderConfig {
  std::string raw;  // the binary TraceConfig, echoed into the trace
  uint32_t duration_ms = 0;
  bool write_into_file = false;
  uint32_t file_write_period_ms = 0;
  uint64_t max_file_size_bytes = 0;
  bool has_ftrace = false, has_process_stats = false, has_sys_stats = false;
  FtraceSourceConfig ftrace;
  ProcessStatsSourceConfig process_stats;
  SysStatsSourceConfig sys_stats;
  std::vector<std::string> skipped_sources;  // data sources the recorder cannot provide
};

// Decodes and validates (e.g. proc_stats_poll_ms >= 100). Errors are one actionable line.
Result<RecorderConfig> ParseTraceConfig(std::string binary);

}  // namespace fathom::recorder
