// Maps kernel pids/tids (which are reused) to stable upid/utid rows, following
// upstream Perfetto's rules so ids and associations match what users compare:
//  - utid 0 / upid 0 are pre-created for the idle (swapper) task, tid/pid 0.
//  - a tid maps to its newest *alive* thread row; a thread is dead once ended
//    (sched_process_free) or once its process ended or was replaced.
//  - a thread whose process is unknown has upid and is_main_thread NULL;
//    threads created by one another (clone(CLONE_THREAD)) are bound together
//    and resolved to a process as soon as one of them is.
//  - thread names only change when the new source has at least the priority
//    of the one that set the current name (ftrace < process tree < track
//    descriptors < trace-processor constants).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

enum class ThreadNamePriority : uint8_t {
  kOther = 0,
  kFtrace = 1,
  kProcessTree = 2,
  kTrackDescriptorThreadType = 3,
  kTrackDescriptor = 4,
  kTraceProcessorConstant = 5,  // e.g. "swapper" for the idle thread
};

class ProcessTracker {
 public:
  explicit ProcessTracker(TraceStorage* storage);

  // ---- threads ----
  // The newest alive thread for `tid`, created (with no process) if unknown.
  uint32_t GetOrCreateThread(int64_t tid);
  // The newest alive thread for `tid` (whose process has pid `pid`, or is
  // unknown, when `pid` is given).
  std::optional<uint32_t> GetThreadOrNull(int64_t tid) const;
  std::optional<uint32_t> GetThreadOrNull(int64_t tid, std::optional<int64_t> pid) const;
  // The thread `tid` of process `pid`: reuses a matching alive thread, else
  // creates the process if unknown (and so its main thread first), then the
  // thread.
  uint32_t UpdateThread(int64_t tid, int64_t pid);
  // A new thread row for `tid` (task_newtask, or a reused tid).
  uint32_t StartNewThread(std::optional<int64_t> ts, int64_t tid);
  // Thread `tid` ended; when it is a process's main thread the process ends
  // too, so the pid can be reused.
  void EndThread(int64_t ts, int64_t tid);
  // Binds two threads to the same process (now, or once either is resolved).
  void AssociateThreads(uint32_t utid1, uint32_t utid2);

  // ---- processes ----
  // The live process for `pid`, created (with its main thread) if unknown.
  uint32_t GetOrCreateProcess(int64_t pid);
  std::optional<uint32_t> GetProcessOrNull(int64_t pid) const;
  // fork(): a new process (and main thread) for `pid`, replacing any older
  // one; its parent is the process of `parent_tid` (resolved later if that
  // thread's process is not known yet).
  uint32_t StartNewProcess(std::optional<int64_t> ts, std::optional<int64_t> parent_tid,
                           int64_t pid, StringId name, ThreadNamePriority priority);
  // A process dump says `upid`'s parent is `pupid`. The first parent is kept:
  // a contradicting one is only counted (process_tracker_parent_pid_changed).
  uint32_t UpdateProcessWithParent(uint32_t upid, uint32_t pupid);
  // Name and cmdline (parent_upid is set when given).
  void SetProcessMetadata(uint32_t upid, std::optional<uint32_t> parent_upid, std::string_view name,
                          std::string_view cmdline);
  void SetProcessUid(uint32_t upid, int64_t uid);
  void SetProcessNameIfUnset(uint32_t upid, StringId name);
  // A track descriptor's process_name: names a process nothing named yet, or
  // renames one an earlier descriptor named (the latest descriptor wins, as
  // upstream); names from the system (process dumps, ftrace) are kept.
  void SetProcessNameFromDescriptor(uint32_t upid, StringId name);
  void SetStartTsIfUnset(uint32_t upid, int64_t ts);

  // ---- names ----
  void UpdateThreadName(uint32_t utid, StringId name, ThreadNamePriority priority);
  // Renames thread `tid` and, when it is a main thread, its process (comm
  // changes after exec / task_rename).
  void UpdateThreadNameAndMaybeProcessName(int64_t tid, StringId name, ThreadNamePriority priority);
  // Track-descriptor priority name.
  void SetThreadName(uint32_t utid, StringId name);
  // A thread name seen in a sched event (sched_switch/sched_waking comm):
  // ftrace priority, so it never overrides process-tree or descriptor names.
  void SetThreadNameIfUnset(uint32_t utid, StringId name);

  // ---- ftrace-driven lifecycle (called by the ftrace parser) ----
  // task_newtask: `parent_tid` created `new_tid`: a thread of the same process
  // when clone_flags has CLONE_THREAD or the parent is kthreadd (pid 2), else
  // a new process.
  void OnTaskNewtask(int64_t ts, int64_t parent_tid, int64_t new_tid, std::string_view comm,
                     uint64_t clone_flags);
  // task_rename / comm changes.
  void OnTaskRename(int64_t tid, std::string_view comm);
  // sched_process_free: the task is gone; its tid may be reused.
  void OnProcessFree(int64_t ts, int64_t tid);
  // Call for traces of kernel data (Perfetto protos, systrace text): tid and
  // pid 0 become utid/upid 0, the idle task, named "swapper". Without it
  // they are ordinary ids with rows of their own (as upstream's JSON import).
  void SetPidZeroIsUpidZeroIdleProcess();

  // The thread's process, if known.
  std::optional<uint32_t> GetUpidOfThread(uint32_t utid) const {
    return storage_->thread.upid.Get(utid);
  }

  // Changes whenever something that decides which utid a tid resolves to
  // changes (new rows, ended threads, associations, pid takeovers), so
  // callers can cache lookups; UpdateThread also resolves pending
  // associations, so a cached UpdateThread is only exact while none pend.
  uint64_t generation() const { return generation_; }
  bool has_pending_associations() const {
    return !pending_assocs_.empty() || !pending_parent_assocs_.empty();
  }

 private:
  uint32_t CreateProcessRow(int64_t pid);
  bool IsThreadAlive(uint32_t utid) const;
  void AssociateThreadToProcess(uint32_t utid, uint32_t upid);
  void ResolvePendingAssociations(uint32_t utid, uint32_t upid);

  TraceStorage* storage_;
  std::unordered_map<int64_t, std::vector<uint32_t>> tids_;    // tid -> utids, newest last
  std::unordered_map<int64_t, uint32_t> pids_;                 // pid -> live upid
  std::vector<ThreadNamePriority> name_priorities_;            // by utid
  std::unordered_set<uint32_t> descriptor_named_upids_;        // name from a track descriptor
  std::vector<std::pair<uint32_t, uint32_t>> pending_assocs_;  // (utid, utid)
  std::vector<std::pair<uint32_t, uint32_t>> pending_parent_assocs_;  // (parent utid, child upid)
  uint64_t generation_ = 0;
};

}  // namespace fathom
