#include "record/trace_config_builder.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>

namespace fathom::record {
namespace pp = perfetto::protos;

const char* InodeFileMapWarning() {
  return "Scanning is expensive: it walks the filesystem (every directory and file "
         "under the mount points). Use it only when needed.";
}

const std::vector<Preset>& Presets() {
  static const std::vector<Preset> kPresets = {
      {"cpu", "CPU scheduling", "sched_switch/waking, process names, 10 s"},
      {"cpu-freq", "CPU + frequency", "scheduling plus cpu_frequency and cpu_idle"},
      {"cpu-callstacks", "CPU call stacks",
       "where the CPU time goes: linux.perf call stacks at 100 Hz (--app to narrow)"},
      {"memory", "Memory counters + LMK",
       "process RSS/swap/oom_score_adj every 100 ms, meminfo/vmstat, LMK kills"},
      {"native-heap", "Native heap profile", "heapprofd on the chosen process (--app)"},
      {"java-heap", "Java heap dump", "java_hprof on the chosen process (--app)"},
      {"java-alloc", "Java allocations", "JVMTI allocation sampling in the chosen app"},
      {"power", "Battery and power", "battery counters and power rails"},
      {"logcat", "Logcat", "android.log, all buffers from info up"},
      {"inode-map", "Inode to file map",
       "linux.inode_file_map of / (--inode-root to choose; walks the filesystem: expensive)"},
  };
  return kPresets;
}

Status ApplyPreset(const std::string& name, RecordOptions* o) {
  const uint32_t duration = o->duration_ms;
  const uint32_t buffer = o->buffer_size_kb;
  RecordOptions fresh;
  fresh.duration_ms = duration;
  fresh.buffer_size_kb = buffer;
  fresh.heap_process_names = o->heap_process_names;
  fresh.java_processes = o->java_processes;
  fresh.callstack_processes = o->callstack_processes;
  fresh.inode_mount_points = o->inode_mount_points;
  *o = fresh;
  if (name == "cpu" || name == "cpu-freq") {
    o->ftrace = true;
    o->ftrace_events = {"sched/sched_switch",       "sched/sched_waking",
                        "sched/sched_wakeup_new",   "sched/sched_process_exit",
                        "sched/sched_process_free", "task/task_newtask",
                        "task/task_rename"};
    if (name == "cpu-freq") {
      o->ftrace_events.insert(o->ftrace_events.end(),
                              {"power/cpu_frequency", "power/cpu_idle", "power/suspend_resume"});
      o->sys_stats = true;
      o->meminfo_period_ms = o->vmstat_period_ms = 0;
    }
    o->process_stats = true;
    o->proc_stats_poll_ms = 0;  // names at start and for new pids only
  } else if (name == "cpu-callstacks") {
    // No ftrace: sampling works without tracefs, which an unprivileged user lacks.
    o->cpu_callstacks = true;
    o->process_stats = true;
    o->proc_stats_poll_ms = 0;
  } else if (name == "memory") {
    o->process_stats = true;
    o->proc_stats_poll_ms = 100;
    o->sys_stats = true;
    o->stat_period_ms = 0;
    // The counters that explain memory pressure, not all ~180 of meminfo and
    // vmstat: a dozen tracks a person can read.
    o->meminfo_counters = {pp::MEMINFO_MEM_TOTAL, pp::MEMINFO_MEM_FREE, pp::MEMINFO_MEM_AVAILABLE,
                           pp::MEMINFO_BUFFERS,   pp::MEMINFO_CACHED,   pp::MEMINFO_SWAP_CACHED,
                           pp::MEMINFO_ACTIVE,    pp::MEMINFO_INACTIVE, pp::MEMINFO_SWAP_FREE};
    o->vmstat_counters = {pp::VMSTAT_NR_FREE_PAGES, pp::VMSTAT_PGFAULT, pp::VMSTAT_PGMAJFAULT,
                          pp::VMSTAT_PSWPIN, pp::VMSTAT_PSWPOUT};
    o->ftrace = true;
    o->ftrace_events = {"lowmemorykiller/lowmemory_kill", "oom/oom_score_adj_update",
                        "oom/mark_victim", "kmem/rss_stat", "ftrace/print"};
    o->atrace_apps = {"lmkd"};
  } else if (name == "native-heap") {
    o->heapprofd = true;
    o->process_stats = true;
    o->proc_stats_poll_ms = 0;
  } else if (name == "java-heap") {
    o->java_hprof = true;
    o->process_stats = true;
    o->proc_stats_poll_ms = 0;
  } else if (name == "java-alloc") {
    o->process_stats = true;
    o->proc_stats_poll_ms = 0;
  } else if (name == "power") {
    o->power = true;
    o->sys_stats = true;
  } else if (name == "logcat") {
    o->logcat = true;
  } else if (name == "inode-map") {
    o->inode_file_map = true;
  } else {
    std::string names;
    for (const Preset& p : Presets()) names += (names.empty() ? "" : ", ") + p.name;
    return ErrorStatus("unknown preset '" + name + "' (presets: " + names + ")");
  }
  return Status::Ok();
}

namespace {

pp::AndroidLogPriority PriorityFromName(const std::string& n) {
  if (n == "verbose") return pp::PRIO_VERBOSE;
  if (n == "debug") return pp::PRIO_DEBUG;
  if (n == "warn") return pp::PRIO_WARN;
  if (n == "error") return pp::PRIO_ERROR;
  if (n == "fatal") return pp::PRIO_FATAL;
  return pp::PRIO_INFO;
}

pp::AndroidLogId LogIdFromName(const std::string& n) {
  if (n == "radio") return pp::LID_RADIO;
  if (n == "events") return pp::LID_EVENTS;
  if (n == "system") return pp::LID_SYSTEM;
  if (n == "crash") return pp::LID_CRASH;
  if (n == "stats") return pp::LID_STATS;
  if (n == "security") return pp::LID_SECURITY;
  if (n == "kernel") return pp::LID_KERNEL;
  return pp::LID_DEFAULT;
}

void AddPerf(const RecordOptions& o, pp::DataSourceConfig* ds) {
  auto* p = ds->mutable_perf_event_config();
  auto* timebase = p->mutable_timebase();
  timebase->set_frequency(o.callstack_frequency_hz);
  // The cpu-clock needs no PMU: it samples on virtual machines and every board.
  timebase->set_counter(pp::PerfEvents::SW_CPU_CLOCK);
  auto* cs = p->mutable_callstack_sampling();
  if (o.callstack_kernel_frames) cs->set_kernel_frames(true);
  if (!o.callstack_processes.empty() || !o.callstack_pids.empty()) {
    auto* scope = cs->mutable_scope();
    for (const auto& n : o.callstack_processes) scope->add_target_cmdline(n);
    for (uint64_t pid : o.callstack_pids) scope->add_target_pid(static_cast<int32_t>(pid));
  }
}

Status CheckInodeOptions(const RecordOptions& o) {
  // 0 would not mean "none" but upstream's default (10 s, 15000): ask for a real value.
  if (o.inode_scan_batch_size == 0)
    return ErrorStatus("inode file map: the batch size must be at least 1 inode");
  if (o.inode_scan_interval_ms == 0 || o.inode_scan_delay_ms == 0)
    return ErrorStatus("inode file map: the scan interval and delay must be at least 1 ms");
  for (const std::string& m : o.inode_mount_points)
    if (m.empty() || m[0] != '/')
      return ErrorStatus("inode file map: '" + m + "' is not an absolute path");
  return Status::Ok();
}

void AddInodeFileMap(const RecordOptions& o, pp::DataSourceConfig* ds) {
  auto* i = ds->mutable_inode_file_config();
  i->set_scan_interval_ms(o.inode_scan_interval_ms);
  i->set_scan_delay_ms(o.inode_scan_delay_ms);
  i->set_scan_batch_size(o.inode_scan_batch_size);
  for (const std::string& m : o.inode_mount_points) i->add_scan_mount_points(m);
}

}  // namespace

Result<pp::TraceConfig> BuildTraceConfig(const RecordOptions& o) {
  if (o.process_stats && o.proc_stats_poll_ms != 0 && o.proc_stats_poll_ms < 100) {
    return ErrorStatus("process stats poll period must be at least 100 ms (got " +
                       std::to_string(o.proc_stats_poll_ms) + ")");
  }
  if (o.heapprofd && o.heap_process_names.empty() && o.heap_pids.empty() && !o.heap_all_heaps) {
    return ErrorStatus("native heap profile: name the process to profile (--app NAME or a pid)");
  }
  if (o.heapprofd && o.heap_sampling_interval == 0) {
    return ErrorStatus("native heap profile: the sampling interval must be > 0 bytes");
  }
  if (o.cpu_callstacks && (o.callstack_frequency_hz == 0 || o.callstack_frequency_hz > 10000)) {
    return ErrorStatus("CPU call stacks: the sampling frequency must be 1..10000 Hz (got " +
                       std::to_string(o.callstack_frequency_hz) + ")");
  }
  if (o.java_hprof && o.java_processes.empty()) {
    return ErrorStatus("Java heap dump: name the process to dump (--app NAME)");
  }
  if (o.inode_file_map) {
    if (Status st = CheckInodeOptions(o); !st.ok()) return st;
  }
  pp::TraceConfig c;
  c.add_buffers()->set_size_kb(o.buffer_size_kb);
  c.mutable_buffers(0)->set_fill_policy(o.ring_buffer ? pp::TraceConfig::BufferConfig::RING_BUFFER
                                                      : pp::TraceConfig::BufferConfig::DISCARD);
  if (o.duration_ms) c.set_duration_ms(o.duration_ms);
  if (!o.ring_buffer) {
    c.set_write_into_file(true);
    c.set_file_write_period_ms(o.file_write_period_ms);
  }
  if (o.max_file_size_bytes) c.set_max_file_size_bytes(o.max_file_size_bytes);
  auto add = [&](const char* name) {
    pp::DataSourceConfig* ds = c.add_data_sources()->mutable_config();
    ds->set_name(name);
    return ds;
  };
  if (o.ftrace) {
    auto* f = add("linux.ftrace")->mutable_ftrace_config();
    for (const auto& e : o.ftrace_events) f->add_ftrace_events(e);
    for (const auto& a : o.atrace_categories) f->add_atrace_categories(a);
    for (const auto& a : o.atrace_apps) f->add_atrace_apps(a);
    if (o.compact_sched) f->mutable_compact_sched()->set_enabled(true);
    if (o.ftrace_buffer_kb) f->set_buffer_size_kb(o.ftrace_buffer_kb);
  }
  if (o.process_stats) {
    auto* p = add("linux.process_stats")->mutable_process_stats_config();
    p->set_scan_all_processes_on_start(o.scan_all_processes_on_start);
    if (o.proc_stats_poll_ms) p->set_proc_stats_poll_ms(o.proc_stats_poll_ms);
  }
  if (o.sys_stats) {
    auto* s = add("linux.sys_stats")->mutable_sys_stats_config();
    if (o.meminfo_period_ms) s->set_meminfo_period_ms(o.meminfo_period_ms);
    if (o.vmstat_period_ms) s->set_vmstat_period_ms(o.vmstat_period_ms);
    if (o.stat_period_ms) s->set_stat_period_ms(o.stat_period_ms);
    for (int c : o.meminfo_counters) s->add_meminfo_counters(static_cast<pp::MeminfoCounters>(c));
    for (int c : o.vmstat_counters) s->add_vmstat_counters(static_cast<pp::VmstatCounters>(c));
  }
  if (o.cpu_callstacks) AddPerf(o, add("linux.perf"));
  if (o.inode_file_map) AddInodeFileMap(o, add("linux.inode_file_map"));
  if (o.heapprofd) {
    auto* h = add("android.heapprofd")->mutable_heapprofd_config();
    h->set_sampling_interval_bytes(o.heap_sampling_interval);
    for (const auto& n : o.heap_process_names) h->add_process_cmdline(n);
    for (uint64_t pid : o.heap_pids) h->add_pid(pid);
    if (o.heap_continuous_dump_ms) {
      h->mutable_continuous_dump_config()->set_dump_interval_ms(o.heap_continuous_dump_ms);
    }
    h->set_shmem_size_bytes(o.heap_shmem_size);
    h->set_block_client(o.heap_block_client);
    if (o.heap_all_heaps) h->set_all_heaps(true);
  }
  if (o.java_hprof) {
    auto* j = add("android.java_hprof")->mutable_java_hprof_config();
    for (const auto& n : o.java_processes) j->add_process_cmdline(n);
  }
  if (o.power) {
    auto* p = add("android.power")->mutable_android_power_config();
    p->set_battery_poll_ms(o.battery_poll_ms);
    for (auto counter : {pp::AndroidPowerConfig::BATTERY_COUNTER_CHARGE,
                         pp::AndroidPowerConfig::BATTERY_COUNTER_CAPACITY_PERCENT,
                         pp::AndroidPowerConfig::BATTERY_COUNTER_CURRENT}) {
      p->add_battery_counters(counter);
    }
    p->set_collect_power_rails(o.power_rails);
  }
  if (o.logcat) {
    auto* l = add("android.log")->mutable_android_log_config();
    for (const auto& b : o.log_buffers) l->add_log_ids(LogIdFromName(b));
    l->set_min_prio(PriorityFromName(o.log_min_priority));
    for (const auto& t : o.log_tags) l->add_filter_tags(t);
  }
  if (c.data_sources_size() == 0)
    return ErrorStatus("nothing to record: choose at least one source");
  return c;
}

std::string ConfigToText(const pp::TraceConfig& config) {
  std::string text;
  google::protobuf::TextFormat::PrintToString(config, &text);
  return text;
}

Result<pp::TraceConfig> ParseConfig(const std::string& bytes, bool text, const std::string& name) {
  pp::TraceConfig c;
  if (text) {
    struct Collector : google::protobuf::io::ErrorCollector {
      std::string first;
      void AddError(int line, int column, const std::string& message) override {
        if (first.empty())
          first = "line " + std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " +
                  message;
      }
    } errors;
    google::protobuf::TextFormat::Parser parser;
    parser.RecordErrorsTo(&errors);
    if (!parser.ParseFromString(bytes, &c)) return ErrorStatus(name + ": " + errors.first);
  } else if (!c.ParseFromString(bytes)) {
    return ErrorStatus(name + ": not a binary TraceConfig (use --txt for text format)");
  }
  return c;
}

}  // namespace fathom::record
