// Turns sorted ftrace events (full FtraceEvent and compact_sched) into sched,
// thread_state, counters, slices (atrace markers) and the raw ftrace_event
// table with args.
//
// Implementation is split by topic: ftrace_parser.cc (dispatch, raw table,
// scheduling), ftrace_event_parsers.cc (counters, memory, markers, syscalls).
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/import/atrace_async_tracks.h"
#include "core/import/binder_tracker.h"
#include "core/import/compact_sched.h"
#include "core/import/ftrace_descriptors.h"
#include "core/import/ftrace_raw_args.h"
#include "core/import/ftrace_table_writer.h"
#include "core/import/proto_decoder.h"
#include "core/import/syscall_tables.h"
#include "core/import/systrace_marker.h"
#include "core/import/trace_context.h"

namespace fathom {

class AdrenoCmdbatchTracker;
class CmaAllocTracker;
class DmaBufferTracker;
class FtraceDeviceEvents;
class FtraceIoEvents;
class FtraceSuspendResume;
class GenericKernelParser;

struct SequenceGeneration;

class FtraceParser {
 public:
  explicit FtraceParser(TraceContext* ctx);
  ~FtraceParser();

  // `gen` is the sequence state of the bundle's packet (interned kernel
  // symbols for funcgraph); may be null.
  // `from_text`: a systrace text line's event. Upstream keeps a raw
  // ftrace_event row of text events for sched_switch only.
  void ParseFtraceEvent(int64_t ts, uint32_t cpu, proto::Bytes event,
                        const SequenceGeneration* gen = nullptr, bool from_text = false);
  // A systrace text line's task columns ("<comm>-<tid> (<tgid>)"), before its
  // event: the line names its thread and, with a tgid, puts it in that process.
  // tid 0 (the idle task) keeps its name.
  void OnTextLineTask(int64_t tid, std::string_view comm, std::optional<int64_t> tgid);
  void ParseCompactSwitch(int64_t ts, uint32_t cpu, const CompactSwitchRecord& r);
  void ParseCompactWaking(int64_t ts, uint32_t cpu, const CompactWakingRecord& r);
  // Closes what is still open (last sched slice per CPU keeps dur -1).
  void OnImportFinished();

  // SystemInfo.utsname: the kernel release picks the prev_state bit layout
  // (before 4.14 the upper bits differ) and the machine picks the syscall
  // table. Without it we assume a 4.4 kernel, as upstream does.
  void OnSystemInfo(std::string_view release, std::string_view machine);

  // From the tokenizer: FtraceEventBundle.previous_bundle_end_timestamp. Events
  // before the latest first-bundle value over all CPUs only go to the raw
  // table (not every CPU buffer covers that span yet), as upstream does.
  void OnBundlePreviousEnd(uint32_t cpu, int64_t ts);

  // GenericKernel* TracePackets (non-ftrace kernel scheduling data); they
  // share this parser's thread_state builder.
  void ParseGenericKernelPacket(int64_t ts, uint32_t field_id, proto::Bytes payload);

  // Shared by print events and the kernel *_tracing_mark_write events; the
  // systrace text importer may call it too. `pid` is the writing thread.
  void ApplySystraceMarker(int64_t ts, uint32_t pid, const SystraceMarker& m);

  // The proto tokenizer's buffers, handed over when it is done: deferred raw
  // args (FtraceRawArgs) point into them until the args table is read.
  void RetainPayloads(std::vector<std::unique_ptr<TraceBlob>>* blobs) { raw_args_->Retain(blobs); }
  // ftrace_event and thread_state rows are written on a worker thread
  // between these two calls (FtraceTableWriter); stop before reading them.
  void StartTableWorker();
  void StopTableWorker() { tables_.StopWorker(); }

 private:
  struct PendingSched {
    uint32_t slice_row = kNone;  // open sched slice on this CPU
    uint32_t last_utid = kNone;  // thread running on this CPU
    int64_t last_pid = -1;
    int32_t last_prio = 0;
  };
  static constexpr uint32_t kNone = 0xffffffffu;

