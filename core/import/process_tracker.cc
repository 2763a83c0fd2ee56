#include "core/import/process_tracker.h"

#include <string_view>

namespace fathom {

ProcessTracker::ProcessTracker(TraceStorage* storage) : storage_(storage) {
  tids_[0].push_back(0);
  pids_[0] = 0;
}

std::optional<uint32_t> ProcessTracker::GetThreadOrNull(int64_t tid) const {
  auto it = tids_.find(tid);
  if (it == tids_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

uint32_t ProcessTracker::GetOrCreateThread(int64_t tid) {
  if (auto utid = GetThreadOrNull(tid)) return *utid;
  return StartNewThread(std::nullopt, tid);
}

uint32_t ProcessTracker::StartNewThread(std::optional<int64_t> ts, int64_t tid) {
  uint32_t utid = storage_->thread.Insert(tid);
  if (ts) storage_->thread.start_ts.Set(utid, *ts);
  tids_[tid].push_back(utid);
  return utid;
}

void ProcessTracker::EndThread(int64_t ts, int64_t tid) {
  auto utid = GetThreadOrNull(tid);
  if (!utid) return;
  storage_->thread.end_ts.Set(*utid, ts);
  auto upid = GetUpidOfThread(*utid);
  if (upid && storage_->process.pid[*upid] == tid) {
    storage_->process.end_ts.Set(*upid, ts);
    pids_.erase(tid);
  }
  tids_.erase(tid);
}

std::optional<uint32_t> ProcessTracker::GetProcessOrNull(int64_t pid) const {
  auto it = pids_.find(pid);
  if (it == pids_.end()) return std::nullopt;
  return it->second;
}

uint32_t ProcessTracker::GetOrCreateProcess(int64_t pid) {
  if (auto upid = GetProcessOrNull(pid)) return *upid;
  uint32_t upid = storage_->process.Insert(pid);
  pids_[pid] = upid;
  // The main thread shares the pid.
  uint32_t main = GetOrCreateThread(pid);
  auto cur = GetUpidOfThread(main);
  if (cur && *cur != upid) main = StartNewThread(std::nullopt, pid);
  AssociateThreadToProcess(main, upid);
  return upid;
}

void ProcessTracker::AssociateThreadToProcess(uint32_t utid, uint32_t upid) {
  storage_->thread.upid.Set(utid, upid);
  bool main = storage_->thread.tid[utid] == storage_->process.pid[upid];
  storage_->thread.is_main_thread.Set(utid, main ? 1 : 0);
}

uint32_t ProcessTracker::UpdateThread(int64_t tid, int64_t pid) {
  uint32_t upid = GetOrCreateProcess(pid);
  uint32_t utid = GetOrCreateThread(tid);
  auto cur = GetUpidOfThread(utid);
  if (cur && *cur != upid) {
    // The tid was reused by another process: a new thread.
    utid = StartNewThread(std::nullopt, tid);
  }
  AssociateThreadToProcess(utid, upid);
  return utid;
}

void ProcessTracker::SetThreadName(uint32_t utid, StringId name) {
  storage_->thread.name.Set(utid, name);
}

void ProcessTracker::SetProcessMetadata(uint32_t upid, std::optional<uint32_t> parent_upid,
                                        std::string_view name, std::string_view cmdline) {
  if (parent_upid) storage_->process.parent_upid.Set(upid, *parent_upid);
  storage_->process.name.Set(upid, storage_->Intern(name));
  if (!cmdline.empty()) storage_->process.cmdline.Set(upid, storage_->Intern(cmdline));
}

void ProcessTracker::SetProcessUid(uint32_t upid, int64_t uid) {
  storage_->process.uid.Set(upid, uid);
  storage_->process.android_appid.Set(upid, uid % 100000);
  storage_->process.android_user_id.Set(upid, uid / 100000);
}

void ProcessTracker::OnTaskNewtask(int64_t ts, int64_t parent_tid, int64_t new_tid,
                                   std::string_view comm, uint64_t clone_flags) {
  constexpr uint64_t kCloneThread = 0x00010000;
  uint32_t parent = GetOrCreateThread(parent_tid);
  uint32_t utid = StartNewThread(ts, new_tid);
  storage_->thread.name.Set(utid, storage_->Intern(comm));
  if (clone_flags & kCloneThread) {
    if (auto upid = GetUpidOfThread(parent)) AssociateThreadToProcess(utid, *upid);
  } else {
    uint32_t upid = storage_->process.Insert(new_tid);
    storage_->process.start_ts.Set(upid, ts);
    if (auto parent_upid = GetUpidOfThread(parent)) storage_->process.parent_upid.Set(upid, *parent_upid);
    pids_[new_tid] = upid;
    AssociateThreadToProcess(utid, upid);
  }
}

void ProcessTracker::OnTaskRename(int64_t tid, std::string_view comm) {
  uint32_t utid = GetOrCreateThread(tid);
  storage_->thread.name.Set(utid, storage_->Intern(comm));
}

void ProcessTracker::OnProcessFree(int64_t ts, int64_t tid) { EndThread(ts, tid); }

void ProcessTracker::SetThreadNameIfUnset(uint32_t utid, StringId name) {
  if (storage_->thread.name[utid] == kNullStringId) storage_->thread.name.Set(utid, name);
}

}  // namespace fathom
