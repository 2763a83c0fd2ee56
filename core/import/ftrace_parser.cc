#include "core/import/ftrace_parser.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "core/import/adreno_cmdbatch_tracker.h"
#include "core/import/args_tracker.h"
#include "core/import/dma_buffer_tracker.h"
#include "core/import/f2fs_iostat_parser.h"
#include "core/import/ftrace_clock_events.h"
#include "core/import/ftrace_cma_tracker.h"
#include "core/import/ftrace_device_events.h"
#include "core/import/ftrace_io_events.h"
#include "core/import/ftrace_pkvm_events.h"
#include "core/import/ftrace_suspend_resume.h"
#include "core/import/generic_kernel_parser.h"
#include "core/import/process_memory_tracks.h"
#include "core/import/process_tracker.h"
#include "core/import/track_tracker.h"
#include "perfetto/trace/ftrace/ftrace_event_bundle.pb.h"

namespace fathom {

using perfetto::protos::FtraceEvent;
using perfetto::protos::SchedBlockedReasonFtraceEvent;
using perfetto::protos::SchedSwitchFtraceEvent;
using perfetto::protos::SchedWakingFtraceEvent;

namespace {
// The args table's deferred sets: created with the first parser on a storage
// and kept by later ones (sets already deferred stay valid).
FtraceRawArgs* RawArgsOf(TraceStorage* storage) {
  if (auto* raw = dynamic_cast<FtraceRawArgs*>(storage->args.deferred())) return raw;
  auto raw = std::make_unique<FtraceRawArgs>(storage);
  FtraceRawArgs* p = raw.get();
  storage->args.SetDeferred(std::move(raw));
  return p;
}
}  // namespace

FtraceParser::FtraceParser(TraceContext* ctx)
    : ctx_(ctx),
      storage_(ctx->storage.get()),
      raw_args_(RawArgsOf(ctx->storage.get())),
      descriptors_(raw_args_->descriptors()),
      tables_(ctx->storage.get(), raw_args_),
      task_state_cache_(1u << 16, kNullStringId),
      cma_(std::make_unique<CmaAllocTracker>(ctx)),
      dma_buffers_(std::make_unique<DmaBufferTracker>(ctx)),
      atrace_async_(std::make_unique<AtraceAsyncTracks>(ctx)),
      binder_(ctx) {
  TraceStorage* s = storage_;
  const FtraceEventInfo* ss = descriptors_.Get(FtraceEvent::kSchedSwitchFieldNumber);
  const FtraceEventInfo* sw = descriptors_.Get(FtraceEvent::kSchedWakingFieldNumber);
  sched_switch_name_ = ss->name;
  sched_waking_name_ = sw->name;
  type_int_ = s->Intern("int");
  type_uint_ = s->Intern("uint");
  type_string_ = s->Intern("string");
  type_real_ = s->Intern("real");
  arg_type_int_ = s->args.ResolveType(type_int_, ArgsTable::kIntKind);
  arg_type_uint_ = s->args.ResolveType(type_uint_, ArgsTable::kIntKind);
  arg_type_string_ = s->args.ResolveType(type_string_, ArgsTable::kStringKind);
  arg_type_null_string_ = s->args.ResolveType(type_string_, ArgsTable::kNullKind);
  arg_type_real_ = s->args.ResolveType(type_real_, ArgsTable::kRealKind);
  cpufreq_ = s->Intern("cpufreq");
  cpu_frequency_ = s->Intern("cpu_frequency");
  cpuidle_ = s->Intern("cpuidle");
  cpu_idle_ = s->Intern("cpu_idle");
  gpufreq_ = s->Intern("gpufreq");
  gpu_frequency_ = s->Intern("gpu_frequency");
  sys_write_ = s->Intern("sys_write");
  mem_lmk_ = s->Intern("mem.lmk");
  mem_oom_kill_ = s->Intern("mem.oom_kill");
  oom_score_adj_ = s->Intern("oom_score_adj");
  screen_state_ = s->Intern("ScreenState");
  mem_ion_ = s->Intern("mem.ion");
  mem_ion_change_ = s->Intern("mem.ion_change");
  mem_dma_heap_ = s->Intern("mem.dma_heap");
  atrace_counter_ = s->Intern("atrace_counter");
  atrace_async_slice_ = s->Intern("atrace_async_slice");
  process_memory_ = s->Intern("process_memory");
  process_memory_thread_fallback_ = s->Intern("process_memory_thread_fallback");
  oom_score_adj_thread_fallback_ = s->Intern("oom_score_adj_thread_fallback");
  mem_dma_heap_change_ = s->Intern("mem.dma_heap_change");
  inode_key_ = s->Intern("inode");
  const char* rss[] = {"mem.rss.file", "mem.rss.anon", "mem.swap", "mem.rss.shmem",
                       "mem.unreclaimable"};
  for (int i = 0; i < 5; ++i) rss_names_[i] = s->Intern(rss[i]);
  pending_.reserve(64);
}

FtraceParser::~FtraceParser() = default;

void FtraceParser::ParseGenericKernelPacket(int64_t ts, uint32_t field_id, proto::Bytes payload) {
  if (!generic_kernel_) generic_kernel_.reset(new GenericKernelParser(ctx_, &tables_));
  generic_kernel_->ParsePacket(ts, field_id, payload);
}

// ---- setup -----------------------------------------------------------------

void FtraceParser::OnSystemInfo(std::string_view release, std::string_view machine) {
  int major = 0, minor = 0;
  if (!release.empty() && sscanf(std::string(release).c_str(), "%d.%d", &major, &minor) == 2) {
    kernel_version_ = std::make_pair(major, minor);
    std::fill(task_state_cache_.begin(), task_state_cache_.end(), kNullStringId);
  }
  if (!machine.empty()) {
    machine_known_ = true;
    syscall_arch_ = SyscallArchFromMachine(machine);
    syscall_names_.clear();
  }
}

void FtraceParser::OnBundlePreviousEnd(uint32_t cpu, int64_t ts) {
  if (cpu >= cpu_seen_bundle_.size()) cpu_seen_bundle_.resize(cpu + 1, 0);
  if (cpu_seen_bundle_[cpu]) return;
  cpu_seen_bundle_[cpu] = 1;
  if (ts > soft_drop_before_ts_) soft_drop_before_ts_ = ts;
}

void FtraceParser::ReserveTables() {
  // Reserving from the file size avoids re-copying the biggest columns as
  // they double (a large share of load time on sched-heavy traces). Untouched
  // reserved pages cost no resident memory; the cap bounds the address space.
  uint64_t bytes = std::min<uint64_t>(ctx_->trace_size_bytes, uint64_t{1} << 30);
  if (bytes < (uint64_t{1} << 20)) return;
  // (No args: the raw events' args are deferred, see FtraceRawArgs.)
  storage_->sched.ReserveRows(bytes / 60);
  ReserveWorkerTables();
}

void FtraceParser::ReserveWorkerTables() {
  // Once: the table worker may be appending rows after the first call.
  if (worker_tables_reserved_) return;
  worker_tables_reserved_ = true;
  uint64_t bytes = std::min<uint64_t>(ctx_->trace_size_bytes, uint64_t{1} << 30);
  if (bytes < (uint64_t{1} << 20)) return;
  raw_args_->Reserve(bytes / 60, bytes / 60);
  storage_->ftrace_event.ReserveRows(bytes / 20);
  storage_->thread_state.ReserveRows(bytes / 30);
}

void FtraceParser::StartTableWorker() {
  // Reserve now, on this thread: growing the columns later would race the worker.
  ReserveWorkerTables();
  tables_.StartWorker();
}

void FtraceParser::MaybeOnFirstEvent() {
  if (seen_first_event_) return;
  seen_first_event_ = true;
  ReserveTables();
}

void FtraceParser::SyncSystemInfo() {
  // SystemInfo lands in the metadata table (system_release/system_machine);
  // rescan only when that table grew and something is still unknown.
  const MetadataTable& md = storage_->metadata;
  if (md.row_count() == metadata_rows_seen_) return;
  metadata_rows_seen_ = md.row_count();
  if (kernel_version_ && machine_known_) return;
  std::string_view release, machine;
  for (uint32_t i = 0; i < md.row_count(); ++i) {
    if (md.str_value[i] == kNullStringId) continue;
    std::string_view name = storage_->GetString(md.name[i]);
    if (name == "system_release") release = storage_->GetString(md.str_value[i]);
    if (name == "system_machine") machine = storage_->GetString(md.str_value[i]);
  }
  if (!kernel_version_ && !release.empty()) OnSystemInfo(release, "");
  if (!machine_known_ && !machine.empty()) OnSystemInfo("", machine);
}

// ---- raw args ----------------------------------------------------------------

uint32_t FtraceParser::BeginArgSet() { return ctx_->args_tracker->AllocateArgSetId(); }

uint32_t FtraceParser::Utid(int64_t tid) {
  ProcessTracker* pt = ctx_->process_tracker.get();
  if (tid >= 0 && tid < (1 << 22)) {
    if (static_cast<size_t>(tid) >= utid_cache_.size())
      utid_cache_.resize(static_cast<size_t>(tid) + 1024);
    UtidCacheEntry& e = utid_cache_[static_cast<size_t>(tid)];
    // Same tracker generation: GetOrCreateThread would find the same thread.
    if (e.epoch == pt->generation()) return e.utid;
    uint32_t utid = pt->GetOrCreateThread(tid);
    e.utid = utid;
    e.epoch = pt->generation();
    return utid;
  }
  return pt->GetOrCreateThread(tid);
}

uint32_t FtraceParser::UpdateThreadCached(int64_t tid, int64_t tgid) {
  ProcessTracker* pt = ctx_->process_tracker.get();
  if (pt->has_pending_associations()) return pt->UpdateThread(tid, tgid);
  uint64_t key = static_cast<uint64_t>(tid) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(tgid);
  TgidCacheEntry& e = tgid_cache_[(key >> 54) & (kTgidCacheSize - 1)];
  if (e.generation == pt->generation() && e.tid == tid && e.tgid == tgid) return e.utid;
  uint32_t utid = pt->UpdateThread(tid, tgid);
  // Only cache a state UpdateThread leaves alone: repeating the call right
  // now would find the same thread and change nothing.
  if (!pt->has_pending_associations()) e = {pt->generation(), tid, tgid, utid};
  return utid;
}

StringId FtraceParser::InternComm(uint32_t utid, std::string_view comm) {
  if (utid >= comm_cache_.size()) comm_cache_.resize(utid + 1 + utid / 2, kNullStringId);
  StringId cached = comm_cache_[utid];
  if (cached != kNullStringId && storage_->GetString(cached) == comm) return cached;
  StringId id = storage_->Intern(comm);
  comm_cache_[utid] = id;
  return id;
}

void FtraceParser::AddRawEvent(int64_t ts, uint32_t cpu, uint32_t utid, uint32_t event_id,
                               proto::Bytes payload, std::optional<uint32_t> common_flags) {
  const FtraceEventInfo* info = descriptors_.Get(event_id);
  // An event our protos don't know has no name to file it under: upstream
  // skips it too.
  if (!info) return;
  if (!FtraceRawArgs::HasArgs(*info, payload))
    return tables_.RawEvent(ts, info->name, cpu, utid, std::nullopt, common_flags);
  uint32_t set = BeginArgSet();
  // Payloads from the proto tokenizer (current_generation_ set) stay in its
  // buffers, which RetainPayloads() keeps: decode them when read.
  if (current_generation_ && FtraceRawArgs::CanDefer(event_id, payload))
    return tables_.RawEventDeferred(ts, info->name, cpu, utid, set, common_flags, event_id,
                                    payload);
  raw_args_->WriteEventArgs(set, *info, payload, &storage_->args);
  tables_.RawEvent(ts, info->name, cpu, utid, set, common_flags);
}

// ---- dispatch ------------------------------------------------------------------

void FtraceParser::ParseFtraceEvent(int64_t ts, uint32_t cpu, proto::Bytes event,
                                    const SequenceGeneration* gen, bool from_text) {
  current_generation_ = gen;
  MaybeOnFirstEvent();
  storage_->UpdateBounds(ts);
  uint32_t pid = 0;
  bool has_pid = false;
  std::optional<uint32_t> common_flags;
  uint32_t event_id = 0;
  proto::Bytes payload;
  proto::Decoder d(event);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case FtraceEvent::kTimestampFieldNumber:
        break;
      case FtraceEvent::kPidFieldNumber:
        pid = f.as_uint32();
        has_pid = true;
        break;
      case FtraceEvent::kCommonFlagsFieldNumber:
        common_flags = f.as_uint32();
        break;
      default:
        if (f.type == proto::WireType::kLengthDelimited && event_id == 0) {
          event_id = f.id;
          payload = f.bytes;
        }
    }
  }
  // The hypervisor's events come from no task: upstream keeps them on pid 0.
  if (!has_pid && IsPkvmHypEvent(event_id)) has_pid = true;
  if (d.error() || event_id == 0 || !has_pid) {
    storage_->stats.Increment(Stat::kFtraceParseErrors);
    return;
  }
  if (event_id == FtraceEvent::kGenericFieldNumber) {
    // Named by its payload, not by a descriptor (as upstream, kept before
    // the soft drop like every raw row).
    ParseGenericFtrace(ts, cpu, pid, payload);
  } else if (event_id != FtraceEvent::kSchedSwitchFieldNumber && !from_text) {
    // sched_switch writes its own raw row (its utid is prev's, not pid's).
    AddRawEvent(ts, cpu, Utid(pid), event_id, payload, common_flags);
  }
  // Before every CPU's buffer covers the timeline only the raw row is kept:
  // a begin seen here could have its end lost on another CPU.
  if (ts < soft_drop_before_ts_) return;
  DispatchEvent(ts, cpu, pid, event_id, payload);
}