  // ---- ftrace_parser.cc ----
  void MaybeOnFirstEvent();
  void ReserveTables();
  void ReserveWorkerTables();
  // Picks up SystemInfo (kernel release, machine) from the metadata table.
  void SyncSystemInfo();
  void AddRawEvent(int64_t ts, uint32_t cpu, uint32_t utid, uint32_t event_id, proto::Bytes payload,
                   std::optional<uint32_t> common_flags);
  void DispatchEvent(int64_t ts, uint32_t cpu, uint32_t pid, uint32_t event_id,
                     proto::Bytes payload);
  void ParseSchedSwitch(int64_t ts, uint32_t cpu, proto::Bytes payload);
  void PushSchedSwitch(int64_t ts, uint32_t cpu, int64_t prev_pid, StringId prev_comm,
                       int32_t prev_prio, int64_t prev_state, uint32_t prev_utid, int64_t next_pid,
                       StringId next_comm, int32_t next_prio, uint32_t next_utid);
  void ParseSchedWaking(int64_t ts, uint32_t pid, proto::Bytes payload);
  void ParseSchedBlockedReason(proto::Bytes payload);
  StringId TaskStateString(int64_t raw_state);
  // Thread for `tid` named `comm` from a sched event. Names from ftrace do not
  // override names that came from higher-priority sources (process tree...).
  uint32_t UpdateThreadFromFtrace(int64_t tid, StringId comm);
  // ProcessTracker::GetOrCreateThread behind a tid-indexed cache: the hot
  // path asks for the same few hundred tids millions of times. An entry is
  // trusted while the tracker's generation is unchanged (nothing that decides
  // which utid is current has changed since it was filled).
  uint32_t Utid(int64_t tid);
  // ProcessTracker::UpdateThread(tid, tgid) (atrace markers) behind a cache
  // keyed by the tracker's generation: a repeated call with no tracker change
  // in between returns the same thread and has no side effects.
  uint32_t UpdateThreadCached(int64_t tid, int64_t tgid);
  // Interns a comm string, first comparing with the last comm of `utid`.
  StringId InternComm(uint32_t utid, std::string_view comm);
  // StringPool::Intern behind a direct-mapped cache: raw args repeat the same
  // strings (print buffers, comms) and the cache avoids the pool's node walk.
  // (The pool's open-addressing lookup is as cheap as a separate cache.)
  StringId InternCached(std::string_view s) { return storage_->Intern(s); }
  PendingSched& Pending(uint32_t cpu) {
    if (cpu >= pending_.size()) pending_.resize(cpu + 1);
    return pending_[cpu];
  }

  // Raw args, written straight into the args table with pre-interned keys.
  // Inline: several per raw event, from both ftrace_*.cc files. No display
  // strings: the args table formats display_value on read.
  uint32_t BeginArgSet();
  void AddIntArg(uint32_t set, StringId key, int64_t v) {
    storage_->args.AppendResolved(set, key, v, arg_type_int_);
  }
  void AddUintArg(uint32_t set, StringId key, uint64_t v) {
    storage_->args.AppendResolved(set, key, static_cast<int64_t>(v), arg_type_uint_);
  }
  void AddStringArg(uint32_t set, StringId key, StringId v) {
    // A NULL string is stored as a typed NULL (as ArgsTable::Insert does).
    storage_->args.AppendResolved(set, key, v,
                                  v == kNullStringId ? arg_type_null_string_ : arg_type_string_);
  }
  void AddRealArg(uint32_t set, StringId key, double v) {
    int64_t slot;
    memcpy(&slot, &v, sizeof slot);
    storage_->args.AppendResolved(set, key, slot, arg_type_real_);
  }

  // ---- ftrace_event_parsers.cc ----
  void ParsePrint(int64_t ts, uint32_t pid, proto::Bytes payload);
  void ParseKernelTracingMark(int64_t ts, uint32_t pid, uint32_t event_id, proto::Bytes payload);
  void ParseCpuFrequency(int64_t ts, proto::Bytes payload);
  void ParseCpuIdle(int64_t ts, proto::Bytes payload);
  void ParseGpuFrequency(int64_t ts, proto::Bytes payload);
  void ParseTaskNewtask(int64_t ts, uint32_t pid, proto::Bytes payload);
  void ParseTaskRename(proto::Bytes payload);
  void ParseSchedProcessFree(int64_t ts, proto::Bytes payload);
  void ParseRssStat(int64_t ts, uint32_t pid, uint32_t event_id, proto::Bytes payload);
  void ParseIonStat(int64_t ts, uint32_t pid, proto::Bytes payload);
  void ParseDmaHeapStat(int64_t ts, uint32_t pid, proto::Bytes payload);
  void ParseOomScoreAdj(int64_t ts, proto::Bytes payload);
  void ParseMarkVictim(int64_t ts, proto::Bytes payload);
  void ParseLowmemoryKill(int64_t ts, proto::Bytes payload);
  void ParseMmEventRecord(int64_t ts, uint32_t pid, proto::Bytes payload);
  void ParseSysEnter(int64_t ts, uint32_t pid, proto::Bytes payload);
  // funcgraph_entry/exit: kernel function slices named from interned symbols.
  void ParseFuncgraph(int64_t ts, uint32_t pid, proto::Bytes payload, bool entry);
  const SequenceGeneration* current_generation_ = nullptr;
  void ParseSysExit(int64_t ts, uint32_t pid, proto::Bytes payload);
  void ParseSchedCpuUtilCfs(int64_t ts, proto::Bytes payload);
  void ParseThermalExynosBulk(proto::Bytes payload);
  void ParseBinderTransaction(int64_t ts, uint32_t pid, proto::Bytes payload);
  void ParseBinderTransactionReceived(int64_t ts, uint32_t pid, proto::Bytes payload);
  void ParseBinderCommand(uint32_t pid, proto::Bytes payload);
  void ParseBinderReturn(int64_t ts, uint32_t pid, proto::Bytes payload);
  // FtraceEvent.generic: a raw row named by the event, its fields as args.
  void ParseGenericFtrace(int64_t ts, uint32_t cpu, uint32_t pid, proto::Bytes payload);
  void MaybeTruncateSysWrite(int64_t ts, uint32_t pid);
  void AddLmkInstant(int64_t ts, int64_t pid);
  // sys_<name> for the trace's architecture; nullopt for a number no kernel
  // table reaches (upstream drops those events).
  std::optional<StringId> SyscallName(int64_t id);
  static constexpr int64_t kMaxSyscalls = 550;

