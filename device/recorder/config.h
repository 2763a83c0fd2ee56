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

// linux.perf (PerfEventConfig): CPU call-stack sampling with the kernel's perf events.
struct PerfSourceConfig {
  uint32_t counter = 1;    // PerfEvents.Counter; SW_CPU_CLOCK unless the timebase says
  uint32_t frequency = 0;  // samples per second per CPU (0 with period 0: 100)
  uint64_t period = 0;     // or one sample every `period` events
  bool kernel_frames = false;
  std::vector<int32_t> target_pids, exclude_pids;
  std::vector<std::string> target_cmdlines, exclude_cmdlines;
  uint32_t ring_buffer_pages = 0;           // per CPU, a power of two; 0 = default
  uint32_t ring_buffer_read_period_ms = 0;  // 0 = default
};

// linux.inode_file_map (InodeFileConfig). Zero periods and batch size take upstream's
// defaults at parse time, so these are the values that run.
struct InodeFileSourceConfig {
  struct Mapping {
    std::string mountpoint;
    std::vector<std::string> scan_roots;
  };
  uint64_t scan_interval_ms = 10000;
  uint64_t scan_delay_ms = 10000;
  uint64_t scan_batch_size = 15000;
  bool do_not_scan = false;
  std::vector<std::string> scan_mount_points;
  std::vector<Mapping> mount_point_mapping;
};

struct RecorderConfig {
  std::string raw;  // the binary TraceConfig, echoed into the trace
  uint32_t duration_ms = 0;
  bool write_into_file = false;
  uint32_t file_write_period_ms = 0;
  uint64_t max_file_size_bytes = 0;
  bool has_ftrace = false, has_process_stats = false, has_sys_stats = false, has_perf = false,
       has_inode_file = false;
  FtraceSourceConfig ftrace;
  ProcessStatsSourceConfig process_stats;
  SysStatsSourceConfig sys_stats;
  PerfSourceConfig perf;
  InodeFileSourceConfig inode_file;
  std::vector<std::string> skipped_sources;  // data sources the recorder cannot provide
};

// Decodes and validates (e.g. proc_stats_poll_ms >= 100). Errors are one actionable line.
Result<RecorderConfig> ParseTraceConfig(std::string binary);

}  // namespace fathom::recorder
