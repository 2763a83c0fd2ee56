#include "process_stats_source.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#include "gen/perfetto_fields.h"
#include "util.h"

namespace fathom::recorder {
namespace {

using device::ProtoWriter;
using PT = pf::ProcessTree;
using PS = pf::ProcessStats;

bool ParsePid(const char* name, int32_t* pid) {
  int32_t v = 0;
  if (!*name) return false;
  for (const char* c = name; *c; c++) {
    if (*c < '0' || *c > '9') return false;
    v = v * 10 + (*c - '0');
  }
  *pid = v;
  return true;
}

// The value (in kB or plain) of "Key:\t  123 kB" lines of /proc/PID/status.
struct StatusFields {
  int64_t ppid = -1, tgid = -1, uid = -1;
  std::string_view name;
  uint64_t vm_size = 0, vm_rss = 0, rss_anon = 0, rss_file = 0, rss_shmem = 0, vm_swap = 0,
           vm_locked = 0, vm_hwm = 0;
  bool has_mem = false;
};

void ParseStatus(std::string_view s, StatusFields* out) {
  const char* p = s.data();
  const char* end = p + s.size();
  while (p < end) {
    const char* nl = static_cast<const char*>(memchr(p, '\n', static_cast<size_t>(end - p)));
    if (!nl) nl = end;
    const char* colon = static_cast<const char*>(memchr(p, ':', static_cast<size_t>(nl - p)));
    if (colon) {
      std::string_view key(p, static_cast<size_t>(colon - p));
      const char* v = colon + 1;
      auto num = [&] { return ParseU64(&v, nl); };
      switch (key[0]) {
        case 'N':
          if (key == "Name") {
            while (v < nl && (*v == ' ' || *v == '\t')) v++;
            out->name = std::string_view(v, static_cast<size_t>(nl - v));
          }
          break;
        case 'P':
          if (key == "PPid") out->ppid = static_cast<int64_t>(num());
          break;
        case 'T':
          if (key == "Tgid") out->tgid = static_cast<int64_t>(num());
          break;
        case 'U':
          if (key == "Uid") out->uid = static_cast<int64_t>(num());
          break;
        case 'V':
          if (key == "VmSize")
            out->vm_size = num(), out->has_mem = true;
          else if (key == "VmRSS")
            out->vm_rss = num();
          else if (key == "VmSwap")
            out->vm_swap = num();
          else if (key == "VmLck")
            out->vm_locked = num();
          else if (key == "VmHWM")
            out->vm_hwm = num();
          break;
        case 'R':
          if (key == "RssAnon")
            out->rss_anon = num();
          else if (key == "RssFile")
            out->rss_file = num();
          else if (key == "RssShmem")
            out->rss_shmem = num();
          break;
        default:
          break;
      }
    }
    p = nl + 1;
  }
}

void BeginPacket(ProtoWriter* w, uint32_t seq) {
  w->Clear();
  w->Varint(pf::TracePacket::kTimestampFieldNumber, static_cast<uint64_t>(BootNs()));
  w->Varint(pf::TracePacket::kTrustedPacketSequenceIdFieldNumber, seq);
}

}  // namespace

ProcessStatsSource::ProcessStatsSource(const ProcessStatsSourceConfig& config,
                                       device::TraceWriter* writer, uint32_t sequence_id,
                                       std::string proc_root)
    : config_(config),
      writer_(writer),
      sequence_id_(sequence_id),
      proc_root_(std::move(proc_root)) {}

ProcessStatsSource::~ProcessStatsSource() {
  for (auto& [pid, p] : procs_) ClosePid(&p);
  if (proc_dir_) closedir(static_cast<DIR*>(proc_dir_));
}

void ProcessStatsSource::ClosePid(Proc* p) {
  if (p->status_fd >= 0) close(p->status_fd);
  if (p->oom_fd >= 0) close(p->oom_fd);
  if (p->statm_fd >= 0) close(p->statm_fd);
  p->status_fd = p->oom_fd = p->statm_fd = -1;
}

void ProcessStatsSource::Start() {
  ScanProc(/*initial=*/true);
  next_poll_ns_ = MonoNs();
}

bool ProcessStatsSource::AddToTree(int32_t pid, bool with_threads, ProtoWriter* tree) {
  std::string dir = proc_root_ + "/" + std::to_string(pid);
  Result<std::string> status = ReadFile(dir + "/status");
  if (!status.ok()) return false;
  StatusFields sf;
  ParseStatus(*status, &sf);
  if (sf.tgid >= 0 && sf.tgid != pid) {
    // A thread: describe it and make sure its process is described too.
    size_t t = tree->BeginNested(PT::kThreadsFieldNumber);
    tree->Int(PT::Thread::kTidFieldNumber, pid);
    tree->Int(PT::Thread::kTgidFieldNumber, sf.tgid);
    if (config_.record_thread_names) tree->String(PT::Thread::kNameFieldNumber, sf.name);
    tree->EndNested(t);
    seen_tids_[pid] = true;
    int32_t tgid = static_cast<int32_t>(sf.tgid);
    if (!seen_tids_.count(tgid)) AddToTree(tgid, false, tree);
    return true;
  }
  seen_tids_[pid] = true;
  size_t p = tree->BeginNested(PT::kProcessesFieldNumber);
  tree->Int(PT::Process::kPidFieldNumber, pid);
  if (sf.ppid >= 0) tree->Int(PT::Process::kPpidFieldNumber, sf.ppid);
  if (sf.uid >= 0) tree->Int(PT::Process::kUidFieldNumber, sf.uid);
  Result<std::string> cmdline = ReadFile(dir + "/cmdline");
  if (cmdline.ok() && !cmdline->empty()) {
    std::string_view rest = *cmdline;
    while (!rest.empty()) {
      size_t z = rest.find('\0');
      tree->String(PT::Process::kCmdlineFieldNumber, rest.substr(0, z));
      if (z == std::string_view::npos) break;
      rest.remove_prefix(z + 1);
    }
  } else {
    // Kernel threads (and zombies) have no cmdline: use the comm.
    tree->String(PT::Process::kCmdlineFieldNumber, sf.name);
    tree->Bool(PT::Process::kCmdlineIsCommFieldNumber, true);
  }
  tree->EndNested(p);
  if (with_threads) {
    if (DIR* d = opendir((dir + "/task").c_str())) {
      while (dirent* e = readdir(d)) {
        int32_t tid;
        if (!ParsePid(e->d_name, &tid) || tid == pid) continue;
        seen_tids_[tid] = true;
        size_t t = tree->BeginNested(PT::kThreadsFieldNumber);
        tree->Int(PT::Thread::kTidFieldNumber, tid);
        tree->Int(PT::Thread::kTgidFieldNumber, pid);
        if (config_.record_thread_names) {
          Result<std::string> comm = ReadFile(dir + "/task/" + e->d_name + "/comm");
          if (comm.ok()) {
            std::string_view c = *comm;
            if (!c.empty() && c.back() == '\n') c.remove_suffix(1);
            tree->String(PT::Thread::kNameFieldNumber, c);
          }
        }
        tree->EndNested(t);
      }
      closedir(d);
    }
  }
  return true;
}

void ProcessStatsSource::EmitTree(ProtoWriter* tree) {
  if (tree->empty()) return;
  BeginPacket(&packet_, sequence_id_);
  size_t t = packet_.BeginNested(pf::TracePacket::kProcessTreeFieldNumber);
  packet_.Raw(tree->data());
  packet_.Varint(PT::kCollectionEndTimestampFieldNumber, static_cast<uint64_t>(BootNs()));
  packet_.EndNested(t);
  writer_->AppendPacket(packet_.data());
  tree->Clear();
}

void ProcessStatsSource::ScanProc(bool initial) {
  if (!proc_dir_) proc_dir_ = opendir(proc_root_.c_str());
  if (!proc_dir_) return;
  DIR* d = static_cast<DIR*>(proc_dir_);
  rewinddir(d);
  generation_++;
  tree_.Clear();
  bool describe = !initial || config_.scan_all_processes_on_start;
  while (dirent* e = readdir(d)) {
    int32_t pid;
    if (!ParsePid(e->d_name, &pid)) continue;
    auto [it, inserted] = procs_.try_emplace(pid);
    it->second.generation = generation_;
    if (!inserted) continue;
    if (describe && !seen_tids_.count(pid)) AddToTree(pid, initial, &tree_);
    if (tree_.size() > 256 * 1024) EmitTree(&tree_);
  }
  // Processes that left /proc since the last scan.
  for (auto it = procs_.begin(); it != procs_.end();) {
    if (it->second.generation != generation_) {
      ClosePid(&it->second);
      it = procs_.erase(it);
    } else {
      ++it;
    }
  }
  EmitTree(&tree_);
}

void ProcessStatsSource::OnPidSeen(int32_t pid) {
  if (pid <= 0 || seen_tids_.count(pid)) return;
  seen_tids_[pid] = false;
  pending_pids_.push_back(pid);
}

void ProcessStatsSource::FlushNewPids() {
  if (pending_pids_.empty()) return;
  tree_.Clear();
  for (int32_t pid : pending_pids_) AddToTree(pid, false, &tree_);
  pending_pids_.clear();
  EmitTree(&tree_);
}

bool ProcessStatsSource::MaybePoll(int64_t now_mono_ns) {
  if (config_.proc_stats_poll_ms == 0 || now_mono_ns < next_poll_ns_) return false;
  next_poll_ns_ = now_mono_ns + int64_t{config_.proc_stats_poll_ms} * 1000000;
  Poll();
  return true;
}

void ProcessStatsSource::Poll() {
  // Listing /proc costs more than the polls it saves: new processes are picked up within a
  // second (sooner through sched events when ftrace runs).
  int64_t now = MonoNs();
  if (now >= next_scan_ns_) {
    ScanProc(/*initial=*/false);
    next_scan_ns_ = now + 1000000000;
  }
  FlushNewPids();
  BeginPacket(&packet_, sequence_id_);
  size_t stats = packet_.BeginNested(pf::TracePacket::kProcessStatsFieldNumber);
  char path[64];
  for (auto& [pid, p] : procs_) {
    if (p.kernel_thread) continue;
    if (p.statm_fd < 0) {
      snprintf(path, sizeof path, "%s/%d/statm", proc_root_.c_str(), pid);
      p.statm_fd = open(path, O_RDONLY | O_CLOEXEC);
      snprintf(path, sizeof path, "%s/%d/oom_score_adj", proc_root_.c_str(), pid);
      p.oom_fd = open(path, O_RDONLY | O_CLOEXEC);
      if (p.statm_fd < 0) continue;
    }
    if (!PreadAll(p.statm_fd, &buf_)) continue;  // exited; dropped at the next scan
    // FNV-1a of statm's text: a change detector, not an identity.
    uint64_t h = 1469598103934665603ull;
    for (char c : buf_) h = (h ^ static_cast<uint8_t>(c)) * 1099511628211ull;
    h |= 1;
    int64_t oom = p.last_oom;
    if (p.oom_fd >= 0 && PreadAll(p.oom_fd, &buf_)) {
      const char* c = buf_.data();
      const char* end = c + buf_.size();
      bool neg = c < end && *c == '-';
      if (neg) c++;
      int64_t v = static_cast<int64_t>(ParseU64(&c, end));
      oom = neg ? -v : v;
    }
    if (h == p.last_statm && oom == p.last_oom) continue;
    if (p.status_fd < 0) {
      snprintf(path, sizeof path, "%s/%d/status", proc_root_.c_str(), pid);
      p.status_fd = open(path, O_RDONLY | O_CLOEXEC);
      if (p.status_fd < 0) continue;
    }
    if (!PreadAll(p.status_fd, &buf_)) continue;
    StatusFields sf;
    ParseStatus(buf_, &sf);
    if (!sf.has_mem) {
      // Kernel threads have no mm (and a fixed oom_score_adj): stop polling them.
      p.kernel_thread = true;
      ClosePid(&p);
      continue;
    }
    p.last_statm = h;
    p.last_oom = oom;
    size_t proc = packet_.BeginNested(PS::kProcessesFieldNumber);
    packet_.Int(PS::Process::kPidFieldNumber, pid);
    packet_.Varint(PS::Process::kVmSizeKbFieldNumber, sf.vm_size);
    packet_.Varint(PS::Process::kVmRssKbFieldNumber, sf.vm_rss);
    packet_.Varint(PS::Process::kRssAnonKbFieldNumber, sf.rss_anon);
    packet_.Varint(PS::Process::kRssFileKbFieldNumber, sf.rss_file);
    packet_.Varint(PS::Process::kRssShmemKbFieldNumber, sf.rss_shmem);
    packet_.Varint(PS::Process::kVmSwapKbFieldNumber, sf.vm_swap);
    packet_.Varint(PS::Process::kVmLockedKbFieldNumber, sf.vm_locked);
    packet_.Varint(PS::Process::kVmHwmKbFieldNumber, sf.vm_hwm);
    if (oom != INT64_MIN) packet_.Int(PS::Process::kOomScoreAdjFieldNumber, oom);
    packet_.EndNested(proc);
  }
  packet_.Varint(PS::kCollectionEndTimestampFieldNumber, static_cast<uint64_t>(BootNs()));
  packet_.EndNested(stats);
  writer_->AppendPacket(packet_.data());
}

}  // namespace fathom::recorder