  TraceContext* ctx_;
  TraceStorage* storage_;
  FtraceRawArgs* raw_args_;  // owned by storage_->args
  const FtraceDescriptors& descriptors_;
  FtraceTableWriter tables_;  // ftrace_event and thread_state rows
  std::unique_ptr<GenericKernelParser> generic_kernel_;
  std::unique_ptr<FtraceDeviceEvents> device_events_;    // created on first use
  std::unique_ptr<FtraceIoEvents> io_events_;            // created on first use
  std::unique_ptr<FtraceSuspendResume> suspend_resume_;  // created on first use
  std::unique_ptr<AdrenoCmdbatchTracker> adreno_;        // created on first use
  std::vector<PendingSched> pending_;
  std::vector<StringId> task_state_cache_;  // raw prev_state (uint16) -> string + 1
  struct UtidCacheEntry {
    uint64_t epoch = ~uint64_t{0};
    uint32_t utid = 0;
  };
  std::vector<UtidCacheEntry> utid_cache_;  // by tid (small tids only)
  std::vector<StringId> comm_cache_;        // by utid
  struct TgidCacheEntry {
    uint64_t generation = ~uint64_t{0};
    int64_t tid = -1;
    int64_t tgid = -1;
    uint32_t utid = 0;
  };
  static constexpr size_t kTgidCacheSize = 1024;
  TgidCacheEntry tgid_cache_[kTgidCacheSize];
  bool saw_syscall_ = false;
  std::vector<StringId> string_cache_;  // 64K slots, by hash
  int64_t sched_max_ts_ = INT64_MIN;

  // Kernel version (major, minor) when known.
  std::optional<std::pair<int, int>> kernel_version_;
  std::unique_ptr<CmaAllocTracker> cma_;           // mm_cma_alloc slices
  std::unique_ptr<DmaBufferTracker> dma_buffers_;  // mem.dma_buffer slices
  SyscallArch syscall_arch_ = SyscallArch::kUnknown;
  bool machine_known_ = false;
  std::vector<StringId> syscall_names_;  // by syscall number, filled lazily
  bool seen_first_event_ = false;
  bool worker_tables_reserved_ = false;
  uint32_t metadata_rows_seen_ = 0;
  std::vector<uint8_t> cpu_seen_bundle_;
  int64_t soft_drop_before_ts_ = 0;

  // rss_stat mm_id -> owning thread.
  std::unordered_map<uint32_t, uint32_t> mm_id_to_utid_;
  // Process counters written by a thread (rss_stat, oom_score_adj_update):
  // the row is written when parsed, its track chosen when the import ends,
  // once the thread's process is as known as it will be (as upstream).
  struct PendingProcessCounter {
    uint32_t row;
    uint32_t utid;
    StringId name;
    StringId type;           // of the process track
    StringId fallback_type;  // of the thread track when no process is known
    bool memory;             // a process memory track (rss_stat), with its dimensions
  };
  std::vector<PendingProcessCounter> pending_process_counters_;
  void PushProcessCounterForThread(int64_t ts, double value, uint32_t utid, StringId name,
                                   StringId type, StringId fallback_type, bool memory = false);
  void ResolvePendingProcessCounters();
  std::unique_ptr<AtraceAsyncTracks> atrace_async_;
  // The arg set {utid} of atrace counter values written by `utid`.
  uint32_t AtraceCounterArgs(uint32_t utid);
  std::vector<uint32_t> atrace_counter_sets_;  // utid -> set + 1 (0 = none yet)
  BinderTracker binder_;

  // Pre-interned strings.
  StringId sched_switch_name_, sched_waking_name_;
  StringId type_int_, type_uint_, type_string_, type_real_;
  // The same types as args-table type indices (ArgsTable::ResolveType).
  uint8_t arg_type_int_, arg_type_uint_, arg_type_string_, arg_type_null_string_, arg_type_real_;
  StringId cpufreq_, cpu_frequency_, cpuidle_, cpu_idle_, gpufreq_, gpu_frequency_;
  // gpu_frequency: one counter track per GPU (gpu_id -> track).
  std::unordered_map<uint32_t, uint32_t> gpu_freq_tracks_;
  StringId sys_write_, mem_lmk_, mem_oom_kill_, oom_score_adj_, screen_state_;
  StringId mem_ion_, mem_ion_change_, mem_dma_heap_, mem_dma_heap_change_, inode_key_;
  // Track types upstream gives atrace counters, atrace async slices and rss_stat tracks.
  StringId atrace_counter_, atrace_async_slice_, process_memory_, process_memory_thread_fallback_;
  StringId oom_score_adj_thread_fallback_;
  StringId rss_names_[5];
};

}  // namespace fathom