void FtraceParser::DispatchEvent(int64_t ts, uint32_t cpu, uint32_t pid, uint32_t event_id,
                                 proto::Bytes p) {
  switch (event_id) {
    case FtraceEvent::kSchedSwitchFieldNumber:
      return ParseSchedSwitch(ts, cpu, p);
    case FtraceEvent::kFuncgraphEntryFieldNumber:
      return ParseFuncgraph(ts, pid, p, true);
    case FtraceEvent::kFuncgraphExitFieldNumber:
      return ParseFuncgraph(ts, pid, p, false);
    // Only sched_waking makes a thread runnable: upstream keeps sched_wakeup
    // and sched_wakeup_new as raw rows alone (no thread, name or state).
    case FtraceEvent::kSchedWakingFieldNumber:
      return ParseSchedWaking(ts, pid, p);
    case FtraceEvent::kSchedBlockedReasonFieldNumber:
      return ParseSchedBlockedReason(p);
    case FtraceEvent::kSchedProcessFreeFieldNumber:
      return ParseSchedProcessFree(ts, p);
    case FtraceEvent::kTaskNewtaskFieldNumber:
      return ParseTaskNewtask(ts, pid, p);
    case FtraceEvent::kTaskRenameFieldNumber:
      return ParseTaskRename(p);
    case FtraceEvent::kCpuFrequencyFieldNumber:
      return ParseCpuFrequency(ts, p);
    case FtraceEvent::kCpuIdleFieldNumber:
      return ParseCpuIdle(ts, p);
    case FtraceEvent::kGpuFrequencyFieldNumber:
      return ParseGpuFrequency(ts, p);
    case FtraceEvent::kPrintFieldNumber:
      return ParsePrint(ts, pid, p);
    case FtraceEvent::kTracingMarkWriteFieldNumber:
    case FtraceEvent::kSdeTracingMarkWriteFieldNumber:
    case FtraceEvent::kDpuTracingMarkWriteFieldNumber:
    case FtraceEvent::kG2DTracingMarkWriteFieldNumber:
    case FtraceEvent::kMaliTracingMarkWriteFieldNumber:
    case FtraceEvent::kSamsungTracingMarkWriteFieldNumber:
      return ParseKernelTracingMark(ts, pid, event_id, p);
    case FtraceEvent::kRssStatFieldNumber:
    case FtraceEvent::kRssStatThrottledFieldNumber:
      return ParseRssStat(ts, pid, event_id, p);
    case FtraceEvent::kIonStatFieldNumber:
      return ParseIonStat(ts, pid, p);
    case FtraceEvent::kDmaHeapStatFieldNumber:
      return ParseDmaHeapStat(ts, pid, p);
    case FtraceEvent::kOomScoreAdjUpdateFieldNumber:
      return ParseOomScoreAdj(ts, p);
    case FtraceEvent::kMarkVictimFieldNumber:
      return ParseMarkVictim(ts, p);
    case FtraceEvent::kLowmemoryKillFieldNumber:
      return ParseLowmemoryKill(ts, p);
    case FtraceEvent::kMmEventRecordFieldNumber:
      return ParseMmEventRecord(ts, pid, p);
    case FtraceEvent::kSysEnterFieldNumber:
      return ParseSysEnter(ts, pid, p);
    case FtraceEvent::kSysExitFieldNumber:
      return ParseSysExit(ts, pid, p);
    case FtraceEvent::kSchedCpuUtilCfsFieldNumber:
      return ParseSchedCpuUtilCfs(ts, p);
    case FtraceEvent::kThermalExynosAcpmBulkFieldNumber:
      return ParseThermalExynosBulk(p);
    case FtraceEvent::kBinderTransactionFieldNumber:
      return ParseBinderTransaction(ts, pid, p);
    case FtraceEvent::kBinderTransactionReceivedFieldNumber:
      return ParseBinderTransactionReceived(ts, pid, p);
    case kF2fsIostatFieldNumber:
      return ParseF2fsIostat(ctx_, ts, p);
    case kClockEnableFieldNumber:
    case kClockDisableFieldNumber:
    case kClockSetRateFieldNumber:
      return ParseClockEvent(ctx_, ts, event_id, p);
    case kHypEnterFieldNumber:
    case kHypExitFieldNumber:
    case kHostHcallFieldNumber:
    case kHostSmcFieldNumber:
    case kHostMemAbortFieldNumber:
      return ParsePkvmEvent(ctx_, ts, cpu, event_id, p);
    case kF2fsIostatLatencyFieldNumber:
      return ParseF2fsIostatLatency(ctx_, ts, p);
    case FtraceEvent::kBinderCommandFieldNumber:
      return ParseBinderCommand(pid, p);
    case FtraceEvent::kBinderReturnFieldNumber:
      return ParseBinderReturn(ts, pid, p);
    default:
      if (CmaAllocTracker::Handles(event_id)) {
        SyncSystemInfo();  // the kernel version decides which event ends the slice
        cma_->OnEvent(event_id, ts, pid, p, kernel_version_);
      } else if (FtraceDeviceEvents::Handles(event_id)) {
        if (!device_events_) device_events_ = std::make_unique<FtraceDeviceEvents>(ctx_);
        device_events_->Parse(ts, cpu, pid, event_id, p);
      } else if (FtraceIoEvents::Handles(event_id)) {
        if (!io_events_) io_events_ = std::make_unique<FtraceIoEvents>(ctx_);
        io_events_->Parse(ts, cpu, pid, event_id, p);
      } else if (FtraceSuspendResume::Handles(event_id)) {
        if (!suspend_resume_) suspend_resume_ = std::make_unique<FtraceSuspendResume>(ctx_);
        suspend_resume_->Parse(ts, cpu, pid, event_id, p);
      } else if (AdrenoCmdbatchTracker::Handles(event_id)) {
        if (!adreno_) adreno_ = std::make_unique<AdrenoCmdbatchTracker>(ctx_);
        adreno_->Parse(ts, pid, event_id, p);
      }
      return;
  }
}

