#include "core/import/process_tracker.h"

#include <algorithm>
#include <string_view>

namespace fathom {

namespace {
constexpr uint64_t kCloneThread = 0x00010000;  // kernel sched.h
}  // namespace

ProcessTracker::ProcessTracker(TraceStorage* storage) : storage_(storage) {
  // upid/utid 0 are the idle task (TraceStorage pre-creates the rows) so
  // embedders can filter them out.
  if (storage_->process.row_count() == 0) storage_->process.Insert(0);
  if (storage_->thread.row_count() == 0) storage_->thread.Insert(0, /*idle=*/true);
  uint32_t upid = 0, utid = 0;
  storage_->thread.upid.Set(utid, upid);
  storage_->thread.is_main_thread.Set(utid, 1);
  name_priorities_.push_back(ThreadNamePriority::kOther);
  // tid/pid 0 map to them only in traces of kernel data (see
  // SetPidZeroIsUpidZeroIdleProcess); elsewhere (Chrome JSON, ...) pid 0 is
  // an ordinary process, as upstream treats it.
}

// ---- threads ---------------------------------------------------------------

uint32_t ProcessTracker::StartNewThread(std::optional<int64_t> ts, int64_t tid) {
  ++generation_;
  uint32_t utid = storage_->thread.Insert(tid);
  if (ts) storage_->thread.start_ts.Set(utid, *ts);
  tids_[tid].push_back(utid);
  if (name_priorities_.size() <= utid) name_priorities_.resize(utid + 1);
  name_priorities_[utid] = ThreadNamePriority::kOther;
  return utid;
}

bool ProcessTracker::IsThreadAlive(uint32_t utid) const {
  if (!storage_->thread.end_ts.IsNull(utid)) return false;
  auto upid = GetUpidOfThread(utid);
  if (!upid) return true;  // unknown process: cannot tell, assume alive
  if (!storage_->process.end_ts.IsNull(*upid)) return false;
  // A newer process took the pid over: this thread belonged to the old one.
  auto it = pids_.find(storage_->process.pid[*upid]);
  return it == pids_.end() || it->second == *upid;
}

std::optional<uint32_t> ProcessTracker::GetThreadOrNull(int64_t tid) const {
  return GetThreadOrNull(tid, std::nullopt);
}

std::optional<uint32_t> ProcessTracker::GetThreadOrNull(int64_t tid,
                                                        std::optional<int64_t> pid) const {
  auto it = tids_.find(tid);
  if (it == tids_.end()) return std::nullopt;
  // Newest first: later rows are the likelier match.
  for (auto r = it->second.rbegin(); r != it->second.rend(); ++r) {
    uint32_t utid = *r;
    if (!IsThreadAlive(utid)) continue;
    auto upid = GetUpidOfThread(utid);
    if (!upid || !pid || storage_->process.pid[*upid] == *pid) return utid;
  }
  return std::nullopt;
}

uint32_t ProcessTracker::GetOrCreateThread(int64_t tid) {
  if (auto utid = GetThreadOrNull(tid)) return *utid;
  return StartNewThread(std::nullopt, tid);
}

uint32_t ProcessTracker::UpdateThread(int64_t tid, int64_t pid) {
  auto opt_utid = GetThreadOrNull(tid, pid);
  if (!opt_utid) {
    // A thread first seen together with its pid: the process, and with it
    // its main thread, is numbered before the new thread (as upstream does;
    // a thread seen earlier without a pid keeps its lower utid). When tid
    // == pid the main thread is the one asked for.
    GetOrCreateProcess(pid);
    opt_utid = GetThreadOrNull(tid, pid);
  }
  uint32_t utid = opt_utid ? *opt_utid : StartNewThread(std::nullopt, tid);
  if (!GetUpidOfThread(utid)) AssociateThreadToProcess(utid, GetOrCreateProcess(pid));
  ResolvePendingAssociations(utid, *GetUpidOfThread(utid));
  return utid;
}

void ProcessTracker::EndThread(int64_t ts, int64_t tid) {
  // Never create a thread just to end it (e.g. sched_process_free of a
  // worker after its process already ended).
  auto utid = GetThreadOrNull(tid);
  if (!utid) return;
  ++generation_;
  storage_->thread.end_ts.Set(*utid, ts);
  auto& v = tids_[tid];
  v.erase(std::remove(v.begin(), v.end(), *utid), v.end());

  auto upid = GetUpidOfThread(*utid);
  if (!upid || storage_->process.pid[*upid] != tid) return;
  // The main thread ended: so did the process.
  storage_->process.end_ts.Set(*upid, ts);
  pids_.erase(tid);
}

void ProcessTracker::AssociateThreads(uint32_t utid1, uint32_t utid2) {
  auto upid1 = GetUpidOfThread(utid1);
  auto upid2 = GetUpidOfThread(utid2);
  if (upid1 && !upid2) {
    AssociateThreadToProcess(utid2, *upid1);
    ResolvePendingAssociations(utid2, *upid1);
    return;
  }
  if (upid2 && !upid1) {
    AssociateThreadToProcess(utid1, *upid2);
    ResolvePendingAssociations(utid1, *upid2);
    return;
  }
  if (upid1 && upid1 != upid2) {
    // Two threads of different processes cannot be bound together.
    storage_->stats.Increment(Stat::kProcessTrackerErrors);
    return;
  }
  if (upid1) return;  // already in the same process
  pending_assocs_.emplace_back(utid1, utid2);
}

void ProcessTracker::ResolvePendingAssociations(uint32_t utid_arg, uint32_t upid) {
  std::vector<uint32_t> resolved{utid_arg};
  while (!resolved.empty()) {
    uint32_t utid = resolved.back();
    resolved.pop_back();

    // Processes forked by this thread now know their parent.
    for (size_t i = 0; i < pending_parent_assocs_.size();) {
      if (pending_parent_assocs_[i].first != utid) {
        ++i;
        continue;
      }
      storage_->process.parent_upid.Set(pending_parent_assocs_[i].second, upid);
      pending_parent_assocs_[i] = pending_parent_assocs_.back();
      pending_parent_assocs_.pop_back();
    }

    // Threads bound to this one join the same process, transitively.
    for (size_t i = 0; i < pending_assocs_.size();) {
      auto [a, b] = pending_assocs_[i];
      if (a != utid && b != utid) {
        ++i;
        continue;
      }
      uint32_t other = a == utid ? b : a;
      AssociateThreadToProcess(other, upid);
      resolved.push_back(other);
      pending_assocs_[i] = pending_assocs_.back();
      pending_assocs_.pop_back();
    }
  }
}

void ProcessTracker::AssociateThreadToProcess(uint32_t utid, uint32_t upid) {
  ++generation_;
  storage_->thread.upid.Set(utid, upid);
  bool main = storage_->thread.tid[utid] == storage_->process.pid[upid];
  storage_->thread.is_main_thread.Set(utid, main ? 1 : 0);
}

// ---- processes -------------------------------------------------------------

std::optional<uint32_t> ProcessTracker::GetProcessOrNull(int64_t pid) const {
  auto it = pids_.find(pid);
  if (it == pids_.end()) return std::nullopt;
  return it->second;
}

uint32_t ProcessTracker::CreateProcessRow(int64_t pid) {
  ++generation_;
  uint32_t upid = storage_->process.Insert(pid);
  pids_[pid] = upid;
  return upid;
}

uint32_t ProcessTracker::GetOrCreateProcess(int64_t pid) {
  if (auto upid = GetProcessOrNull(pid)) return *upid;
  uint32_t upid = CreateProcessRow(pid);
  // The main thread may already have been seen (process dumps arrive late),
  // so look it up rather than always starting a new one.
  UpdateThread(/*tid=*/pid, pid);
  return upid;
}

uint32_t ProcessTracker::StartNewProcess(std::optional<int64_t> ts,
                                         std::optional<int64_t> parent_tid, int64_t pid,
                                         StringId name, ThreadNamePriority priority) {
  // A pid is never used by two live processes: forget the old one and its
  // threads entirely.
  ++generation_;
  pids_.erase(pid);
  tids_.erase(pid);

  // A fresh main thread, so a recycled tid never reuses an old row.
  uint32_t utid = StartNewThread(ts, pid);
  UpdateThreadName(utid, name, priority);

  uint32_t upid = GetOrCreateProcess(pid);
  if (ts) storage_->process.start_ts.Set(upid, *ts);
  storage_->process.name.Set(upid, name);

  if (parent_tid) {
    uint32_t parent_utid = GetOrCreateThread(*parent_tid);
    if (auto parent_upid = GetUpidOfThread(parent_utid)) {
      storage_->process.parent_upid.Set(upid, *parent_upid);
    } else {
      pending_parent_assocs_.emplace_back(parent_utid, upid);
    }
  }
  return upid;
}

uint32_t ProcessTracker::UpdateProcessWithParent(uint32_t upid, uint32_t pupid) {
  auto prev = storage_->process.parent_upid.Get(upid);
  if (prev && *prev != pupid) {
    // A later dump naming another parent (reparenting to init or a
    // subreaper, or a recycled parent pid) is counted and the first parent
    // kept: the process itself is the same, as upstream treats it.
    storage_->stats.Increment(Stat::kProcessTrackerParentPidChanged);
    return upid;
  }
  storage_->process.parent_upid.Set(upid, pupid);
  return upid;
}

void ProcessTracker::SetProcessMetadata(uint32_t upid, std::optional<uint32_t> parent_upid,
                                        std::string_view name, std::string_view cmdline) {
  if (parent_upid) storage_->process.parent_upid.Set(upid, *parent_upid);
  storage_->process.name.Set(upid, storage_->Intern(name));
  descriptor_named_upids_.erase(upid);
  // No cmdline given (a TrackEvent descriptor with a name only) leaves it as
  // it was: NULL if never set, as upstream.
  if (!cmdline.empty()) storage_->process.cmdline.Set(upid, storage_->Intern(cmdline));
}

void ProcessTracker::SetProcessUid(uint32_t upid, int64_t uid) {
  storage_->process.uid.Set(upid, uid);
  // App id and user id as android.os.UserHandle defines them.
  storage_->process.android_appid.Set(upid, uid % 100000);
  storage_->process.android_user_id.Set(upid, uid / 100000);
}

void ProcessTracker::SetProcessNameIfUnset(uint32_t upid, StringId name) {
  if (storage_->process.name[upid] != kNullStringId) return;
  storage_->process.name.Set(upid, name);
  descriptor_named_upids_.erase(upid);
}

void ProcessTracker::SetProcessNameFromDescriptor(uint32_t upid, StringId name) {
  if (storage_->process.name[upid] != kNullStringId && !descriptor_named_upids_.count(upid)) return;
  storage_->process.name.Set(upid, name);
  descriptor_named_upids_.insert(upid);
}

void ProcessTracker::SetStartTsIfUnset(uint32_t upid, int64_t ts) {
  if (storage_->process.start_ts.IsNull(upid)) storage_->process.start_ts.Set(upid, ts);
}

// ---- names -----------------------------------------------------------------

void ProcessTracker::UpdateThreadName(uint32_t utid, StringId name, ThreadNamePriority priority) {
  if (name == kNullStringId) return;
  // Rows inserted by other code paths have the lowest priority.
  if (name_priorities_.size() <= utid) name_priorities_.resize(utid + 1);
  if (priority < name_priorities_[utid]) return;
  storage_->thread.name.Set(utid, name);
  name_priorities_[utid] = priority;
}

void ProcessTracker::UpdateThreadNameAndMaybeProcessName(int64_t tid, StringId name,
                                                         ThreadNamePriority priority) {
  uint32_t utid = GetOrCreateThread(tid);
  UpdateThreadName(utid, name, priority);
  // tid 0 is every CPU's idle task ("swapper/N"): its comm must not rename
  // the idle process.
  if (tid == 0) return;
  auto upid = GetUpidOfThread(utid);
  if (upid && storage_->process.pid[*upid] == tid) {
    storage_->process.name.Set(*upid, name);
    descriptor_named_upids_.erase(*upid);
  }
}

void ProcessTracker::SetThreadName(uint32_t utid, StringId name) {
  UpdateThreadName(utid, name, ThreadNamePriority::kTrackDescriptor);
}

void ProcessTracker::SetThreadNameIfUnset(uint32_t utid, StringId name) {
  UpdateThreadName(utid, name, ThreadNamePriority::kFtrace);
}

// ---- ftrace lifecycle ------------------------------------------------------

void ProcessTracker::OnTaskNewtask(int64_t ts, int64_t parent_tid, int64_t new_tid,
                                   std::string_view comm, uint64_t clone_flags) {
  // Boot-time tracing shows init "creating" the swapper tasks: not real.
  if (new_tid == 0) return;
  StringId name = storage_->Intern(comm);
  // Without CLONE_THREAD the child is a new process, kthreadd's children
  // (kernel threads) included: each has its own pid and name.
  if (!(clone_flags & kCloneThread)) {
    StartNewProcess(ts, parent_tid, new_tid, name, ThreadNamePriority::kFtrace);
    return;
  }
  uint32_t parent = GetOrCreateThread(parent_tid);
  uint32_t utid = StartNewThread(ts, new_tid);
  UpdateThreadName(utid, name, ThreadNamePriority::kFtrace);
  AssociateThreads(parent, utid);
}

void ProcessTracker::OnTaskRename(int64_t tid, std::string_view comm) {
  UpdateThreadNameAndMaybeProcessName(tid, storage_->Intern(comm), ThreadNamePriority::kFtrace);
}

void ProcessTracker::OnProcessFree(int64_t ts, int64_t tid) { EndThread(ts, tid); }

void ProcessTracker::SetPidZeroIsUpidZeroIdleProcess() {
  if (pids_.count(0)) return;  // already
  ++generation_;
  tids_[0].insert(tids_[0].begin(), 0);
  pids_[0] = 0;
  UpdateThreadName(0, storage_->Intern("swapper"), ThreadNamePriority::kTraceProcessorConstant);
}

}  // namespace fathom
