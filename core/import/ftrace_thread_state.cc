#include "core/import/ftrace_thread_state.h"

namespace fathom {

FtraceThreadStateTracker::FtraceThreadStateTracker(TraceStorage* storage)
    : storage_(storage), running_(storage->Intern("Running")), runnable_(storage->Intern("R")) {}

void FtraceThreadStateTracker::Close(int64_t ts, uint32_t utid, bool data_loss) {
  if (!HasRows(utid) || data_loss) return;
  storage_->thread_state.dur.Set(rows_[utid].last, ts - rows_[utid].last_ts);
}

void FtraceThreadStateTracker::Open(int64_t ts, uint32_t utid, StringId state, uint32_t cpu,
                                    uint32_t waker_utid) {
  if (utid == 0) return;  // swapper
  uint32_t row = storage_->thread_state.Insert(ts, -1, cpu, utid, state, waker_utid);
  if (utid >= rows_.size()) rows_.resize(utid + 1 + utid / 2);
  Rows& r = rows_[utid];
  if (state == running_) {
    r.last_blocked = kNone;
  } else if (state != runnable_) {
    r.last_blocked = row;
  }
  r.last = row;
  r.last_state = state;
  r.last_ts = ts;
}

void FtraceThreadStateTracker::PushSchedSwitch(int64_t ts, uint32_t cpu, uint32_t prev_utid,
                                               StringId prev_state, uint32_t next_utid) {
  // If prev was not running we lost data in between: leave its row open-ended
  // rather than invent a duration.
  bool data_loss = HasRows(prev_utid) && rows_[prev_utid].last_state != running_;
  Close(ts, prev_utid, data_loss);
  Open(ts, prev_utid, prev_state, kNone, kNone);
  // The next thread may still look running on another CPU (forced
  // migration): truncate whatever it had and start Running here.
  Close(ts, next_utid, false);
  Open(ts, next_utid, running_, cpu, kNone);
}

void FtraceThreadStateTracker::PushWaking(int64_t ts, uint32_t utid, uint32_t waker_utid,
                                          int irq_context) {
  // A thread's first event may be its waking: it is runnable from then on.
  if (utid == 0 || (HasRows(utid) && !IsBlocked(rows_[utid].last_state))) return;
  Close(ts, utid, false);
  // The waker is running: its Running row, unless the trace lost it.
  const uint32_t waker_row = HasRows(waker_utid) && rows_[waker_utid].last_state == running_
                                 ? rows_[waker_utid].last
                                 : kNone;
  Open(ts, utid, runnable_, kNone, waker_utid);
  // The R row just opened is the table's last: the sparse columns take it.
  if (waker_row != kNone) storage_->thread_state.waker_id.SetLast(waker_row);
  if (irq_context >= 0)
    storage_->thread_state.irq_context.SetLast(static_cast<uint32_t>(irq_context));
}

void FtraceThreadStateTracker::PushBlockedReason(uint32_t utid, std::optional<bool> io_wait,
                                                 StringId blocked_function) {
  if (!HasRows(utid) || rows_[utid].last_blocked == kNone) return;
  uint32_t row = rows_[utid].last_blocked;
  if (io_wait) storage_->thread_state.io_wait.Set(row, *io_wait ? 1 : 0);
  if (blocked_function != kNullStringId)
    storage_->thread_state.blocked_function.Set(row, blocked_function);
}

void FtraceThreadStateTracker::PushState(int64_t ts, uint32_t utid, StringId state,
                                         std::optional<uint32_t> cpu) {
  Close(ts, utid, false);
  Open(ts, utid, state, cpu.value_or(kNone), kNone);
}

void FtraceThreadStateTracker::UpdateOpenState(uint32_t utid, StringId state) {
  if (!HasRows(utid)) return;
  storage_->thread_state.state.Set(rows_[utid].last, state);
  rows_[utid].last_state = state;
}

}  // namespace fathom