// ---- scheduling ------------------------------------------------------------------

StringId FtraceParser::TaskStateString(int64_t raw_state) {
  SyncSystemInfo();
  // Upstream keeps only the low 16 bits.
  uint16_t raw = static_cast<uint16_t>(raw_state);
  StringId& cached = task_state_cache_[raw];
  if (cached != kNullStringId) return cached - 1;

  // Flags up to 0x20 (EXIT_ZOMBIE) never changed between kernels.
  enum : uint32_t {
    kS = 1,
    kD = 2,
    kT = 4,
    kt = 8,
    kX = 0x10,
    kZ = 0x20,
    kParked = 1 << 6,
    kDead = 1 << 7,
    kWakeKill = 1 << 8,
    kWaking = 1 << 9,
    kNoLoad = 1 << 10,
    kIdle = 1 << 11,
    kPreempted = 1 << 12,
    kInvalid = 1 << 15
  };
  uint32_t parsed = raw & 0x3f;
  auto version = kernel_version_.value_or(std::make_pair(4, 4));
  if (version >= std::make_pair(4, 14)) {
    if (raw & 0x40) parsed |= kParked;
    if (raw & 0x80) parsed |= kIdle;
    if (raw & 0x100) parsed |= kPreempted;
    if (raw & 0xfe00) parsed = kInvalid;
  } else {
    if (raw & 0x40) parsed |= kDead;
    if (raw & 0x80) parsed |= kWakeKill;
    if (raw & 0x100) parsed |= kWaking;
    if (raw & 0x200) parsed |= kParked;
    if (raw & 0x400) parsed |= kNoLoad;
    if (parsed == (kD | kNoLoad)) parsed = kIdle;
    uint32_t preempt_bit = version >= std::make_pair(4, 8) ? 0x1000 : 0x800;
    if (raw & preempt_bit) parsed |= kPreempted;
  }
  StringId id = kNullStringId;
  if (!(parsed & kInvalid)) {
    char buf[32];
    size_t n = 0;
    if ((parsed & ~kPreempted) == 0) {
      buf[n++] = 'R';
      if (parsed & kPreempted) buf[n++] = '+';
    } else {
      struct {
        uint32_t flag;
        char c;
      } const kChars[] = {{kS, 'S'},        {kD, 'D'},      {kT, 'T'},      {kt, 't'},
                          {kX, 'X'},        {kZ, 'Z'},      {kParked, 'P'}, {kDead, 'x'},
                          {kWakeKill, 'K'}, {kWaking, 'W'}, {kNoLoad, 'N'}, {kIdle, 'I'}};
      for (const auto& fc : kChars)
        if (parsed & fc.flag) buf[n++] = fc.c;
    }
    id = storage_->Intern(std::string_view(buf, n));
  }
  cached = id + 1;
  return id;
}

