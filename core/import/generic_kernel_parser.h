// GenericKernel* packets: kernel scheduling data from non-ftrace producers
// (other OSes, hypervisors), one task state change per event. Builds the same
// sched / thread_state / thread rows as ftrace, with upstream's rules:
// - RUNNING on a CPU closes the CPU's running slice (end_state unknown) and
//   gives the switched-out task an unknown (NULL) thread state; if that task's
//   own state event arrives at the same timestamp, it fills in both;
// - a non-running state of the task running on its CPU closes the slice with
//   that state as end_state;
// - CREATED starts a thread (dropped if the tid is alive); DEAD makes it a
//   zombie that only DESTROYED may follow; DESTROYED ends it, so the tid's next
//   event starts a new thread. RUNNING for a task already running and any
//   event for a zombie but DESTROYED are dropped and counted
//   (generic_task_state_invalid_order);
// - a thread's second state at one timestamp is kept but counted too (the
//   producer reported two changes it could not order).
#pragma once

#include <cstdint>
#include <vector>

#include "core/import/ftrace_table_writer.h"
#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

class GenericKernelParser {
 public:
  GenericKernelParser(TraceContext* ctx, FtraceTableWriter* thread_state);

  // `field_id`: the TracePacket field (generic_kernel_*).
  void ParsePacket(int64_t ts, uint32_t field_id, proto::Bytes payload);

 private:
  static constexpr uint32_t kNone = 0xffffffffu;
  struct CpuState {
    uint32_t slice_row = kNone;
    uint32_t utid = kNone;
    int64_t tid = -1;
  };
  struct ThreadInfo {
    uint32_t hanging_slice_row = kNone;  // slice closed by another task's RUNNING
    int64_t last_state_ts = INT64_MIN;   // start of the thread's open state
    bool running = false;
    bool dead = false;  // DEAD seen: only DESTROYED may follow
  };

  void ParseTaskState(int64_t ts, proto::Bytes payload);
  void ParseTaskRename(proto::Bytes payload);
  void ParseCpuFrequency(int64_t ts, proto::Bytes payload);
  // The thread an event of `state` refers to, nullopt if the event is invalid.
  std::optional<uint32_t> UtidForState(int64_t ts, int64_t tid, StringId comm, uint32_t state);
  void SetName(uint32_t utid, StringId comm);
  ThreadInfo& Info(uint32_t utid) {
    if (utid >= threads_.size()) threads_.resize(utid + 1 + utid / 2);
    return threads_[utid];
  }
  // A new thread_state row for `utid`; counts a second one at the same ts.
  void PushState(int64_t ts, uint32_t utid, StringId state, std::optional<uint32_t> cpu);
  void CountInvalidOrder();

  TraceContext* ctx_;
  TraceStorage* storage_;
  FtraceTableWriter* thread_state_;
  std::vector<CpuState> cpus_;
  std::vector<ThreadInfo> threads_;  // by utid
  StringId states_[9];
  StringId running_, cpufreq_, cpu_frequency_;
};

}  // namespace fathom
