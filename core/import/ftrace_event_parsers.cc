// FtraceParser: the non-scheduling events (counters, memory, atrace markers,
// syscalls, binder). Dispatch and scheduling live in ftrace_parser.cc.
#include <cstdio>
#include <string>

#include "core/import/args_tracker.h"
#include "core/import/dma_buffer_tracker.h"
#include "core/import/ftrace_parser.h"
#include "core/import/process_tracker.h"
#include "core/import/sequence_state.h"
#include "core/import/slice_tracker.h"
#include "core/import/track_tracker.h"
#include "perfetto/trace/ftrace/ftrace_event_bundle.pb.h"
#include "perfetto/trace/interned_data.pb.h"

namespace fathom {

namespace pb = perfetto::protos;

namespace {
// Reads a flat event payload into a small table by field number.
using Flat = proto::FlatMessage<16>;
}  // namespace

// ---- atrace markers ---------------------------------------------------------

void FtraceParser::MaybeTruncateSysWrite(int64_t ts, uint32_t pid) {
  // A B/E marker is written by a write() syscall: when syscalls are traced the
  // marker's slice would straddle sys_write slices. Like upstream, end the
  // ongoing sys_write at the marker so slices nest.
  if (!saw_syscall_) return;  // nothing to truncate unless syscalls are traced
  auto utid = ctx_->process_tracker->GetThreadOrNull(pid);
  if (!utid) return;
  uint32_t track = ctx_->track_tracker->InternThreadTrack(*utid);
  auto top = ctx_->slice_tracker->GetTopmostOpen(track);
  if (top && storage_->slice.name[*top] == sys_write_) ctx_->slice_tracker->End(ts, track);
}

void FtraceParser::ParsePrint(int64_t ts, uint32_t pid, proto::Bytes payload) {
  Flat m(payload);
  MaybeTruncateSysWrite(ts, pid);
  SystraceMarker marker;
  switch (ParseSystraceMarker(m[pb::PrintFtraceEvent::kBufFieldNumber].as_string(), &marker)) {
    case SystraceParseResult::kOk:
      ApplySystraceMarker(ts, pid, marker);
      break;
    case SystraceParseResult::kFailure:
      storage_->stats.Increment(Stat::kSystraceParseFailure);
      break;
    case SystraceParseResult::kUnsupported:
      break;
  }
}

void FtraceParser::ParseKernelTracingMark(int64_t ts, uint32_t pid, uint32_t event_id,
                                          proto::Bytes payload) {
  Flat m(payload);
  SystraceMarker marker;
  bool has_type = false, has_begin = false, begin = false;
  switch (event_id) {
    case pb::FtraceEvent::kTracingMarkWriteFieldNumber: {
      using E = pb::TracingMarkWriteFtraceEvent;
      marker.tgid = m[E::kPidFieldNumber].as_int32();
      marker.name = m[E::kTraceNameFieldNumber].as_string();
      has_begin = m.has(E::kTraceBeginFieldNumber);
      begin = m[E::kTraceBeginFieldNumber].as_bool();
      break;
    }
    case pb::FtraceEvent::kSdeTracingMarkWriteFieldNumber: {
      using E = pb::SdeTracingMarkWriteFtraceEvent;
      marker.tgid = m[E::kPidFieldNumber].as_int32();
      marker.name = m[E::kTraceNameFieldNumber].as_string();
      has_type = m.has(E::kTraceTypeFieldNumber);
      marker.phase = static_cast<char>(m[E::kTraceTypeFieldNumber].as_uint32());
      has_begin = m.has(E::kTraceBeginFieldNumber);
      begin = m[E::kTraceBeginFieldNumber].as_bool();
      marker.value = m[E::kValueFieldNumber].as_int32();
      break;
    }
    case pb::FtraceEvent::kSamsungTracingMarkWriteFieldNumber: {
      using E = pb::SamsungTracingMarkWriteFtraceEvent;
      marker.tgid = m[E::kPidFieldNumber].as_int32();
      marker.name = m[E::kTraceNameFieldNumber].as_string();
      has_type = m.has(E::kTraceTypeFieldNumber);
      marker.phase = static_cast<char>(m[E::kTraceTypeFieldNumber].as_uint32());
      marker.value = m[E::kValueFieldNumber].as_int32();
      break;
    }
    case pb::FtraceEvent::kDpuTracingMarkWriteFieldNumber: {
      using E = pb::DpuTracingMarkWriteFtraceEvent;
      marker.tgid = m[E::kPidFieldNumber].as_int32();
      marker.name = m.has(E::kNameFieldNumber) ? m[E::kNameFieldNumber].as_string()
                                               : m[E::kTraceNameFieldNumber].as_string();
      marker.phase = static_cast<char>(m[E::kTypeFieldNumber].as_uint32());
      has_type = marker.phase != 0;
      marker.value = m[E::kValueFieldNumber].as_int32();
      // Some drivers claim another process's tgid for B/E/I: don't trust it
      // (upstream b/395779936); counters keep it.
      if (marker.phase != 'C') marker.tgid = 0;
      break;
    }
    case pb::FtraceEvent::kG2DTracingMarkWriteFieldNumber: {
      using E = pb::G2dTracingMarkWriteFtraceEvent;
      marker.tgid = m[E::kPidFieldNumber].as_int32();
      marker.name = m[E::kNameFieldNumber].as_string();
      marker.phase = static_cast<char>(m[E::kTypeFieldNumber].as_uint32());
      has_type = marker.phase != 0;
      marker.value = m[E::kValueFieldNumber].as_int32();
      break;
    }
    case pb::FtraceEvent::kMaliTracingMarkWriteFieldNumber: {
      using E = pb::MaliTracingMarkWriteFtraceEvent;
      marker.tgid = m[E::kPidFieldNumber].as_int32();
      marker.name = m[E::kNameFieldNumber].as_string();
      marker.phase = static_cast<char>(m[E::kTypeFieldNumber].as_uint32());
      has_type = marker.phase != 0;
      marker.value = m[E::kValueFieldNumber].as_int32();
      break;
    }
  }
  if (!has_type) {
    if (!has_begin) {
      storage_->stats.Increment(Stat::kSystraceParseFailure);
      return;
    }
    marker.phase = begin ? 'B' : 'E';
  }
  ApplySystraceMarker(ts, pid, marker);
}

uint32_t FtraceParser::AtraceCounterArgs(uint32_t utid) {
  // One set per thread: upstream writes a set per value, but equal sets
  // share the first one's id, so reusing it gives the same ids without
  // writing (and interning) the same row again for every value.
  if (utid >= atrace_counter_sets_.size()) atrace_counter_sets_.resize(utid + 1, 0);
  uint32_t& set = atrace_counter_sets_[utid];
  if (!set) set = *ctx_->args_tracker->NewSet().AddUint("utid", utid).Commit() + 1;
  return set - 1;
}

void FtraceParser::AddLmkInstant(int64_t ts, int64_t pid) {
  uint32_t upid = ctx_->process_tracker->GetOrCreateProcess(pid);
  // Upstream's per-process "LMK" track (type android_lmk).
  uint32_t track = ctx_->track_tracker->InternProcessTrack(upid, storage_->Intern("LMK"),
                                                           storage_->Intern("android_lmk"));
  ctx_->slice_tracker->Scoped(ts, track, kNullStringId, mem_lmk_, 0);
}

void FtraceParser::ApplySystraceMarker(int64_t ts, uint32_t pid, const SystraceMarker& m) {
  ProcessTracker* pt = ctx_->process_tracker.get();
  TrackTracker* tt = ctx_->track_tracker.get();
  SliceTracker* st = ctx_->slice_tracker.get();
  auto thread_for = [&]() { return m.tgid == 0 ? Utid(pid) : UpdateThreadCached(pid, m.tgid); };
  switch (m.phase) {
    case 'B': {
      uint32_t track = tt->InternThreadTrack(thread_for());
      st->Begin(ts, track, kNullStringId, InternCached(m.name));
      // lmkd (Android S+) reports kills as "lmk,<pid>,<reason>,<oom_adj>,...".
      if (m.name.substr(0, 4) == "lmk,") {
        std::string s(m.name.substr(4));
        long killed = 0, reason = 0, adj = 0;
        if (sscanf(s.c_str(), "%ld,%ld,%ld", &killed, &reason, &adj) >= 1 && killed > 0) {
          // The counter's track is made before the instant's (upstream's
          // track order).
          uint32_t upid = pt->GetOrCreateProcess(killed);
          tt->PushCounter(ts, static_cast<double>(adj),
                          tt->InternProcessCounterTrack(upid, oom_score_adj_, oom_score_adj_));
          AddLmkInstant(ts, killed);
        }
      }
      return;
    }
    case 'E': {
      std::optional<uint32_t> utid;
      if (m.tgid == 0) {
        utid = pt->GetThreadOrNull(pid);  // no thread, no begin: nothing to end
      } else {
        utid = UpdateThreadCached(pid, m.tgid);
      }
      if (utid) st->End(ts, tt->InternThreadTrack(*utid));
      return;
    }
    case 'I': {
      uint32_t track = tt->InternThreadTrack(thread_for());
      st->Scoped(ts, track, kNullStringId, storage_->Intern(m.name), 0);
      return;
    }
    case 'C': {
      if (m.name == "kill_one_process") {
        // lmkd's kill marker: value is the killed pid (0 = reset, ignored).
        if (m.value != 0) AddLmkInstant(ts, static_cast<int64_t>(m.value));
        return;
      }
      StringId name = InternCached(m.name);
      uint32_t track;
      if (m.name == "ScreenState" || m.name.substr(0, 14) == "battery_stats.") {
        // Same (name, type) as the sysprop/initial-display tracks of
        // AndroidParser, so both sources land on one track.
        track = tt->InternGlobalCounterTrack(
            name, storage_->Intern(m.name == "ScreenState" ? "screen_state" : "battery_stats"));
        tt->PushCounter(ts, m.value, track);
        return;
      }
      if (m.tgid == 0) {
        track = tt->InternThreadCounterTrack(pt->GetOrCreateThread(pid), name, atrace_counter_,
                                             TrackDims().Str("name", m.name));
      } else {
        // Per process on purpose: long-lived counters are written from
        // arbitrary threads of the process.
        track = tt->InternProcessCounterTrack(pt->GetOrCreateProcess(m.tgid), name, atrace_counter_,
                                              TrackDims().Str("name", m.name));
      }
      uint32_t row = tt->PushCounter(ts, m.value, track);
      // Upstream notes the writing thread on each atrace counter value.
      storage_->counter.arg_set_id.Set(row, AtraceCounterArgs(Utid(pid)));
      return;
    }
    case 'S':
    case 'F': {
      uint32_t upid = pt->GetOrCreateProcess(m.tgid);
      if (m.phase == 'S') {
        atrace_async_->Begin(ts, upid, m.name, m.cookie);
      } else {
        atrace_async_->End(ts, upid, m.name, m.cookie);
      }
      return;
    }
    case 'N': {
      uint32_t upid = pt->GetOrCreateProcess(m.tgid);
      uint32_t track = tt->InternProcessTrack(upid, storage_->Intern(m.track));
      st->Scoped(ts, track, kNullStringId, storage_->Intern(m.name), 0);
      return;
    }
    case 'G':
    case 'H': {
      uint32_t upid = pt->GetOrCreateProcess(m.tgid);
      uint32_t track =
          tt->InternProcessTrack(upid, storage_->Intern(m.track), kNullStringId, m.cookie);
      if (m.phase == 'G') {
        st->Begin(ts, track, kNullStringId, storage_->Intern(m.name));
      } else {
        st->End(ts, track);
      }
      return;
    }
    default:
      storage_->stats.Increment(Stat::kSystraceParseFailure);
  }
}

// ---- counters -----------------------------------------------------------------

void FtraceParser::ParseCpuFrequency(int64_t ts, proto::Bytes payload) {
  using E = pb::CpuFrequencyFtraceEvent;
  Flat m(payload);
  uint32_t track = ctx_->track_tracker->InternCpuCounterTrack(m[E::kCpuIdFieldNumber].as_uint32(),
                                                              cpufreq_, cpu_frequency_);
  ctx_->track_tracker->PushCounter(ts, m[E::kStateFieldNumber].as_uint32(), track);
}

void FtraceParser::ParseCpuIdle(int64_t ts, proto::Bytes payload) {
  using E = pb::CpuIdleFtraceEvent;
  Flat m(payload);
  uint32_t track = ctx_->track_tracker->InternCpuCounterTrack(m[E::kCpuIdFieldNumber].as_uint32(),
                                                              cpuidle_, cpu_idle_);
  // Stored as is: 4294967295 (uint32 -1) means "left idle", as upstream.
  ctx_->track_tracker->PushCounter(ts, m[E::kStateFieldNumber].as_uint32(), track);
}

void FtraceParser::ParseGpuFrequency(int64_t ts, proto::Bytes payload) {
  using E = pb::GpuFrequencyFtraceEvent;
  Flat m(payload);
  // As upstream: a "gpufreq" track per GPU, in kHz, the GPU as its
  // dimensions, which gpu_counter_track and android.gpu.frequency read.
  const uint32_t gpu = m[E::kGpuIdFieldNumber].as_uint32();
  auto [it, added] = gpu_freq_tracks_.try_emplace(gpu, 0);
  if (added) {
    it->second = ctx_->track_tracker->CreateTrack(true, gpufreq_, gpu_frequency_, std::nullopt,
                                                  std::nullopt, std::nullopt);
    storage_->track.counter_unit.Set(it->second, storage_->Intern("kHz"));
    // ugpu numbers the GPUs in the order they first appear (as ucpu does
    // CPUs); gpu is the event's own gpu_id.
    const int64_t ugpu = static_cast<int64_t>(gpu_freq_tracks_.size()) - 1;
    auto dims = ctx_->args_tracker->NewSet().AddInt("ugpu", ugpu).AddInt("gpu", gpu);
    if (auto set = dims.Commit()) storage_->track.dimension_arg_set_id.Set(it->second, *set);
  }
  ctx_->track_tracker->PushCounter(ts, m[E::kStateFieldNumber].as_uint32(), it->second);
}

void FtraceParser::ParseSchedCpuUtilCfs(int64_t ts, proto::Bytes payload) {
  using E = pb::SchedCpuUtilCfsFtraceEvent;
  Flat m(payload);
  uint32_t cpu = m[E::kCpuFieldNumber].as_uint32();
  char name[64];
  TrackTracker* tt = ctx_->track_tracker.get();
  // Track types as upstream classifies them.
  snprintf(name, sizeof name, "Cpu %u Util", cpu);
  tt->PushCounter(
      ts, static_cast<double>(m[E::kCpuUtilFieldNumber].as_uint64()),
      tt->InternCpuCounterTrack(cpu, storage_->Intern(name), storage_->Intern("cpu_utilization")));
  snprintf(name, sizeof name, "Cpu %u Cap", cpu);
  tt->PushCounter(
      ts, static_cast<double>(m[E::kCapacityFieldNumber].as_uint64()),
      tt->InternCpuCounterTrack(cpu, storage_->Intern(name), storage_->Intern("cpu_capacity")));
  snprintf(name, sizeof name, "Cpu %u Nr Running", cpu);
  tt->PushCounter(
      ts, m[E::kNrRunningFieldNumber].as_uint32(),
      tt->InternCpuCounterTrack(cpu, storage_->Intern(name), storage_->Intern("cpu_nr_running")));
}

void FtraceParser::ParseThermalExynosBulk(proto::Bytes payload) {
  using E = pb::ThermalExynosAcpmBulkFtraceEvent;
  Flat m(payload);
  static const char* const kZones[] = {"BIG", "MID", "LITTLE", "GPU", "ISP", "TPU"};
  uint32_t tz = m[E::kTzIdFieldNumber].as_uint32();
  if (tz >= sizeof(kZones) / sizeof(kZones[0])) return;
  std::string name = std::string(kZones[tz]) + " Temperature";
  TrackTracker* tt = ctx_->track_tracker.get();
  // The event carries its own (ACPM) timestamp, which upstream uses.
  tt->PushCounter(m[E::kTimestampFieldNumber].as_int64(), m[E::kCurrentTempFieldNumber].as_uint32(),
                  tt->InternGlobalCounterTrack(storage_->Intern(name)));
}

// ---- processes -----------------------------------------------------------------

void FtraceParser::ParseTaskNewtask(int64_t ts, uint32_t pid, proto::Bytes payload) {
  using E = pb::TaskNewtaskFtraceEvent;
  Flat m(payload);
  const int64_t new_tid = m[E::kPidFieldNumber].as_int32();
  const uint32_t creator = Utid(pid);
  ctx_->process_tracker->OnTaskNewtask(ts, pid, new_tid, m[E::kCommFieldNumber].as_string(),
                                       m[E::kCloneFlagsFieldNumber].as_uint64());
  // A new task is runnable from birth, woken by its creator, never from
  // interrupt context: upstream opens its R row here (sched_wakeup_new adds
  // nothing, and a later sched_waking finds it already runnable).
  if (new_tid != 0) tables_.PushWaking(ts, Utid(new_tid), creator, /*irq_context=*/0);
}

void FtraceParser::ParseTaskRename(proto::Bytes payload) {
  using E = pb::TaskRenameFtraceEvent;
  Flat m(payload);
  int64_t tid = m[E::kPidFieldNumber].as_int32();
  ctx_->process_tracker->OnTaskRename(tid, m[E::kNewcommFieldNumber].as_string());
}

void FtraceParser::ParseSchedProcessFree(int64_t ts, proto::Bytes payload) {
  using E = pb::SchedProcessFreeFtraceEvent;
  Flat m(payload);
  ctx_->process_tracker->OnProcessFree(ts, m[E::kPidFieldNumber].as_int32());
}

// ---- memory --------------------------------------------------------------------

void FtraceParser::ParseRssStat(int64_t ts, uint32_t pid, uint32_t event_id, proto::Bytes payload) {
  Flat m(payload);
  int64_t member, size;
  std::optional<uint32_t> mm_id;
  std::optional<bool> curr;
  if (event_id == pb::FtraceEvent::kRssStatFieldNumber) {
    using E = pb::RssStatFtraceEvent;
    member = m[E::kMemberFieldNumber].as_int32();
    size = m[E::kSizeFieldNumber].as_int64();
    if (m.has(E::kCurrFieldNumber)) curr = m[E::kCurrFieldNumber].as_bool();
    if (m.has(E::kMmIdFieldNumber)) mm_id = m[E::kMmIdFieldNumber].as_uint32();
  } else {
    using E = pb::RssStatThrottledFtraceEvent;
    member = m[E::kMemberFieldNumber].as_int32();
    size = m[E::kSizeFieldNumber].as_int64();
    if (m.has(E::kCurrFieldNumber)) curr = m[E::kCurrFieldNumber].as_bool();
    if (m.has(E::kMmIdFieldNumber)) mm_id = m[E::kMmIdFieldNumber].as_uint32();
  }
  if (member < 0 || member >= 5) {
    storage_->stats.Increment(Stat::kRssStatUnknownKeys);
    return;
  }
  if (size < 0) {
    storage_->stats.Increment(Stat::kRssStatNegativeSize);
    return;
  }
  ProcessTracker* pt = ctx_->process_tracker.get();
  std::optional<uint32_t> utid;
  // Without both mm_id and curr the event is the writing task's own (as
  // upstream: an mm_id alone does not name another task's mm).
  if (!mm_id || !curr) {
    utid = pt->GetOrCreateThread(pid);
  } else if (*curr) {
    // The mm belongs to the writing task: remember who owns this mm.
    utid = pt->GetOrCreateThread(pid);
    mm_id_to_utid_[*mm_id] = *utid;
  } else {
    // Updated from another task (reclaim, exit_mm...): use the last owner we
    // saw, unless that thread is gone.
    auto it = mm_id_to_utid_.find(*mm_id);
    if (it != mm_id_to_utid_.end()) {
      if (storage_->thread.end_ts.Get(it->second)) {
        mm_id_to_utid_.erase(it);
      } else {
        utid = it->second;
      }
    }
    // Upstream counts each such sample it cannot attribute.
    if (!utid) storage_->stats.Increment(Stat::kRssStatUnknownThreadForMmId);
  }
  if (!utid) return;
  PushProcessCounterForThread(ts, static_cast<double>(size), *utid, rss_names_[member],
                              process_memory_, process_memory_thread_fallback_, /*memory=*/true);
}

void FtraceParser::ParseIonStat(int64_t ts, uint32_t pid, proto::Bytes payload) {
  using E = pb::IonStatFtraceEvent;
  Flat m(payload);
  TrackTracker* tt = ctx_->track_tracker.get();
  tt->PushCounter(ts, static_cast<double>(m[E::kTotalAllocatedFieldNumber].as_uint64()),
                  tt->InternGlobalCounterTrack(mem_ion_));
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(pid);
  uint32_t row = tt->PushCounter(ts, static_cast<double>(m[E::kLenFieldNumber].as_int64()),
                                 tt->InternThreadCounterTrack(utid, mem_ion_change_));
  uint32_t set = BeginArgSet();
  AddIntArg(set, inode_key_, m[E::kBufferIdFieldNumber].as_uint32());
  storage_->counter.arg_set_id.Set(row, set);
}

void FtraceParser::ParseDmaHeapStat(int64_t ts, uint32_t pid, proto::Bytes payload) {
  using E = pb::DmaHeapStatFtraceEvent;
  Flat m(payload);
  TrackTracker* tt = ctx_->track_tracker.get();
  tt->PushCounter(
      ts, static_cast<double>(m[E::kTotalAllocatedFieldNumber].as_uint64()),
      tt->InternGlobalCounterTrack(mem_dma_heap_, storage_->Intern("android_dma_heap")));
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(pid);
  uint32_t row =
      tt->PushCounter(ts, static_cast<double>(m[E::kLenFieldNumber].as_int64()),
                      tt->InternThreadCounterTrack(utid, mem_dma_heap_change_,
                                                   storage_->Intern("android_dma_heap_change")));
  uint32_t set = BeginArgSet();
  AddIntArg(set, inode_key_, static_cast<int64_t>(m[E::kInodeFieldNumber].as_uint64()));
  storage_->counter.arg_set_id.Set(row, set);
  dma_buffers_->OnHeapStat(ts, m[E::kInodeFieldNumber].as_uint64(),
                           m[E::kLenFieldNumber].as_int64());
}

void FtraceParser::ParseOomScoreAdj(int64_t ts, proto::Bytes payload) {
  using E = pb::OomScoreAdjUpdateFtraceEvent;
  Flat m(payload);
  // int16: old tracers mis-encoded negative values (upstream b/120618641).
  auto adj = static_cast<int16_t>(m[E::kOomScoreAdjFieldNumber].as_int32());
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(m[E::kPidFieldNumber].as_int32());
  PushProcessCounterForThread(ts, adj, utid, oom_score_adj_, oom_score_adj_,
                              oom_score_adj_thread_fallback_);
}

void FtraceParser::ParseMarkVictim(int64_t ts, proto::Bytes payload) {
  using E = pb::MarkVictimFtraceEvent;
  Flat m(payload);
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(m[E::kPidFieldNumber].as_int32());
  ctx_->slice_tracker->Scoped(ts, ctx_->track_tracker->InternThreadTrack(utid), kNullStringId,
                              mem_oom_kill_, 0);
}

void FtraceParser::ParseLowmemoryKill(int64_t ts, proto::Bytes payload) {
  using E = pb::LowmemoryKillFtraceEvent;
  Flat m(payload);
  auto utid = ctx_->process_tracker->GetThreadOrNull(m[E::kPidFieldNumber].as_int32());
  if (!utid) return;
  auto args = ctx_->args_tracker->NewSet();
  args.AddString("comm", m[E::kCommFieldNumber].as_string());
  ctx_->slice_tracker->Scoped(ts, ctx_->track_tracker->InternThreadTrack(*utid), kNullStringId,
                              mem_lmk_, 0, args.Commit());
}

void FtraceParser::ParseMmEventRecord(int64_t ts, uint32_t pid, proto::Bytes payload) {
  using E = pb::MmEventRecordFtraceEvent;
  Flat m(payload);
  static const char* const kTypes[] = {"min_flt", "maj_flt", "read_io",   "compaction",
                                       "reclaim", "swp_flt", "kern_alloc"};
  uint32_t type = m[E::kTypeFieldNumber].as_uint32();
  if (type >= 7) return;
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(pid);
  auto upid = ctx_->process_tracker->GetUpidOfThread(utid);
  if (!upid) return;
  TrackTracker* tt = ctx_->track_tracker.get();
  std::string base = std::string("mem.mm.") + kTypes[type];
  tt->PushCounter(ts, m[E::kCountFieldNumber].as_uint32(),
                  tt->InternProcessCounterTrack(*upid, storage_->Intern(base + ".count")));
  tt->PushCounter(ts, m[E::kMaxLatFieldNumber].as_uint32(),
                  tt->InternProcessCounterTrack(*upid, storage_->Intern(base + ".max_lat")));
  tt->PushCounter(ts, m[E::kAvgLatFieldNumber].as_uint32(),
                  tt->InternProcessCounterTrack(*upid, storage_->Intern(base + ".avg_lat")));
}

// ---- syscalls ------------------------------------------------------------------

std::optional<StringId> FtraceParser::SyscallName(int64_t id) {
  // Numbers past the kernel's table size are not syscalls: no slice.
  if (id < 0 || id >= kMaxSyscalls) return std::nullopt;
  SyncSystemInfo();
  if (syscall_names_.empty()) syscall_names_.assign(kMaxSyscalls, kNullStringId);
  StringId& cached = syscall_names_[static_cast<size_t>(id)];
  if (cached != kNullStringId) return cached;
  SyscallTable table = GetSyscallTable(syscall_arch_);
  size_t nr = static_cast<size_t>(id);
  const char* name = nr < table.size ? table.names[nr] : nullptr;
  cached = storage_->Intern(name ? std::string("sys_") + name : "sys_" + std::to_string(id));
  return cached;
}

void FtraceParser::ParseFuncgraph(int64_t ts, uint32_t pid, proto::Bytes payload, bool entry) {
  // Both events carry `func` (field 2 in entry and exit): an interned kernel
  // symbol id of the bundle's sequence.
  uint64_t func = 0;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if ((entry && f.id == pb::FuncgraphEntryFtraceEvent::kFuncFieldNumber) ||
        (!entry && f.id == pb::FuncgraphExitFtraceEvent::kFuncFieldNumber))
      func = f.int_value;
  }
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(pid);
  uint32_t track = ctx_->track_tracker->InternThreadTrack(utid);
  if (!entry) {
    ctx_->slice_tracker->End(ts, track);
    return;
  }
  StringId name = kNullStringId;
  if (current_generation_) {
    if (const proto::Bytes* sym =
            current_generation_->GetInterned(pb::InternedData::kKernelSymbolsFieldNumber, func)) {
      proto::Decoder sd(*sym);
      for (proto::Field f = sd.Next(); f.valid(); f = sd.Next())
        if (f.id == pb::InternedString::kStrFieldNumber) name = storage_->Intern(f.as_string());
    }
  }
  if (name == kNullStringId) {
    storage_->stats.Increment(Stat::kInternedDataErrors);
    name = storage_->Intern("0x" + [&] {
      char b[24];
      snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(func));
      return std::string(b);
    }());
  }
  ctx_->slice_tracker->Begin(ts, track, kNullStringId, name);
}

