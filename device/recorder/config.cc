#include "config.h"

#include "gen/perfetto_fields.h"
#include "proto_reader.h"

namespace fathom::recorder {
namespace {

using device::ProtoField;
using device::ProtoReader;

// Appends a repeated enum/int field, packed or not.
void AppendInts(const ProtoField& f, std::vector<int32_t>* out) {
  if (f.wire_type == 2) {
    size_t pos = 0;
    for (uint64_t v; ProtoReader::NextPacked(f.bytes, &pos, &v);)
      out->push_back(static_cast<int32_t>(v));
  } else {
    out->push_back(static_cast<int32_t>(f.value));
  }
}

Status ParseFtrace(std::string_view bytes, FtraceSourceConfig* c) {
  using F = pf::FtraceConfig;
  ProtoReader r(bytes);
  for (ProtoField f; r.Next(&f);) {
    switch (f.number) {
      case F::kFtraceEventsFieldNumber:
        c->events.emplace_back(f.bytes);
        break;
      case F::kAtraceCategoriesFieldNumber:
        c->atrace_categories.emplace_back(f.bytes);
        break;
      case F::kAtraceAppsFieldNumber:
        c->atrace_apps.emplace_back(f.bytes);
        break;
      case F::kBufferSizeKbFieldNumber:
        c->buffer_size_kb = static_cast<uint32_t>(f.value);
        break;
      case F::kDrainPeriodMsFieldNumber:
        c->drain_period_ms = static_cast<uint32_t>(f.value);
        break;
      case F::kCompactSchedFieldNumber: {
        ProtoReader cs(f.bytes);
        for (ProtoField g; cs.Next(&g);)
          if (g.number == F::CompactSchedConfig::kEnabledFieldNumber) c->compact_sched = g.value;
        break;
      }
      default:
        break;
    }
  }
  return r.ok() ? Status::Ok() : ErrorStatus("malformed ftrace_config");
}

Status ParseProcessStats(std::string_view bytes, ProcessStatsSourceConfig* c) {
  using P = pf::ProcessStatsConfig;
  ProtoReader r(bytes);
  for (ProtoField f; r.Next(&f);) {
    switch (f.number) {
      case P::kScanAllProcessesOnStartFieldNumber:
        c->scan_all_processes_on_start = f.value;
        break;
      case P::kRecordThreadNamesFieldNumber:
        c->record_thread_names = f.value;
        break;
      case P::kProcStatsPollMsFieldNumber:
        c->proc_stats_poll_ms = static_cast<uint32_t>(f.value);
        break;
      default:
        break;
    }
  }
  if (!r.ok()) return ErrorStatus("malformed process_stats_config");
  if (c->proc_stats_poll_ms && c->proc_stats_poll_ms < 100)
    return ErrorStatus("process_stats_config.proc_stats_poll_ms is " +
                       std::to_string(c->proc_stats_poll_ms) + ": use 100 ms or more");
  return Status::Ok();
}

Status ParseSysStats(std::string_view bytes, SysStatsSourceConfig* c) {
  using S = pf::SysStatsConfig;
  ProtoReader r(bytes);
  for (ProtoField f; r.Next(&f);) {
    switch (f.number) {
      case S::kMeminfoPeriodMsFieldNumber:
        c->meminfo_period_ms = static_cast<uint32_t>(f.value);
        break;
      case S::kMeminfoCountersFieldNumber:
        AppendInts(f, &c->meminfo_counters);
        break;
      case S::kVmstatPeriodMsFieldNumber:
        c->vmstat_period_ms = static_cast<uint32_t>(f.value);
        break;
      case S::kVmstatCountersFieldNumber:
        AppendInts(f, &c->vmstat_counters);
        break;
      case S::kStatPeriodMsFieldNumber:
        c->stat_period_ms = static_cast<uint32_t>(f.value);
        break;
      case S::kStatCountersFieldNumber:
        AppendInts(f, &c->stat_counters);
        break;
      default:
        break;
    }
  }
  if (!r.ok()) return ErrorStatus("malformed sys_stats_config");
  for (uint32_t period : {c->meminfo_period_ms, c->vmstat_period_ms, c->stat_period_ms})
    if (period && period < 10) return ErrorStatus("sys_stats_config periods must be >= 10 ms");
  return Status::Ok();
}

Status ParseTimebase(std::string_view bytes, PerfSourceConfig* c) {
  using TB = pf::PerfEvents::Timebase;
  ProtoReader r(bytes);
  for (ProtoField f; r.Next(&f);) {
    if (f.number == TB::kFrequencyFieldNumber) c->frequency = static_cast<uint32_t>(f.value);
    if (f.number == TB::kPeriodFieldNumber) c->period = f.value;
    if (f.number == TB::kCounterFieldNumber) c->counter = static_cast<uint32_t>(f.value);
    if (f.number == TB::kTracepointFieldNumber || f.number == TB::kRawEventFieldNumber)
      return ErrorStatus(
          "linux.perf: only counter timebases are supported (not tracepoints "
          "or raw events)");
  }
  return r.ok() ? Status::Ok() : ErrorStatus("malformed perf_event_config timebase");
}

// Scope fields live both at the top of PerfEventConfig (older configs) and in
// callstack_sampling.scope; both fill the same lists.
void ParsePerfScope(const ProtoField& f, bool top_level, PerfSourceConfig* c) {
  using P = pf::PerfEventConfig;
  using S = pf::PerfEventConfig::Scope;
  uint32_t pid = top_level ? P::kTargetPidFieldNumber : S::kTargetPidFieldNumber;
  uint32_t cmd = top_level ? P::kTargetCmdlineFieldNumber : S::kTargetCmdlineFieldNumber;
  uint32_t xpid = top_level ? P::kExcludePidFieldNumber : S::kExcludePidFieldNumber;
  uint32_t xcmd = top_level ? P::kExcludeCmdlineFieldNumber : S::kExcludeCmdlineFieldNumber;
  if (f.number == pid) AppendInts(f, &c->target_pids);
  if (f.number == xpid) AppendInts(f, &c->exclude_pids);
  if (f.number == cmd) c->target_cmdlines.emplace_back(f.bytes);
  if (f.number == xcmd) c->exclude_cmdlines.emplace_back(f.bytes);
}

Status ParsePerf(std::string_view bytes, PerfSourceConfig* c) {
  using P = pf::PerfEventConfig;
  using CS = pf::PerfEventConfig::CallstackSampling;
  ProtoReader r(bytes);
  for (ProtoField f; r.Next(&f);) {
    switch (f.number) {
      case P::kSamplingFrequencyFieldNumber:
        c->frequency = static_cast<uint32_t>(f.value);
        break;
      case P::kRingBufferPagesFieldNumber:
        c->ring_buffer_pages = static_cast<uint32_t>(f.value);
        break;
      case P::kRingBufferReadPeriodMsFieldNumber:
        c->ring_buffer_read_period_ms = static_cast<uint32_t>(f.value);
        break;
      case P::kKernelFramesFieldNumber:
        c->kernel_frames = f.value;
        break;
      case P::kTimebaseFieldNumber: {
        Status st = ParseTimebase(f.bytes, c);
        if (!st.ok()) return st;
        break;
      }
      case P::kCallstackSamplingFieldNumber: {
        ProtoReader cs(f.bytes);
        for (ProtoField g; cs.Next(&g);) {
          if (g.number == CS::kKernelFramesFieldNumber) c->kernel_frames = g.value;
          if (g.number != CS::kScopeFieldNumber) continue;
          ProtoReader sc(g.bytes);
          for (ProtoField h; sc.Next(&h);) ParsePerfScope(h, false, c);
        }
        break;
      }
      default:
        ParsePerfScope(f, true, c);
        break;
    }
  }
  if (!r.ok()) return ErrorStatus("malformed perf_event_config");
  if (c->ring_buffer_pages & (c->ring_buffer_pages - 1))
    return ErrorStatus("perf_event_config.ring_buffer_pages must be a power of two");
  if (c->frequency == 0 && c->period == 0) c->frequency = 100;
  return Status::Ok();
}

Status ParseInodeFile(std::string_view bytes, InodeFileSourceConfig* c) {
  using I = pf::InodeFileConfig;
  using M = pf::InodeFileConfig::MountPointMappingEntry;
  ProtoReader r(bytes);
  // 0 (or absent) means upstream's default, as its producer reads these fields.
  auto or_default = [](uint64_t v, uint64_t def) { return v ? v : def; };
  for (ProtoField f; r.Next(&f);) {
    switch (f.number) {
      case I::kScanIntervalMsFieldNumber:
        c->scan_interval_ms = or_default(f.value, c->scan_interval_ms);
        break;
      case I::kScanDelayMsFieldNumber:
        c->scan_delay_ms = or_default(f.value, c->scan_delay_ms);
        break;
      case I::kScanBatchSizeFieldNumber:
        c->scan_batch_size = or_default(f.value, c->scan_batch_size);
        break;
      case I::kDoNotScanFieldNumber:
        c->do_not_scan = f.value;
        break;
      case I::kScanMountPointsFieldNumber:
        c->scan_mount_points.emplace_back(f.bytes);
        break;
      case I::kMountPointMappingFieldNumber: {
        InodeFileSourceConfig::Mapping m;
        ProtoReader mr(f.bytes);
        for (ProtoField g; mr.Next(&g);) {
          if (g.number == M::kMountpointFieldNumber) m.mountpoint = std::string(g.bytes);
          if (g.number == M::kScanRootsFieldNumber) m.scan_roots.emplace_back(g.bytes);
        }
        if (!mr.ok()) return ErrorStatus("malformed inode_file_config.mount_point_mapping");
        c->mount_point_mapping.push_back(std::move(m));
        break;
      }
      default:
        break;
    }
  }
  if (!r.ok()) return ErrorStatus("malformed inode_file_config");
  for (const std::string& m : c->scan_mount_points)
    if (m.empty() || m[0] != '/')
      return ErrorStatus("inode_file_config.scan_mount_points: \"" + m +
                         "\" is not an absolute path");
  return Status::Ok();
}

Status ParseDataSource(std::string_view bytes, RecorderConfig* c) {
  using DS = pf::DataSourceConfig;
  std::string name;
  std::string_view ftrace, ps, ss, perf, inode;
  ProtoReader r(bytes);
  for (ProtoField f; r.Next(&f);) {
    if (f.number == pf::TraceConfig::DataSource::kConfigFieldNumber) {
      ProtoReader cr(f.bytes);
      for (ProtoField g; cr.Next(&g);) {
        if (g.number == DS::kNameFieldNumber) name = std::string(g.bytes);
        if (g.number == DS::kFtraceConfigFieldNumber) ftrace = g.bytes;
        if (g.number == DS::kProcessStatsConfigFieldNumber) ps = g.bytes;
        if (g.number == DS::kSysStatsConfigFieldNumber) ss = g.bytes;
        if (g.number == DS::kPerfEventConfigFieldNumber) perf = g.bytes;
        if (g.number == DS::kInodeFileConfigFieldNumber) inode = g.bytes;
      }
      if (!cr.ok()) return ErrorStatus("malformed data source config");
    }
  }
  if (name == "linux.ftrace") {
    c->has_ftrace = true;
    return ParseFtrace(ftrace, &c->ftrace);
  }
  if (name == "linux.process_stats") {
    c->has_process_stats = true;
    return ParseProcessStats(ps, &c->process_stats);
  }
  if (name == "linux.sys_stats") {
    c->has_sys_stats = true;
    return ParseSysStats(ss, &c->sys_stats);
  }
  if (name == "linux.perf") {
    c->has_perf = true;
    return ParsePerf(perf, &c->perf);
  }
  if (name == "linux.inode_file_map") {
    c->has_inode_file = true;
    return ParseInodeFile(inode, &c->inode_file);
  }
  c->skipped_sources.push_back(name.empty() ? "(unnamed)" : name);
  return Status::Ok();
}

}  // namespace

Result<RecorderConfig> ParseTraceConfig(std::string binary) {
  using T = pf::TraceConfig;
  RecorderConfig c;
  ProtoReader r(binary);
  for (ProtoField f; r.Next(&f);) {
    switch (f.number) {
      case T::kDurationMsFieldNumber:
        c.duration_ms = static_cast<uint32_t>(f.value);
        break;
      case T::kWriteIntoFileFieldNumber:
        c.write_into_file = f.value;
        break;
      case T::kFileWritePeriodMsFieldNumber:
        c.file_write_period_ms = static_cast<uint32_t>(f.value);
        break;
      case T::kMaxFileSizeBytesFieldNumber:
        c.max_file_size_bytes = f.value;
        break;
      case T::kDataSourcesFieldNumber: {
        Status st = ParseDataSource(f.bytes, &c);
        if (!st.ok()) return st;
        break;
      }
      default:
        break;
    }
  }
  if (!r.ok())
    return ErrorStatus("the config is not a binary TraceConfig (text format? add --txt)");
  if (!c.has_ftrace && !c.has_process_stats && !c.has_sys_stats && !c.has_perf && !c.has_inode_file)
    return ErrorStatus(
        "the config has no data source this recorder provides (linux.ftrace, "
        "linux.process_stats, linux.sys_stats, linux.perf, linux.inode_file_map)");
  c.raw = std::move(binary);
  return c;
}

}  // namespace fathom::recorder
