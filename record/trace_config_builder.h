// The Record page's choices and the TraceConfig they make, field for field as
// the seeds describe them, plus the presets. Shared by `fathom-cli record`
// and the GUI so both record exactly the same thing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "perfetto/config/trace_config.pb.h"

namespace fathom::record {

struct RecordOptions {
  // Session.
  uint32_t duration_ms = 10000;  // 0: until stopped
  uint32_t buffer_size_kb = 64 * 1024;
  bool ring_buffer = false;  // false: write_into_file (long traces, flushed periodically)
  uint32_t file_write_period_ms = 2500;
  uint64_t max_file_size_bytes = 0;

  // linux.ftrace
  bool ftrace = false;
  std::vector<std::string> ftrace_events;
  std::vector<std::string> atrace_categories;
  std::vector<std::string> atrace_apps;
  bool compact_sched = true;
  uint32_t ftrace_buffer_kb = 0;  // per CPU; 0 = default

  // linux.process_stats
  bool process_stats = false;
  uint32_t proc_stats_poll_ms = 1000;  // >= 100
  bool scan_all_processes_on_start = true;

  // linux.sys_stats
  bool sys_stats = false;
  uint32_t meminfo_period_ms = 1000;
  uint32_t vmstat_period_ms = 1000;
  uint32_t stat_period_ms = 1000;
  // Counter ids (perfetto.protos.MeminfoCounters / VmstatCounters); empty = all.
  std::vector<int> meminfo_counters;
  std::vector<int> vmstat_counters;

  // linux.perf: CPU call stacks sampled on a clock, every process or the named ones.
  bool cpu_callstacks = false;
  uint32_t callstack_frequency_hz = 100;
  std::vector<std::string> callstack_processes;
  std::vector<uint64_t> callstack_pids;
  bool callstack_kernel_frames = false;

  // linux.inode_file_map: inode number -> file paths, by walking the filesystem
  // (see InodeFileMapWarning). The mount points are scan_mount_points; empty: the
  // recorder walks "/" (its root filesystem only). Upstream reads 0 as its default
  // (10 s / 10 s / 15000), so the builder writes every value explicitly.
  bool inode_file_map = false;
  std::vector<std::string> inode_mount_points;
  uint32_t inode_scan_batch_size = 15000;
  uint32_t inode_scan_interval_ms = 1000;
  uint32_t inode_scan_delay_ms = 1000;

  // android.heapprofd
  bool heapprofd = false;
  std::vector<std::string> heap_process_names;
  std::vector<uint64_t> heap_pids;
  uint64_t heap_sampling_interval = 4096;
  // Periodic dumps by default (memory over time); 0 = one dump at the end.
  uint32_t heap_continuous_dump_ms = 1000;
  uint64_t heap_shmem_size = 8 * 1024 * 1024;
  bool heap_block_client = false;
  bool heap_all_heaps = false;

  // android.java_hprof
  bool java_hprof = false;
  std::vector<std::string> java_processes;

  // android.power
  bool power = false;
  uint32_t battery_poll_ms = 1000;
  bool power_rails = true;

  // android.log
  bool logcat = false;
  std::vector<std::string> log_buffers = {"default", "system", "crash"};
  std::string log_min_priority = "info";  // verbose debug info warn error fatal
  std::vector<std::string> log_tags;
};

// Shown wherever linux.inode_file_map is offered or turned on (CLI and Record page).
const char* InodeFileMapWarning();

struct Preset {
  std::string name;  // cpu, cpu-freq, cpu-callstacks, memory, native-heap, java-heap, java-alloc,
                     // power, logcat, inode-map
  std::string title;
  std::string description;
};
const std::vector<Preset>& Presets();
// Fills `options` for `name` (keeps session settings). Error for unknown names.
Status ApplyPreset(const std::string& name, RecordOptions* options);

// The config Fathom sends; errors for invalid choices (poll < 100 ms, heap
// profile without a target process…), worded for the user.
Result<perfetto::protos::TraceConfig> BuildTraceConfig(const RecordOptions& options);

std::string ConfigToText(const perfetto::protos::TraceConfig& config);
// Parses protobuf text format (as `perfetto --txt`) or, with `binary`, the wire format.
Result<perfetto::protos::TraceConfig> ParseConfig(const std::string& bytes, bool text,
                                                  const std::string& name);

}  // namespace fathom::record