void FtraceParser::ParseSysEnter(int64_t ts, uint32_t pid, proto::Bytes payload) {
  using E = pb::SysEnterFtraceEvent;
  int64_t id = 0;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id == E::kIdFieldNumber) id = f.as_int64();
  auto name = SyscallName(id);
  if (!name) return;
  saw_syscall_ = true;
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(pid);
  ctx_->slice_tracker->Begin(ts, ctx_->track_tracker->InternThreadTrack(utid), kNullStringId,
                             *name);
}

void FtraceParser::ParseSysExit(int64_t ts, uint32_t pid, proto::Bytes payload) {
  using E = pb::SysExitFtraceEvent;
  Flat m(payload);
  auto name = SyscallName(m[E::kIdFieldNumber].as_int64());
  if (!name) return;
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(pid);
  // Named end: an exit whose enter was truncated by an atrace marker (or lost)
  // must not close an unrelated slice.
  ctx_->slice_tracker->End(ts, ctx_->track_tracker->InternThreadTrack(utid), kNullStringId, *name);
}

// ---- binder --------------------------------------------------------------------

// BinderTracker places the slices and gives them the events' fields as args.

void FtraceParser::ParseBinderTransaction(int64_t ts, uint32_t pid, proto::Bytes payload) {
  using E = pb::BinderTransactionFtraceEvent;
  Flat m(payload);
  BinderTxnFields t;
  t.debug_id = m[E::kDebugIdFieldNumber].as_int32();
  t.dest_node = m[E::kTargetNodeFieldNumber].as_int32();
  t.dest_proc = m[E::kToProcFieldNumber].as_int32();
  t.dest_thread = m[E::kToThreadFieldNumber].as_int32();
  t.is_reply = m[E::kReplyFieldNumber].as_int32() != 0;
  t.flags = m[E::kFlagsFieldNumber].as_uint32();
  t.code = m[E::kCodeFieldNumber].as_uint32();
  t.calling_tid = pid;
  binder_.Transaction(ts, t);
}