void FtraceParser::OnTextLineTask(int64_t tid, std::string_view comm, std::optional<int64_t> tgid) {
  // "<...>" is the kernel's placeholder for a comm it no longer knows: it
  // names nothing (upstream keeps the thread's name).
  if (tid != 0 && comm != "<...>") UpdateThreadFromFtrace(tid, InternComm(Utid(tid), comm));
  if (tgid) UpdateThreadCached(tid, *tgid);
}

uint32_t FtraceParser::UpdateThreadFromFtrace(int64_t tid, StringId comm) {
  uint32_t utid = Utid(tid);
  if (comm == kNullStringId || storage_->thread.name[utid] == comm) return utid;
  // ftrace priority: a comm never overrides a process-tree or descriptor
  // name, and the latest comm wins among ftrace names.
  ctx_->process_tracker->UpdateThreadName(utid, comm, ThreadNamePriority::kFtrace);
  return utid;
}

void FtraceParser::ParseSchedSwitch(int64_t ts, uint32_t cpu, proto::Bytes payload) {
  using SS = SchedSwitchFtraceEvent;
  int64_t prev_pid = 0, next_pid = 0, prev_state = 0;
  int32_t prev_prio = 0, next_prio = 0;
  std::string_view prev_comm, next_comm;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case SS::kPrevCommFieldNumber:
        prev_comm = f.as_string();
        break;
      case SS::kPrevPidFieldNumber:
        prev_pid = f.as_int32();
        break;
      case SS::kPrevPrioFieldNumber:
        prev_prio = f.as_int32();
        break;
      case SS::kPrevStateFieldNumber:
        prev_state = f.as_int64();
        break;
      case SS::kNextCommFieldNumber:
        next_comm = f.as_string();
        break;
      case SS::kNextPidFieldNumber:
        next_pid = f.as_int32();
        break;
      case SS::kNextPrioFieldNumber:
        next_prio = f.as_int32();
        break;
    }
  }
  if (ts < sched_max_ts_) {
    storage_->stats.Increment(Stat::kSchedSwitchOutOfOrder);
    return;
  }
  sched_max_ts_ = ts;
  StringId next_comm_id = InternComm(Utid(next_pid), next_comm);
  uint32_t next_utid = UpdateThreadFromFtrace(next_pid, next_comm_id);
  // prev_comm can differ from the previous next_comm (renamed while running).
  StringId prev_comm_id = InternComm(Utid(prev_pid), prev_comm);
  uint32_t prev_utid = UpdateThreadFromFtrace(prev_pid, prev_comm_id);
  PushSchedSwitch(ts, cpu, prev_pid, prev_comm_id, prev_prio, prev_state, prev_utid, next_pid,
                  next_comm_id, next_prio, next_utid);
}

