#include "perf_source.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>

#include "gen/perfetto_fields.h"
#include "proto_writer.h"
#include "util.h"

namespace fathom::recorder {
namespace {

constexpr uint32_t kDefaultPages = 128;  // 512 KiB a CPU: ~2 s of 100 Hz deep stacks
constexpr uint32_t kDefaultReadPeriodMs = 100;
constexpr uint64_t kSampleType = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                                 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;

// PerfEvents.Counter -> (perf type, config). The software clocks need no PMU, which
// virtual machines and many boards lack.
bool CounterToPerf(uint32_t counter, uint32_t* type, uint64_t* config) {
  static const std::pair<uint32_t, uint64_t> kSoftware[] = {
      {1, PERF_COUNT_SW_CPU_CLOCK},        {2, PERF_COUNT_SW_PAGE_FAULTS},
      {3, PERF_COUNT_SW_TASK_CLOCK},       {4, PERF_COUNT_SW_CONTEXT_SWITCHES},
      {5, PERF_COUNT_SW_CPU_MIGRATIONS},   {6, PERF_COUNT_SW_PAGE_FAULTS_MIN},
      {7, PERF_COUNT_SW_PAGE_FAULTS_MAJ},  {8, PERF_COUNT_SW_ALIGNMENT_FAULTS},
      {9, PERF_COUNT_SW_EMULATION_FAULTS}, {20, PERF_COUNT_SW_DUMMY}};
  for (auto [c, cfg] : kSoftware)
    if (c == counter) {
      *type = PERF_TYPE_SOFTWARE;
      *config = cfg;
      return true;
    }
  if (counter >= 10 && counter <= 19) {  // HW_CPU_CYCLES .. HW_REF_CPU_CYCLES, in order
    *type = PERF_TYPE_HARDWARE;
    *config = counter - 10;
    return true;
  }
  return false;
}

std::string ReadCmdline(uint32_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string s;
  std::getline(in, s, '\0');  // argv[0]
  return s;
}

bool MatchesCmdline(const std::vector<std::string>& patterns, const std::string& argv0) {
  std::string base = argv0.substr(argv0.rfind('/') + 1);
  for (const std::string& p : patterns)
    if (fnmatch(p.c_str(), argv0.c_str(), 0) == 0 || fnmatch(p.c_str(), base.c_str(), 0) == 0)
      return true;
  return false;
}

std::string PermissionHint() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int level = 2;
  in >> level;
  return "perf_event_paranoid is " + std::to_string(level) +
         ": sampling every process needs root, CAP_PERFMON or "
         "`sysctl kernel.perf_event_paranoid=-1`; without them name the processes to "
         "sample (target_pid / target_cmdline), which a user may sample in their own "
         "processes";
}

}  // namespace

PerfSource::PerfSource(const PerfSourceConfig& config, device::TraceWriter* writer,
                       uint32_t sequence_id)
    : config_(config), writer_(writer), sequence_id_(sequence_id) {}

PerfSource::~PerfSource() { Stop(); }

uint32_t PerfSource::read_period_ms() const {
  return config_.ring_buffer_read_period_ms ? config_.ring_buffer_read_period_ms
                                            : kDefaultReadPeriodMs;
}

int PerfSource::OpenOne(int pid, int cpu, bool exclude_kernel) {
  perf_event_attr attr = {};
  attr.size = sizeof attr;
  uint64_t event_config = 0;
  if (!CounterToPerf(config_.counter, &attr.type, &event_config)) return EINVAL;
  attr.config = event_config;
  if (config_.period) {
    attr.sample_period = config_.period;
  } else {
    attr.freq = 1;
    attr.sample_freq = config_.frequency;
  }
  attr.sample_type = kSampleType;
  attr.exclude_kernel = exclude_kernel;
  attr.exclude_callchain_kernel = !config_.kernel_frames;
  attr.disabled = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_BOOTTIME;  // the trace's clock: samples line up with ftrace
  attr.sample_max_stack = 127;
  int fd =
      static_cast<int>(syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) return errno;
  Buffer b;
  b.fd = fd;
  b.cpu = cpu < 0 ? 0 : static_cast<uint32_t>(cpu);
  buffers_.push_back(b);
  return 0;
}

