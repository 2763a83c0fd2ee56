// Writes the rows that only ftrace parsing produces and that nothing reads
// while a trace is imported: `ftrace_event` (the raw table, with its args
// deferred in FtraceRawArgs) and `thread_state` (FtraceThreadStateTracker).
//
// By default every call writes at once. Between StartWorker and StopWorker
// the calls are queued in batches and applied in the same order on a worker
// thread instead: on a big sched trace these appends (and the first touch of
// the columns' pages) are a third of the parser's work, and they need nothing
// back. The caller reserves the columns before StartWorker and reads the
// tables only after StopWorker.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "core/import/ftrace_raw_args.h"
#include "core/import/ftrace_thread_state.h"
#include "core/import/proto_decoder.h"
#include "core/storage/trace_storage.h"

namespace fathom {

class FtraceTableWriter {
 public:
  FtraceTableWriter(TraceStorage* storage, FtraceRawArgs* raw_args);
  ~FtraceTableWriter();  // stops the worker
  FtraceTableWriter(const FtraceTableWriter&) = delete;
  FtraceTableWriter& operator=(const FtraceTableWriter&) = delete;

  void StartWorker();
  void StopWorker();  // applies what is queued, then joins

  // A raw row whose args (if any) the caller has written already.
  void RawEvent(int64_t ts, StringId name, uint32_t cpu, uint32_t utid, std::optional<uint32_t> set,
                std::optional<uint32_t> common_flags);
  // A raw row with its args deferred (FtraceRawArgs::CanDefer must hold;
  // `payload` must outlive the import, see FtraceRawArgs::Retain).
  void RawEventDeferred(int64_t ts, StringId name, uint32_t cpu, uint32_t utid, uint32_t set,
                        std::optional<uint32_t> common_flags, uint32_t event_id,
                        proto::Bytes payload);
  // sched_switch: its raw row (named `name`, args deferred), then its thread states.
  void SchedSwitch(int64_t ts, uint32_t cpu, StringId name, uint32_t set,
                   const FtraceRawArgs::Switch& args, uint32_t prev_utid, StringId prev_state,
                   uint32_t next_utid);
  // A compact sched_waking's raw row (args deferred), and, when `wakee` is
  // set, the wakee's thread state.
  void CompactWaking(int64_t ts, uint32_t cpu, StringId name, uint32_t set,
                     const FtraceRawArgs::Waking& args, uint32_t waker_utid,
                     std::optional<uint32_t> common_flags, std::optional<uint32_t> wakee);

  // thread_state only (see FtraceThreadStateTracker).
  // `irq_context` as FtraceThreadStateTracker::PushWaking takes it (-1 NULL).
  void PushWaking(int64_t ts, uint32_t utid, uint32_t waker_utid, int irq_context = -1);
  void PushBlockedReason(uint32_t utid, std::optional<bool> io_wait, StringId blocked_function);
  void PushState(int64_t ts, uint32_t utid, StringId state, std::optional<uint32_t> cpu);
  void UpdateOpenState(uint32_t utid, StringId state);

  struct Command;  // one queued call (defined in the .cc)

 private:
  struct Worker;
  void Submit(const Command& c);
  void Apply(const Command& c);

  TraceStorage* storage_;
  FtraceRawArgs* raw_args_;
  FtraceThreadStateTracker thread_state_;
  std::unique_ptr<Worker> worker_;
};

}  // namespace fathom