void FtraceParser::PushSchedSwitch(int64_t ts, uint32_t cpu, int64_t prev_pid, StringId prev_comm,
                                   int32_t prev_prio, int64_t prev_state, uint32_t prev_utid,
                                   int64_t next_pid, StringId next_comm, int32_t next_prio,
                                   uint32_t next_utid) {
  PendingSched& pending = Pending(cpu);
  StringId state = TaskStateString(prev_state);
  if (pending.slice_row != kNone) {
    if (prev_pid == pending.last_pid) {
      auto& sched = storage_->sched;
      sched.dur.Set(pending.slice_row, ts - sched.ts[pending.slice_row]);
      sched.end_state.Set(pending.slice_row, state);
    } else {
      storage_->stats.Increment(Stat::kMismatchedSchedSwitchTids);
    }
  }

  // Raw row, args in proto field order (the raw table's contract).
  // (Written when the args table is read: FtraceRawArgs.)
  // Then the thread states.
  uint32_t set = BeginArgSet();
  tables_.SchedSwitch(ts, cpu, sched_switch_name_, set,
                      {prev_comm, next_comm, static_cast<int32_t>(prev_pid), prev_prio,
                       static_cast<int32_t>(next_pid), next_prio, prev_state},
                      prev_utid, state, next_utid);

  pending.slice_row = storage_->sched.Insert(ts, -1, cpu, next_utid, kNullStringId, next_prio);
  pending.last_pid = next_pid;
  pending.last_utid = next_utid;
  pending.last_prio = next_prio;
}