Status PerfSource::Enable() {
  uint32_t pages = config_.ring_buffer_pages ? config_.ring_buffer_pages : kDefaultPages;
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (Buffer& b : buffers_) {
    void* base = mmap(nullptr, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED, b.fd, 0);
    if (base == MAP_FAILED)
      return ErrorStatus(std::string("linux.perf: cannot map the sample buffer: ") +
                         strerror(errno) + " (ring_buffer_pages too large for RLIMIT_MEMLOCK?)");
    b.base = base;
    b.data_size = pages * page;
  }
  for (Buffer& b : buffers_) ioctl(b.fd, PERF_EVENT_IOC_ENABLE, 0);
  return Status::Ok();
}

int PerfSource::OpenAllCpus() {
  long cpus = sysconf(_SC_NPROCESSORS_CONF);
  for (int cpu = 0; cpu < cpus; cpu++) {
    int err = OpenOne(-1, cpu, false);
    if (err == 0 || err == ENODEV || err == ENXIO) continue;  // ENODEV: an offline CPU
    return err;
  }
  return buffers_.empty() ? ENODEV : 0;
}

// The fallback for an unprivileged user: every thread of each target process, user
// space only.
int PerfSource::OpenTargetThreads() {
  std::vector<uint32_t> pids(config_.target_pids.begin(), config_.target_pids.end());
  if (!config_.target_cmdlines.empty())
    if (DIR* d = opendir("/proc")) {
      while (dirent* e = readdir(d)) {
        uint32_t pid = static_cast<uint32_t>(atoi(e->d_name));
        if (pid && MatchesCmdline(config_.target_cmdlines, ReadCmdline(pid))) pids.push_back(pid);
      }
      closedir(d);
    }
  for (uint32_t pid : pids) {
    DIR* d = opendir(("/proc/" + std::to_string(pid) + "/task").c_str());
    if (!d) continue;
    while (dirent* e = readdir(d))
      if (int tid = atoi(e->d_name)) (void)OpenOne(tid, -1, true);  // a thread may be gone
    closedir(d);
  }
  return buffers_.empty() ? EACCES : 0;
}

void PerfSource::CloseAll() {
  for (Buffer& b : buffers_) {
    if (b.base) munmap(b.base, b.data_size + static_cast<size_t>(sysconf(_SC_PAGESIZE)));
    close(b.fd);
  }
  buffers_.clear();
}

Status PerfSource::Start() {
  uint32_t type = 0;
  uint64_t cfg = 0;
  if (!CounterToPerf(config_.counter, &type, &cfg))
    return ErrorStatus("linux.perf: timebase counter " + std::to_string(config_.counter) +
                       " is not supported");
  int err = OpenAllCpus();
  if (err == ENOENT && type == PERF_TYPE_HARDWARE) {
    // No PMU (virtual machines): the cpu-clock samples the same code paths.
    notes_.push_back("linux.perf: no hardware counters here; sampling on the cpu-clock instead");
    CloseAll();
    config_.counter = 1;
    err = OpenAllCpus();
  }
  if (err == EACCES || err == EPERM) {
    CloseAll();
    bool targeted = !config_.target_pids.empty() || !config_.target_cmdlines.empty();
    if (!targeted || OpenTargetThreads() != 0)
      return ErrorStatus(std::string("linux.perf: cannot sample (") + strerror(err) +
                         "): " + PermissionHint());
    notes_.push_back("linux.perf: " + PermissionHint() + "; sampling the " +
                     std::to_string(buffers_.size()) + " threads of the target processes");
    err = 0;
  }
  if (err) {
    CloseAll();
    return ErrorStatus(std::string("linux.perf: cannot sample: ") + strerror(err));
  }
  return Status::Ok();
}

void PerfSource::Stop() {
  for (Buffer& b : buffers_) {
    ioctl(b.fd, PERF_EVENT_IOC_DISABLE, 0);
    DrainBuffer(b);
  }
  CloseAll();
}

void PerfSource::Drain() {
  for (Buffer& b : buffers_) DrainBuffer(b);
}

