// Shared state of one generated trace: the seed's random stream, the feature
// switches it chose, the simulated system (processes and threads) and the
// packets emitted so far, each tagged with its boot-time timestamp and its
// sequence so the final stage can interleave sequences without reordering
// any one of them (interning and incremental state depend on that order).
#pragma once

#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "perfetto/trace/trace.pb.h"

namespace fathom::difftester {

using perfetto::protos::TracePacket;

// Which families of data a trace contains and their sizes. Every switch is
// drawn from the seed; tests may force some (e.g. the minimiser turns them
// off one by one).
struct Features {
  bool sched = true;
  bool compact_sched = false;
  bool task_lifecycle = true;  // newtask / exit / rename in the sched stream
  bool process_tree = true;
  bool process_stats = true;
  bool atrace = true;
  bool track_event = true;
  bool cpu_counters = true;  // cpu_frequency, cpu_idle, cpu_frequency_limits
  bool rss_stat = true;
  bool sys_stats = true;
  bool android_logs = true;
  bool heap_profile = true;
  bool heap_graph = true;
  bool clocks = true;     // a clock snapshot and packets on non-boot clocks
  bool reorder = true;    // sequences interleaved out of timestamp order
  bool data_loss = true;  // previous_packet_dropped on some packets
  int cpus = 2;
  int processes = 4;
  int windows = 10;  // ftrace bundles per cpu
};

// Names of the switches above, in a fixed order (for reports and the minimiser).
std::vector<std::string> FeatureNames();
bool* FeatureByName(Features* f, const std::string& name);
std::string DescribeFeatures(const Features& f);

struct SimThread {
  int32_t tid = 0;
  int32_t tgid = 0;
  std::string comm;
  bool alive = true;
  bool kthread = false;
  int atrace_depth = 0;  // open B slices
  int running_cpu = -1;
};

struct SimProcess {
  int32_t pid = 0;
  int32_t ppid = 0;
  int32_t uid = 0;
  std::string cmdline;
  bool alive = true;
  bool kthread = false;
};

struct EmittedPacket {
  int64_t boot_ts = 0;  // when it happened, in BOOTTIME ns
  uint32_t sequence = 0;
  TracePacket packet;
};

// Clock ids of the builtin clocks (BuiltinClock in the spec).
inline constexpr uint32_t kClockRealtime = 1;
inline constexpr uint32_t kClockMonotonic = 3;
inline constexpr uint32_t kClockBoottime = 6;
inline constexpr uint32_t kClockRealtimeCoarse = 2;
inline constexpr uint32_t kClockMonotonicCoarse = 4;
inline constexpr uint32_t kClockMonotonicRaw = 5;

class GenContext {
 public:
  explicit GenContext(uint64_t seed) : seed_(seed), rng_(seed) {}

  // Gives a feature family its own random stream, so switching one family
  // off leaves the others' content unchanged (the minimiser relies on it).
  void Reseed(uint64_t family) { rng_.seed(seed_ ^ (family * 0x9E3779B97F4A7C15ull)); }

  uint64_t Rand(uint64_t n) { return n == 0 ? 0 : rng_() % n; }
  int64_t RandRange(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Rand(static_cast<uint64_t>(hi - lo + 1)));
  }
  bool Chance(int percent) { return static_cast<int>(Rand(100)) < percent; }
  template <typename T, size_t N>
  const T& Pick(const T (&items)[N]) {
    return items[Rand(N)];
  }

  Features features;
  std::deque<SimProcess> processes;
  std::deque<SimThread> threads;
  std::deque<EmittedPacket> packets;  // deque: Emit keeps earlier pointers valid

  int64_t start_ts = 0;          // BOOTTIME of the first event
  int64_t end_ts = 0;            // BOOTTIME after the last event
  int64_t monotonic_offset = 0;  // BOOTTIME - MONOTONIC (time spent suspended)
  int64_t realtime_offset = 0;   // REALTIME - BOOTTIME

  TracePacket* Emit(int64_t boot_ts, uint32_t sequence) {
    packets.push_back({boot_ts, sequence, TracePacket()});
    TracePacket* p = &packets.back().packet;
    p->set_trusted_packet_sequence_id(sequence);
    p->set_timestamp(static_cast<uint64_t>(boot_ts));
    return p;
  }

  // Sequence ids: each feature family owns a range so they never collide.
  static constexpr uint32_t kSeqClock = 1;
  static constexpr uint32_t kSeqProcess = 2;
  static constexpr uint32_t kSeqFtraceBase = 10;  // + cpu
  static constexpr uint32_t kSeqTrackEventBase = 100;
  static constexpr uint32_t kSeqLogs = 200;
  static constexpr uint32_t kSeqHeapProfileBase = 300;
  static constexpr uint32_t kSeqHeapGraphBase = 400;
  static constexpr uint32_t kSeqSysStats = 500;

  SimThread* ThreadByTid(int32_t tid) {
    for (auto& t : threads)
      if (t.tid == tid && t.alive) return &t;
    return nullptr;
  }
  SimProcess* ProcessByPid(int32_t pid) {
    for (auto& p : processes)
      if (p.pid == pid && p.alive) return &p;
    return nullptr;
  }
  // A live userspace thread, or nullptr if there is none.
  SimThread* RandomUserThread() {
    for (int tries = 0; tries < 8; ++tries) {
      SimThread& t = threads[Rand(threads.size())];
      if (t.alive && !t.kthread) return &t;
    }
    return nullptr;
  }
  int32_t NewPid() { return next_pid_++; }
  // A pid used before whose owner is dead: the kernel recycles pids.
  int32_t ReusablePid() {
    for (auto& t : threads)
      if (!t.alive && !ThreadByTid(t.tid)) return t.tid;
    return NewPid();
  }

 private:
  uint64_t seed_;
  std::mt19937_64 rng_;
  int32_t next_pid_ = 1000;
};

}  // namespace fathom::difftester