void FtraceParser::ParseCompactSwitch(int64_t ts, uint32_t cpu, const CompactSwitchRecord& r) {
  MaybeOnFirstEvent();
  if (ts < sched_max_ts_) {
    storage_->stats.Increment(Stat::kSchedSwitchOutOfOrder);
    return;
  }
  sched_max_ts_ = ts;
  uint32_t next_utid = UpdateThreadFromFtrace(r.next_pid, r.next_comm);
  PendingSched& pending = Pending(cpu);
  if (pending.last_utid == kNone) {
    // No prev_* fields in compact form: the first switch only primes them.
    // No row at all, so it does not extend the trace bounds either.
    storage_->stats.Increment(Stat::kCompactSchedSwitchSkipped);
    pending.last_pid = r.next_pid;
    pending.last_utid = next_utid;
    pending.last_prio = r.next_prio;
    return;
  }
  storage_->UpdateBounds(ts);
  if (ts < soft_drop_before_ts_) {
    // Only the raw row before all buffers are valid; keep tracking who runs.
    pending.last_pid = r.next_pid;
    pending.last_utid = next_utid;
    pending.last_prio = r.next_prio;
    return;
  }
  uint32_t prev_utid = pending.last_utid;
  // Fresh lookup: the task may have been renamed while running.
  StringId prev_comm = storage_->thread.name[prev_utid];
  // The compact form has no prev_pid: it is the previous next_pid, so the
  // pid check in PushSchedSwitch always passes.
  PushSchedSwitch(ts, cpu, pending.last_pid, prev_comm, pending.last_prio, r.prev_state, prev_utid,
                  r.next_pid, r.next_comm, r.next_prio, next_utid);
}

