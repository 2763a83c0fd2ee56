#include "core/import/ftrace_thread_state.h"

#include <thread>

#include "core/base/batch_pipe.h"

namespace fathom {

struct FtraceThreadStateTracker::Worker {
  BatchPipe<CommandBatch, 8> pipe;
  std::thread thread;
};

FtraceThreadStateTracker::FtraceThreadStateTracker(TraceStorage* storage)
    : storage_(storage), running_(storage->Intern("Running")), runnable_(storage->Intern("R")) {}

FtraceThreadStateTracker::~FtraceThreadStateTracker() { StopWorker(); }

void FtraceThreadStateTracker::StartWorker() {
  if (worker_) return;
  worker_ = std::make_unique<Worker>();
  worker_->thread = std::thread([this] {
    while (const CommandBatch* b = worker_->pipe.Next()) {
      for (size_t i = 0; i < b->size; ++i) Apply(b->items[i]);
      worker_->pipe.Release();
    }
  });
}

void FtraceThreadStateTracker::StopWorker() {
  if (!worker_) return;
  if (batch_ && batch_->size) {
    worker_->pipe.Publish();
    batch_ = nullptr;
  }
  worker_->pipe.Finish(batch_);
  batch_ = nullptr;
  worker_->thread.join();
  worker_.reset();
}

bool FtraceThreadStateTracker::Enqueue(const Command& c) {
  if (!worker_) return false;
  if (!batch_) batch_ = worker_->pipe.Acquire();  // never abandoned: not null
  batch_->items[batch_->size] = c;
  if (++batch_->size == CommandBatch::kCapacity) {
    worker_->pipe.Publish();
    batch_ = nullptr;
  }
  return true;
}

void FtraceThreadStateTracker::Apply(const Command& c) {
  switch (c.op) {
    case Op::kSwitch:
      ApplySchedSwitch(c.ts, c.cpu, c.utid, c.state, c.other);
      break;
    case Op::kWaking:
      ApplyWaking(c.ts, c.utid, c.other);
      break;
    case Op::kNewTask:
      Open(c.ts, c.utid, runnable_, std::nullopt, c.other);
      break;
    case Op::kBlockedReason:
      ApplyBlockedReason(
          c.utid, c.flags & 1 ? std::optional<bool>((c.flags & 2) != 0) : std::nullopt, c.state);
      break;
    case Op::kState:
      ApplyState(c.ts, c.utid, c.state,
                 c.flags & 1 ? std::optional<uint32_t>(c.cpu) : std::nullopt);
      break;
    case Op::kUpdateOpenState:
      ApplyUpdateOpenState(c.utid, c.state);
      break;
  }
}

void FtraceThreadStateTracker::PushSchedSwitch(int64_t ts, uint32_t cpu, uint32_t prev_utid,
                                               StringId prev_state, uint32_t next_utid) {
  if (!Enqueue({ts, prev_utid, next_utid, cpu, prev_state, Op::kSwitch, 0}))
    ApplySchedSwitch(ts, cpu, prev_utid, prev_state, next_utid);
}

void FtraceThreadStateTracker::PushWaking(int64_t ts, uint32_t utid, uint32_t waker_utid) {
  if (!Enqueue({ts, utid, waker_utid, 0, kNullStringId, Op::kWaking, 0}))
    ApplyWaking(ts, utid, waker_utid);
}

void FtraceThreadStateTracker::PushNewTask(int64_t ts, uint32_t utid, uint32_t waker_utid) {
  if (!Enqueue({ts, utid, waker_utid, 0, kNullStringId, Op::kNewTask, 0}))
    Open(ts, utid, runnable_, std::nullopt, waker_utid);
}

void FtraceThreadStateTracker::PushBlockedReason(uint32_t utid, std::optional<bool> io_wait,
                                                 StringId blocked_function) {
  uint8_t flags = io_wait ? static_cast<uint8_t>(1 | (*io_wait ? 2 : 0)) : 0;
  if (!Enqueue({0, utid, 0, 0, blocked_function, Op::kBlockedReason, flags}))
    ApplyBlockedReason(utid, io_wait, blocked_function);
}

void FtraceThreadStateTracker::PushState(int64_t ts, uint32_t utid, StringId state,
                                         std::optional<uint32_t> cpu) {
  if (!Enqueue({ts, utid, 0, cpu.value_or(0), state, Op::kState, cpu ? uint8_t{1} : uint8_t{0}}))
    ApplyState(ts, utid, state, cpu);
}

void FtraceThreadStateTracker::UpdateOpenState(uint32_t utid, StringId state) {
  if (!Enqueue({0, utid, 0, 0, state, Op::kUpdateOpenState, 0})) ApplyUpdateOpenState(utid, state);
}

void FtraceThreadStateTracker::ApplySchedSwitch(int64_t ts, uint32_t cpu, uint32_t prev_utid,
                                                StringId prev_state, uint32_t next_utid) {
  // If prev was not running we lost data in between: leave its row open-ended
  // rather than invent a duration.
  bool data_loss = HasRows(prev_utid) && rows_[prev_utid].last_state != running_;
  Close(ts, prev_utid, data_loss);
  Open(ts, prev_utid, prev_state, std::nullopt, std::nullopt);
  // The next thread may still look running on another CPU (forced
  // migration): truncate whatever it had and start Running here.
  Close(ts, next_utid, false);
  Open(ts, next_utid, running_, cpu, std::nullopt);
}

void FtraceThreadStateTracker::ApplyWaking(int64_t ts, uint32_t utid, uint32_t waker_utid) {
  if (!HasRows(utid)) return;
  if (!IsBlocked(rows_[utid].last_state)) return;
  Close(ts, utid, false);
  Open(ts, utid, runnable_, std::nullopt, waker_utid);
}

void FtraceThreadStateTracker::ApplyBlockedReason(uint32_t utid, std::optional<bool> io_wait,
                                                  StringId blocked_function) {
  if (!HasRows(utid) || rows_[utid].last_blocked == kNone) return;
  uint32_t row = rows_[utid].last_blocked;
  if (io_wait) storage_->thread_state.io_wait.Set(row, *io_wait ? 1 : 0);
  if (blocked_function != kNullStringId)
    storage_->thread_state.blocked_function.Set(row, blocked_function);
}

void FtraceThreadStateTracker::ApplyState(int64_t ts, uint32_t utid, StringId state,
                                          std::optional<uint32_t> cpu) {
  Close(ts, utid, false);
  Open(ts, utid, state, cpu, std::nullopt);
}

void FtraceThreadStateTracker::ApplyUpdateOpenState(uint32_t utid, StringId state) {
  if (!HasRows(utid)) return;
  storage_->thread_state.state.Set(rows_[utid].last, state);
  rows_[utid].last_state = state;
}

void FtraceThreadStateTracker::Close(int64_t ts, uint32_t utid, bool data_loss) {
  if (!HasRows(utid) || data_loss) return;
  storage_->thread_state.dur.Set(rows_[utid].last, ts - rows_[utid].last_ts);
}

void FtraceThreadStateTracker::Open(int64_t ts, uint32_t utid, StringId state,
                                    std::optional<uint32_t> cpu,
                                    std::optional<uint32_t> waker_utid) {
  if (utid == 0) return;  // swapper
  auto& table = storage_->thread_state;
  uint32_t row = table.Insert(ts, -1, cpu, utid, state);
  if (waker_utid) table.waker_utid.Set(row, *waker_utid);
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

}  // namespace fathom
