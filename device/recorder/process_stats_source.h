// linux.process_stats: a ProcessTree of every process at start (scan_all_processes_on_start),
// ProcessTree entries for pids first seen later (new /proc entries or pids from sched
// events), and ProcessStats polling of /proc/PID/status and oom_score_adj.
//
// Polling is the hot path: each process keeps its /proc files open and re-reads them with
// pread() into one reused buffer (no iostreams, no per-poll allocation once buffers have
// grown). The kernel formats /proc/PID/status expensively, so each poll first reads the
// cheap statm (sizes in pages) and reads status only when statm or oom_score_adj changed;
// unchanged processes are left out of that poll's packet (their counters hold their value,
// as with upstream's proc_stats_cache_ttl_ms). Kernel threads are described once and never
// polled.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "config.h"
#include "proto_writer.h"
#include "trace_writer.h"

namespace fathom::recorder {

class ProcessStatsSource {
 public:
  ProcessStatsSource(const ProcessStatsSourceConfig& config, device::TraceWriter* writer,
                     uint32_t sequence_id, std::string proc_root = "/proc");
  ~ProcessStatsSource();

  void Start();
  // Polls when the period elapsed; returns true when it polled.
  bool MaybePoll(int64_t now_mono_ns);
  void Poll();
  // Pids/tids seen in kernel events; unknown ones get a ProcessTree entry at the next Flush.
  void OnPidSeen(int32_t pid);
  void FlushNewPids();
  size_t process_count() const { return procs_.size(); }

 private:
  struct Proc {
    int status_fd = -1;
    int oom_fd = -1;
    int statm_fd = -1;
    uint64_t last_statm = 0;  // hash of the last /proc/PID/statm (0: never read)
    int64_t last_oom = INT64_MIN;
    uint32_t generation = 0;
    bool kernel_thread = false;  // no memory to poll: described once, then skipped
  };
  void ScanProc(bool initial);
  // Appends a ProcessTree.Process (and its threads when `with_threads`) for pid.
  bool AddToTree(int32_t pid, bool with_threads, device::ProtoWriter* tree);
  void EmitTree(device::ProtoWriter* tree);
  void ClosePid(Proc* p);

  ProcessStatsSourceConfig config_;
  device::TraceWriter* writer_;
  uint32_t sequence_id_;
  std::string proc_root_;
  std::unordered_map<int32_t, Proc> procs_;
  std::unordered_map<int32_t, bool> seen_tids_;  // pid/tid -> already described
  std::vector<int32_t> pending_pids_;
  uint32_t generation_ = 0;
  int64_t next_poll_ns_ = 0;
  int64_t next_scan_ns_ = 0;  // /proc is re-listed at most once a second
  std::string buf_;           // reused read buffer
  device::ProtoWriter packet_;
  device::ProtoWriter tree_;
  void* proc_dir_ = nullptr;  // DIR*, kept open and rewound
};

}  // namespace fathom::recorder
