#include "core/import/process_tree_parser.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/import/clock_tracker.h"
#include "core/import/process_memory_tracks.h"
#include "core/import/process_tracker.h"
#include "core/import/track_tracker.h"
#include "perfetto/trace/ps/process_stats.pb.h"
#include "perfetto/trace/ps/process_tree.pb.h"

namespace fathom {

namespace pp = perfetto::protos;

namespace {

constexpr int64_t kKthreaddPid = 2;

// Workqueue kernel threads report "kworker/<id>-<last queue>" (or '+'); the
// queue part is transient, so only the worker's identity is kept.
std::string_view StripKworkerQueue(std::string_view name) {
  if (name.substr(0, 8) != "kworker/") return name;
  size_t delim = std::min(name.find('+', 8), name.find('-', 8));
  return delim == std::string_view::npos ? name : name.substr(0, delim);
}

// Counter names of ProcessStats memory fields, as upstream names them.
const char* MemoryCounterName(uint32_t field_id) {
  using P = pp::ProcessStats::Process;
  switch (field_id) {
    case P::kVmSizeKbFieldNumber:
      return "mem.virt";
    case P::kVmRssKbFieldNumber:
      return "mem.rss";
    case P::kRssAnonKbFieldNumber:
      return "mem.rss.anon";
    case P::kRssFileKbFieldNumber:
      return "mem.rss.file";
    case P::kRssShmemKbFieldNumber:
      return "mem.rss.shmem";
    case P::kVmSwapKbFieldNumber:
      return "mem.swap";
    case P::kVmLockedKbFieldNumber:
      return "mem.locked";
    case P::kVmHwmKbFieldNumber:
      return "mem.rss.watermark";
    case P::kDmabufRssKbFieldNumber:
      return "mem.dmabuf_rss";
    case P::kSmrRssKbFieldNumber:
      return "mem.smaps.rss";
    case P::kSmrPssKbFieldNumber:
      return "mem.smaps.pss";
    case P::kSmrPssAnonKbFieldNumber:
      return "mem.smaps.pss.anon";
    case P::kSmrPssFileKbFieldNumber:
      return "mem.smaps.pss.file";
    case P::kSmrPssShmemKbFieldNumber:
      return "mem.smaps.pss.smem";
    case P::kSmrSwapPssKbFieldNumber:
      return "mem.smaps.swap.pss";
    default:
      return nullptr;
  }
}

}  // namespace

ProcessTreeParser::ProcessTreeParser(TraceContext* ctx) : ctx_(ctx), args_(ctx) {}

void ProcessTreeParser::ParseProcessTree(int64_t ts, proto::Bytes payload) {
  using PT = pp::ProcessTree;
  ProcessTracker* pt = ctx_->process_tracker.get();
  TraceStorage* storage = ctx_->storage.get();
  std::vector<proto::Bytes> threads;
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == PT::kProcessesFieldNumber) ParseProcess(f.bytes);
    if (f.id == PT::kThreadsFieldNumber) threads.push_back(f.bytes);
  }
  // Threads after processes, as upstream, so they join the dumped processes.
  for (proto::Bytes t : threads) {
    int64_t tid = 0, tgid = 0;
    std::optional<std::string_view> name;
    proto::Decoder td(t);
    for (proto::Field f = td.Next(); f.valid(); f = td.Next()) {
      if (f.id == PT::Thread::kTidFieldNumber) tid = f.as_int32();
      if (f.id == PT::Thread::kTgidFieldNumber) tgid = f.as_int32();
      if (f.id == PT::Thread::kNameFieldNumber) name = f.as_string();
    }
    pt->UpdateThread(tid, tgid);
    // The name goes to the newest alive thread of the tid, whatever its
    // process, which is not always the one just matched by tgid (as
    // upstream: a newer thread of another process takes it).
    if (name) {
      pt->UpdateThreadName(pt->GetOrCreateThread(tid), storage->Intern(StripKworkerQueue(*name)),
                           ThreadNamePriority::kProcessTree);
    }
  }
  (void)ts;
}

void ProcessTreeParser::ParseProcess(proto::Bytes process) {
  using P = pp::ProcessTree::Process;
  ProcessTracker* pt = ctx_->process_tracker.get();
  TraceStorage* storage = ctx_->storage.get();

  int64_t pid = 0, ppid = 0;
  std::vector<std::string_view> cmdline;
  std::optional<int64_t> uid;
  std::optional<uint64_t> start_from_boot;
  bool cmdline_is_comm = false;
  std::optional<bool> is_kthread;
  proto::Decoder d(process);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case P::kPidFieldNumber:
        pid = f.as_int32();
        break;
      case P::kPpidFieldNumber:
        ppid = f.as_int32();
        break;
      case P::kCmdlineFieldNumber:
        cmdline.push_back(f.as_string());
        break;
      case P::kUidFieldNumber:
        uid = f.as_int32();
        break;
      case P::kProcessStartFromBootFieldNumber:
        start_from_boot = f.as_uint64();
        break;
      case P::kCmdlineIsCommFieldNumber:
        cmdline_is_comm = f.as_bool();
        break;
      case P::kIsKthreadFieldNumber:
        is_kthread = f.as_bool();
        break;
    }
  }
  // Processes the probe could not read (no cmdline at all) carry no data.
  if (cmdline.empty()) return;

  std::string_view argv0 = cmdline[0];
  std::string joined;
  bool joined_is_argv0 = false;
  if (ppid == kKthreaddPid && StripKworkerQueue(argv0).size() != argv0.size()) {
    argv0 = StripKworkerQueue(argv0);
    joined_is_argv0 = true;
  }
  // Some processes rewrite their cmdline with spaces instead of NULs: with a
  // single element, the process name is its first word.
  if (cmdline.size() == 1) argv0 = argv0.substr(0, argv0.find(' '));
  if (joined_is_argv0) {
    joined = std::string(argv0);
  } else {
    for (size_t i = 0; i < cmdline.size(); ++i) {
      if (i) joined += ' ';
      joined += cmdline[i];
    }
  }

  uint32_t pupid = pt->GetOrCreateProcess(ppid);
  uint32_t upid = pt->GetOrCreateProcess(pid);
  upid = pt->UpdateProcessWithParent(upid, pupid);
  pt->SetProcessMetadata(upid, std::nullopt, argv0, joined);

  // Kernel threads have no /proc cmdline: the "cmdline" is their comm, which
  // is also the main thread's name.
  if (cmdline_is_comm) {
    uint32_t utid = pt->GetOrCreateThread(pid);
    pt->UpdateThreadName(utid, storage->Intern(joined), ThreadNamePriority::kProcessTree);
  }
  if (uid) pt->SetProcessUid(upid, *uid);
  if (is_kthread) args_.SetBool(upid, "is_kthread", *is_kthread);
  // Early kernel threads can legitimately start at 0 (tick resolution).
  if (start_from_boot) {
    auto ts =
        ctx_->clock_tracker->ToTraceTime(kClockBoottime, static_cast<int64_t>(*start_from_boot));
    if (ts) pt->SetStartTsIfUnset(upid, *ts);
  }
}