void FtraceParser::ParseCompactWaking(int64_t ts, uint32_t cpu, const CompactWakingRecord& r) {
  MaybeOnFirstEvent();
  if (ts < sched_max_ts_) {
    storage_->stats.Increment(Stat::kSchedSwitchOutOfOrder);
    return;
  }
  sched_max_ts_ = ts;
  // The waker is whoever runs on this CPU, known only from sched_switch.
  PendingSched& pending = Pending(cpu);
  if (pending.last_utid == kNone) {
    storage_->stats.Increment(Stat::kCompactSchedWakingSkipped);
    return;
  }
  storage_->UpdateBounds(ts);
  uint32_t waker_utid = pending.last_utid;
  uint32_t set = BeginArgSet();
  std::optional<uint32_t> flags;
  if (r.has_common_flags) flags = r.common_flags;
  // The raw row always; the wakee's state only once every buffer is valid.
  std::optional<uint32_t> wakee;
  if (ts >= soft_drop_before_ts_) wakee = Utid(r.pid);
  tables_.CompactWaking(ts, cpu, sched_waking_name_, set, {r.comm, r.pid, r.prio, r.target_cpu},
                        waker_utid, flags, wakee);
}

void FtraceParser::ParseSchedWaking(int64_t ts, uint32_t pid, proto::Bytes payload) {
  using SW = SchedWakingFtraceEvent;
  int64_t wakee_pid = 0;
  std::string_view comm;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == SW::kPidFieldNumber) wakee_pid = f.as_int32();
    if (f.id == SW::kCommFieldNumber) comm = f.as_string();
  }
  uint32_t wakee = UpdateThreadFromFtrace(wakee_pid, InternComm(Utid(wakee_pid), comm));
  uint32_t waker = Utid(pid);
  tables_.PushWaking(ts, wakee, waker);
}