void PerfSource::DrainBuffer(Buffer& b) {
  if (!b.base) return;
  auto* meta = static_cast<perf_event_mmap_page*>(b.base);
  const uint8_t* data = static_cast<const uint8_t*>(b.base) + meta->data_offset;
  uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  while (tail + sizeof(perf_event_header) <= head) {
    size_t at = tail % b.data_size;
    perf_event_header h;
    for (size_t i = 0; i < sizeof h; i++)
      reinterpret_cast<uint8_t*>(&h)[i] = data[(at + i) % b.data_size];
    if (h.size < sizeof h || tail + h.size > head) break;
    const uint8_t* rec = data + at;
    if (at + h.size > b.data_size) {  // wraps: copy it out whole
      wrap_.resize(h.size);
      size_t first = b.data_size - at;
      memcpy(wrap_.data(), data + at, first);
      memcpy(wrap_.data() + first, data, h.size - first);
      rec = wrap_.data();
    }
    OnRecord(b, rec + sizeof h, h.type, h.misc);
    tail += h.size;
  }
  __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

void PerfSource::OnRecord(Buffer& b, const uint8_t* p, uint16_t type, uint16_t misc) {
  auto u64 = [&p] {
    uint64_t v;
    memcpy(&v, p, 8);
    p += 8;
    return v;
  };
  if (type == PERF_RECORD_LOST) {
    u64();  // id
    WriteLost(b.cpu, u64());
    return;
  }
  if (type != PERF_RECORD_SAMPLE) return;
  Sample s;
  uint64_t pid_tid = u64();  // in the order of the sample_type bits
  s.pid = static_cast<uint32_t>(pid_tid);
  s.tid = static_cast<uint32_t>(pid_tid >> 32);
  s.time = u64();
  s.cpu = static_cast<uint32_t>(u64());
  s.period = u64();
  s.nr = u64();
  s.ips = reinterpret_cast<const uint64_t*>(p);  // 8-aligned in the ring and in wrap_
  // perf's cpumode values are Profiling.CpuMode's (1 kernel, 2 user, 3 hypervisor, ...).
  s.cpu_mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
  b.timebase_count += s.period;
  if (!InScope(s.pid)) return;
  if (on_pid_ && s.pid) on_pid_(static_cast<int32_t>(s.pid));
  WriteSample(s, b.timebase_count, CallstackIid(s));
}

bool PerfSource::InScope(uint32_t pid) {
  if (pid == 0) return config_.target_pids.empty() && config_.target_cmdlines.empty();
  auto cached = in_scope_.find(pid);
  if (cached != in_scope_.end()) return cached->second;
  auto has = [pid](const std::vector<int32_t>& v) {
    return std::find(v.begin(), v.end(), static_cast<int32_t>(pid)) != v.end();
  };
  std::string argv0 = ReadCmdline(pid);
  bool targeted = !config_.target_pids.empty() || !config_.target_cmdlines.empty();
  bool in = !targeted || has(config_.target_pids) || MatchesCmdline(config_.target_cmdlines, argv0);
  if (has(config_.exclude_pids) || MatchesCmdline(config_.exclude_cmdlines, argv0)) in = false;
  in_scope_[pid] = in;
  return in;
}

uint64_t PerfSource::CallstackIid(const Sample& s) {
  auto& proc = processes_[s.pid];
  if (proc.pid == 0 && s.pid != 0) {
    proc.pid = static_cast<pid_t>(s.pid);
    code_.ReadMaps(proc);
  }
  std::vector<uint64_t> frames;  // leaf first, as the kernel gives them
  bool kernel = s.cpu_mode == PERF_RECORD_MISC_KERNEL, first_user = true, first_kernel = true;
  for (uint64_t i = 0; i < s.nr; i++) {
    uint64_t ip = s.ips[i];
    if (ip >= static_cast<uint64_t>(PERF_CONTEXT_MAX)) {  // a context marker
      kernel = ip == static_cast<uint64_t>(PERF_CONTEXT_KERNEL);
      continue;
    }
    if (kernel) {
      // Only the first kernel pc is where the CPU was; the rest return there.
      uint64_t at = first_kernel ? ip : ip - 1;
      frames.push_back(code_.KernelFrameIid(ip, kernel_.Lookup(at)));
      first_kernel = false;
    } else if (s.pid != 0) {
      // The first user pc is where the CPU was only when the sample hit user mode;
      // after a kernel entry it is the return into user space.
      bool exact = first_user && s.cpu_mode == PERF_RECORD_MISC_USER;
      frames.push_back(code_.FrameIid(proc, ip, !exact));
      first_user = false;
    }
  }
  if (frames.empty()) return 0;
  std::reverse(frames.begin(), frames.end());  // root first
  return code_.CallstackIid(frames);
}

void PerfSource::WriteDefaultsOnce() {
  if (wrote_defaults_) return;
  wrote_defaults_ = true;
  using TP = pf::TracePacket;
  device::ProtoWriter p;
  p.Varint(TP::kTrustedPacketSequenceIdFieldNumber, sequence_id_);
  p.Varint(TP::kSequenceFlagsFieldNumber, 1);  // SEQ_INCREMENTAL_STATE_CLEARED
  size_t d = p.BeginNested(TP::kTracePacketDefaultsFieldNumber);
  size_t ps = p.BeginNested(pf::TracePacketDefaults::kPerfSampleDefaultsFieldNumber);
  size_t tb = p.BeginNested(pf::PerfSampleDefaults::kTimebaseFieldNumber);
  using TB = pf::PerfEvents::Timebase;
  if (config_.period)
    p.Varint(TB::kPeriodFieldNumber, config_.period);
  else
    p.Varint(TB::kFrequencyFieldNumber, config_.frequency);
  p.Varint(TB::kCounterFieldNumber, config_.counter);
  p.EndNested(tb);
  p.EndNested(ps);
  p.EndNested(d);
  writer_->AppendPacket(p.data());
}

void PerfSource::WriteSample(const Sample& s, uint64_t timebase_count, uint64_t callstack_iid) {
  WriteDefaultsOnce();
  using TP = pf::TracePacket;
  using ID = pf::InternedData;
  device::ProtoWriter p;
  p.Varint(TP::kTimestampFieldNumber, s.time);
  p.Varint(TP::kTrustedPacketSequenceIdFieldNumber, sequence_id_);
  p.Varint(TP::kSequenceFlagsFieldNumber, 2);  // SEQ_NEEDS_INCREMENTAL_STATE
  if (code_.has_new()) {
    using CI = device::CodeInterner;
    size_t in = p.BeginNested(TP::kInternedDataFieldNumber);
    auto emit = [&p](uint32_t field, const std::vector<std::string>& items) {
      for (const std::string& m : items) p.Bytes(field, m.data(), m.size());
    };
    emit(ID::kFunctionNamesFieldNumber, code_.TakeStrings(CI::kFunctionNames));
    emit(ID::kBuildIdsFieldNumber, code_.TakeStrings(CI::kBuildIds));
    emit(ID::kMappingPathsFieldNumber, code_.TakeStrings(CI::kMappingPaths));
    emit(ID::kMappingsFieldNumber, code_.TakeMappings());
    emit(ID::kFramesFieldNumber, code_.TakeFrames());
    emit(ID::kCallstacksFieldNumber, code_.TakeCallstacks());
    p.EndNested(in);
  }
  using PS = pf::PerfSample;
  size_t ps = p.BeginNested(TP::kPerfSampleFieldNumber);
  p.Varint(PS::kCpuFieldNumber, s.cpu);
  p.Varint(PS::kPidFieldNumber, s.pid);
  p.Varint(PS::kTidFieldNumber, s.tid);
  if (callstack_iid) p.Varint(PS::kCallstackIidFieldNumber, callstack_iid);
  p.Varint(PS::kCpuModeFieldNumber, s.cpu_mode);
  p.Varint(PS::kTimebaseCountFieldNumber, timebase_count);
  p.EndNested(ps);
  writer_->AppendPacket(p.data());
  samples_written_++;
}

void PerfSource::WriteLost(uint32_t cpu, uint64_t lost) {
  WriteDefaultsOnce();
  using TP = pf::TracePacket;
  device::ProtoWriter p;
  p.Varint(TP::kTimestampFieldNumber, static_cast<uint64_t>(BootNs()));
  p.Varint(TP::kTrustedPacketSequenceIdFieldNumber, sequence_id_);
  p.Varint(TP::kSequenceFlagsFieldNumber, 2);
  size_t ps = p.BeginNested(TP::kPerfSampleFieldNumber);
  p.Varint(pf::PerfSample::kCpuFieldNumber, cpu);
  p.Varint(pf::PerfSample::kKernelRecordsLostFieldNumber, lost);
  p.EndNested(ps);
  writer_->AppendPacket(p.data());
}

}  // namespace fathom::recorder