void FtraceParser::ParseBinderTransactionReceived(int64_t ts, uint32_t pid, proto::Bytes payload) {
  using E = pb::BinderTransactionReceivedFtraceEvent;
  Flat m(payload);
  binder_.TransactionReceived(ts, pid, m[E::kDebugIdFieldNumber].as_int32());
}

void FtraceParser::ParseBinderCommand(uint32_t pid, proto::Bytes payload) {
  Flat m(payload);
  binder_.Command(pid, m[pb::BinderCommandFtraceEvent::kCmdFieldNumber].as_uint32());
}

void FtraceParser::ParseBinderReturn(int64_t ts, uint32_t pid, proto::Bytes payload) {
  Flat m(payload);
  binder_.Return(ts, pid, m[pb::BinderReturnFtraceEvent::kCmdFieldNumber].as_uint32());
}

// ---- generic events -------------------------------------------------------------

void FtraceParser::ParseGenericFtrace(int64_t ts, uint32_t cpu, uint32_t pid,
                                      proto::Bytes payload) {
  // Events the tracer had no proto for: the name travels in the event and
  // each field carries its own type. Like upstream, unsigned values are
  // stored as (signed) ints and a field without a value is left out.
  using E = pb::GenericFtraceEvent;
  using F = pb::GenericFtraceEvent::Field;
  std::string_view event_name;
  auto args = ctx_->args_tracker->NewSet();
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == E::kEventNameFieldNumber) {
      event_name = f.as_string();
    } else if (f.id == E::kFieldFieldNumber) {
      std::string_view name;
      std::optional<int64_t> int_value;
      std::optional<std::string_view> str_value;
      proto::Decoder fd(f.bytes);
      for (proto::Field v = fd.Next(); v.valid(); v = fd.Next()) {
        switch (v.id) {
          case F::kNameFieldNumber:
            name = v.as_string();
            break;
          case F::kIntValueFieldNumber:
          case F::kUintValueFieldNumber:
            int_value = v.as_int64();
            break;
          case F::kStrValueFieldNumber:
            str_value = v.as_string();
            break;
        }
      }
      if (fd.error()) {
        storage_->stats.Increment(Stat::kFtraceParseErrors);
        continue;
      }
      if (int_value) {
        args.AddInt(name, *int_value);
      } else if (str_value) {
        args.AddString(name, *str_value);
      }
    }
  }
  if (d.error()) {
    storage_->stats.Increment(Stat::kFtraceParseErrors);
    return;
  }
  tables_.RawEvent(ts, storage_->Intern(event_name), cpu, Utid(pid), args.Commit(), std::nullopt);
}

}  // namespace fathom
