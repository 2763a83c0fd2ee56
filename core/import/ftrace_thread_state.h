// Builds the `thread_state` table from scheduling events, with upstream
// Perfetto's rules:
// - sched_switch closes the previous state of both threads and opens
//   "Running" (with cpu) for next and the end_state ("S", "D", "R+"...) for prev;
// - a sched_waking of a blocked thread, or of a thread with no state yet,
//   opens "R" with waker_utid, waker_id (the waker's current row) and, from
//   compact_sched flags, irq_context; task_newtask counts as the creator
//   waking the new thread (irq_context 0); wakings of threads that are running or
//   already runnable are ignored (sched_wakeup and sched_wakeup_new make none);
// - sched_blocked_reason annotates the thread's last blocked row;
// - utid 0 (swapper/idle) never gets rows; rows still open keep dur -1.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

class FtraceThreadStateTracker {
 public:
  explicit FtraceThreadStateTracker(TraceStorage* storage);

  void PushSchedSwitch(int64_t ts, uint32_t cpu, uint32_t prev_utid, StringId prev_state,
                       uint32_t next_utid);
  // `irq_context`: 1 woken from interrupt context, 0 not, -1 unknown (NULL).
  // The new row's waker_id is the waker's current row, if it has one.
  void PushWaking(int64_t ts, uint32_t utid, uint32_t waker_utid, int irq_context);
  void PushBlockedReason(uint32_t utid, std::optional<bool> io_wait, StringId blocked_function);

  // Generic (non-ftrace) kernel task states: close the thread's current row
  // and open `state` (NULL = unknown) at ts.
  void PushState(int64_t ts, uint32_t utid, StringId state, std::optional<uint32_t> cpu);
  // Replaces the state of the thread's open row (an unknown row that learnt
  // its state from an event at the same timestamp).
  void UpdateOpenState(uint32_t utid, StringId state);

 private:
  // No row yet; NULL for the cpu and waker Open passes to the table.
  static constexpr uint32_t kNone = ThreadStateTable::kNone;
  // The thread's open row, with copies of its ts and state: reading them
  // back from the table columns was a cache miss per event.
  struct Rows {
    uint32_t last = kNone;
    uint32_t last_blocked = kNone;
    StringId last_state = kNullStringId;
    int64_t last_ts = 0;
  };
  bool HasRows(uint32_t utid) const { return utid < rows_.size() && rows_[utid].last != kNone; }
  bool IsBlocked(StringId s) const { return s != running_ && s != runnable_; }
  // Per scheduling event: plain values with kNone for NULL, not optionals,
  // which the compiler builds in memory and reloads whole (a store-forwarding
  // stall on every call).
  void Close(int64_t ts, uint32_t utid, bool data_loss);
  void Open(int64_t ts, uint32_t utid, StringId state, uint32_t cpu, uint32_t waker_utid);

  TraceStorage* storage_;
  StringId running_;
  StringId runnable_;
  std::vector<Rows> rows_;  // by utid
};

}  // namespace fathom