void ProcessTreeParser::ParseProcessStats(int64_t ts, proto::Bytes payload) {
  // Chrome's fields (is_peak_rss_resettable, chrome_*_kb) are read in a pass
  // of their own before the memory counters, so the processes holding them
  // are numbered first (upstream's upid order).
  proto::Decoder chrome(payload);
  for (proto::Field f = chrome.Next(); f.valid(); f = chrome.Next())
    if (f.id == pp::ProcessStats::kProcessesFieldNumber) CreateProcessWithChromeFields(f.bytes);
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id == pp::ProcessStats::kProcessesFieldNumber) ParseProcessStatsEntry(ts, f.bytes);
}

void ProcessTreeParser::CreateProcessWithChromeFields(proto::Bytes process) {
  using P = pp::ProcessStats::Process;
  int64_t pid = 0;
  bool chrome = false;
  std::optional<bool> peak_resettable;
  proto::Decoder d(process);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == P::kPidFieldNumber) pid = f.as_int32();
    if (f.id == P::kIsPeakRssResettableFieldNumber) peak_resettable = f.as_bool();
    chrome |= f.id == P::kIsPeakRssResettableFieldNumber ||
              f.id == P::kChromePrivateFootprintKbFieldNumber ||
              f.id == P::kChromePeakResidentSetKbFieldNumber;
  }
  if (!chrome) return;
  uint32_t upid = ctx_->process_tracker->GetOrCreateProcess(pid);
  if (peak_resettable) args_.SetBool(upid, "is_peak_rss_resettable", *peak_resettable);
}

void ProcessTreeParser::ParseProcessStatsEntry(int64_t ts, proto::Bytes process) {
  using P = pp::ProcessStats::Process;
  ProcessTracker* pt = ctx_->process_tracker.get();
  TrackTracker* tt = ctx_->track_tracker.get();
  TraceStorage* storage = ctx_->storage.get();

  int64_t pid = 0;
  {
    proto::Decoder d(process);
    for (proto::Field f = d.Next(); f.valid(); f = d.Next())
      if (f.id == P::kPidFieldNumber) pid = f.as_int32();
  }
  proto::Decoder d(process);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case P::kPidFieldNumber:
      case P::kFdsFieldNumber:
      case P::kIsPeakRssResettableFieldNumber:  // read by the first pass
      case P::kChromePrivateFootprintKbFieldNumber:
      case P::kChromePeakResidentSetKbFieldNumber:
        continue;
      case P::kThreadsFieldNumber: {
        proto::Decoder td(f.bytes);
        for (proto::Field g = td.Next(); g.valid(); g = td.Next())
          if (g.id == pp::ProcessStats::Thread::kTidFieldNumber)
            pt->UpdateThread(g.as_int32(), pid);
        continue;
      }
    }
    uint32_t upid = pt->GetOrCreateProcess(pid);
    if (f.id == P::kOomScoreAdjFieldNumber) {
      uint32_t track = tt->InternProcessCounterTrack(upid, storage->Intern("oom_score_adj"),
                                                     storage->Intern("oom_score_adj"));
      tt->PushCounter(ts, static_cast<double>(f.as_int64()), track);
      continue;
    }
    if (const char* name = MemoryCounterName(f.id)) {
      // /proc reports kB; the trace processor keeps bytes.
      uint32_t track = InternProcessMemoryTrack(ctx_, upid, storage->Intern(name));
      tt->PushCounter(ts, static_cast<double>(f.as_int64()) * 1024, track);
      continue;
    }
    if (f.id == P::kRuntimeUserModeFieldNumber || f.id == P::kRuntimeKernelModeFieldNumber) {
      const char* name =
          f.id == P::kRuntimeUserModeFieldNumber ? "runtime.user_ns" : "runtime.kernel_ns";
      uint32_t track = tt->InternProcessCounterTrack(
          upid, storage->Intern(name), storage->Intern("proc_stat_runtime"),
          TrackDims().Str("proc_stat_runtime_key", name + std::string_view("runtime.").size()));
      tt->PushCounter(ts, static_cast<double>(f.as_int64()), track);
      continue;
    }
    storage->stats.Increment(Stat::kProcStatUnknownCounters);
  }
}

}  // namespace fathom
