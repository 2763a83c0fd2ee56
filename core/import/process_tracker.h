// Maps kernel pids/tids (which are reused) to stable upid/utid rows, following
// upstream Perfetto's rules so ids and associations match what users compare.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

class ProcessTracker {
 public:
  explicit ProcessTracker(TraceStorage* storage);

  // The live thread for `tid`, created (with no process) if unknown.
  uint32_t GetOrCreateThread(int64_t tid);
  std::optional<uint32_t> GetThreadOrNull(int64_t tid) const;
  // The live thread `tid` known to belong to process `pid` (creating or
  // replacing rows when the association contradicts what is known).
  uint32_t UpdateThread(int64_t tid, int64_t pid);
  // The live process for `pid`, created if unknown.
  uint32_t GetOrCreateProcess(int64_t pid);
  std::optional<uint32_t> GetProcessOrNull(int64_t pid) const;

  // A new thread `tid` started at `ts` (task_newtask / first sight).
  uint32_t StartNewThread(std::optional<int64_t> ts, int64_t tid);
  // Thread `tid` ended (sched_process_free).
  void EndThread(int64_t ts, int64_t tid);

  void SetThreadName(uint32_t utid, StringId name);
  // Process name from /proc cmdline (argv0 basename rules as upstream) or comm.
  void SetProcessMetadata(uint32_t upid, std::optional<uint32_t> parent_upid,
                          std::string_view name, std::string_view cmdline);
  void SetProcessUid(uint32_t upid, int64_t uid);

  // ---- ftrace-driven lifecycle (called by the ftrace parser) ----
  // task_newtask: `parent_tid` created `new_tid` (a thread when clone_flags
  // has CLONE_THREAD, else a new process).
  void OnTaskNewtask(int64_t ts, int64_t parent_tid, int64_t new_tid, std::string_view comm,
                     uint64_t clone_flags);
  // task_rename / comm changes.
  void OnTaskRename(int64_t tid, std::string_view comm);
  // sched_process_free: the task is gone; its tid may be reused.
  void OnProcessFree(int64_t ts, int64_t tid);
  // A thread name seen in a sched event (sched_switch next_comm...).
  void SetThreadNameIfUnset(uint32_t utid, StringId name);

  // The thread's process, if known.
  std::optional<uint32_t> GetUpidOfThread(uint32_t utid) const {
    return storage_->thread.upid.Get(utid);
  }

 private:
  void AssociateThreadToProcess(uint32_t utid, uint32_t upid);

  TraceStorage* storage_;
  std::unordered_map<int64_t, std::vector<uint32_t>> tids_;  // tid -> utids, newest last
  std::unordered_map<int64_t, uint32_t> pids_;               // pid -> live upid
};

}  // namespace fathom