void FtraceParser::ParseSchedBlockedReason(proto::Bytes payload) {
  using BR = SchedBlockedReasonFtraceEvent;
  int64_t pid = 0;
  std::optional<bool> io_wait;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == BR::kPidFieldNumber) pid = f.as_int32();
    if (f.id == BR::kIoWaitFieldNumber) io_wait = f.as_bool();
  }
  // blocked_function needs the kernel symbol table (InternedData
  // kernel_symbols), which the sorted event does not carry yet.
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(pid);
  tables_.PushBlockedReason(utid, io_wait, kNullStringId);
}

void FtraceParser::OnImportFinished() {
  // Open sched slices and thread states keep dur -1, as upstream.
  if (adreno_) adreno_->Flush();
  ResolvePendingProcessCounters();
}

void FtraceParser::PushProcessCounterForThread(int64_t ts, double value, uint32_t utid,
                                               StringId name, StringId type, StringId fallback_type,
                                               bool memory) {
  uint32_t row = ctx_->track_tracker->PushCounter(ts, value, 0);  // track set at the end
  pending_process_counters_.push_back({row, utid, name, type, fallback_type, memory});
}

void FtraceParser::ResolvePendingProcessCounters() {
  // In sample order, so the tracks are numbered as upstream's. A thread
  // whose process never became known keeps its samples on a thread track.
  TrackTracker* tt = ctx_->track_tracker.get();
  for (const PendingProcessCounter& p : pending_process_counters_) {
    auto upid = ctx_->process_tracker->GetUpidOfThread(p.utid);
    uint32_t track;
    if (p.memory) {
      track = upid ? InternProcessMemoryTrack(ctx_, *upid, p.name)
                   : InternThreadMemoryFallbackTrack(ctx_, p.utid, p.name);
    } else {
      track = upid ? tt->InternProcessCounterTrack(*upid, p.name, p.type)
                   : tt->InternThreadCounterTrack(p.utid, p.name, p.fallback_type);
    }
    storage_->counter.track_id.Set(p.row, track);
  }
  pending_process_counters_.clear();
}

}  // namespace fathom
