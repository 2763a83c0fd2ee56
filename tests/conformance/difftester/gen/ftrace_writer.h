// Per-cpu FtraceEventBundle packets of one time window, in full or compact
// form. Events are appended in global time order, so each cpu's bundle is
// sorted as the kernel's per-cpu ring buffers are.
#pragma once

#include <string>
#include <vector>

#include "tests/conformance/difftester/gen/gen_context.h"

namespace fathom::difftester {

using perfetto::protos::FtraceEvent;
using perfetto::protos::FtraceEventBundle;

class FtraceWriter {
 public:
  explicit FtraceWriter(GenContext* ctx);

  // Starts new bundles (one per cpu, created on first use) at window_ts.
  void StartWindow(int64_t window_ts);
  FtraceEvent* NewEvent(int cpu, int64_t ts, int32_t current_pid);

  // sched_switch from whatever runs on `cpu` to `next` (nullptr: idle).
  void Switch(int cpu, int64_t ts, int64_t prev_state, SimThread* next);
  void Waking(int cpu, int64_t ts, const SimThread& wakee, int target_cpu);

  SimThread* running(int cpu) { return running_[static_cast<size_t>(cpu)]; }
  void set_running(int cpu, SimThread* t) { running_[static_cast<size_t>(cpu)] = t; }
  int32_t CurrentPid(int cpu) { return running(cpu) ? running(cpu)->tid : 0; }

 private:
  struct CpuBundle {
    FtraceEventBundle* bundle = nullptr;
    uint64_t last_switch_ts = 0;
    uint64_t last_waking_ts = 0;
    std::vector<std::string> interned;
  };
  FtraceEventBundle* BundleOf(int cpu);
  uint32_t Intern(int cpu, const std::string& comm);

  GenContext* ctx_;
  int64_t window_ts_ = 0;
  std::vector<CpuBundle> cpus_;
  std::vector<SimThread*> running_;
};

// gen_ftrace_events.cc: the non-sched ftrace events, written by the running
// task of `cpu` (atrace markers, cpu/memory counters, thermal).
void MaybeAtracePrint(GenContext* ctx, FtraceWriter* w, int cpu, int64_t ts);
void MaybeCpuCounters(GenContext* ctx, FtraceWriter* w, int cpu, int64_t ts);
void MaybeRssStat(GenContext* ctx, FtraceWriter* w, int cpu, int64_t ts);

}  // namespace fathom::difftester
