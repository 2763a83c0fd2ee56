#include "core/import/ftrace_table_writer.h"

#include <thread>

#include "core/base/async_prefault.h"
#include "core/base/batch_pipe.h"

namespace fathom {

struct FtraceTableWriter::Command {
  enum class Op : uint8_t {
    kRawEvent,
    kRawEventDeferred,
    kSchedSwitch,
    kCompactWaking,
    kWaking,
    kBlockedReason,
    kState,
    kUpdateOpenState,
  };
  Op op;
  // Which optionals below are set.
  bool has_set = false, has_flags = false, has_cpu = false, has_other = false;
  bool io_wait_known = false, io_wait = false;
  int8_t irq_context = -1;  // a waking's: 1 in hard/soft irq, 0 not, -1 unknown
  int64_t ts = 0;
  uint32_t cpu = 0;
  uint32_t utid = 0;   // the raw row's utid, or the thread whose state changes
  uint32_t other = 0;  // next_utid, waker_utid, wakee
  uint32_t set = 0;
  uint32_t flags = 0;
  StringId name = kNullStringId;   // the raw row's event name
  StringId state = kNullStringId;  // prev_state, state, blocked_function
  uint32_t event_id = 0;
  union {
    FtraceRawArgs::Switch sw;
    FtraceRawArgs::Waking wk;
    proto::Bytes payload;
  };
  Command() : payload{} {}
};

struct FtraceTableWriter::Worker {
  struct Batch {
    static constexpr size_t kCapacity = 4096;
    Command items[kCapacity];
    size_t size = 0;
  };
  BatchPipe<Batch, 8> pipe;
  Batch* filling = nullptr;
  std::thread thread;
};

FtraceTableWriter::FtraceTableWriter(TraceStorage* storage, FtraceRawArgs* raw_args)
    : storage_(storage), raw_args_(raw_args), thread_state_(storage) {}

FtraceTableWriter::~FtraceTableWriter() { StopWorker(); }

void FtraceTableWriter::StartWorker() {
  if (worker_) return;
  worker_ = std::make_unique<Worker>();
  worker_->thread = std::thread([this] {
    // This thread bounds a compact_sched load, and ~40 % of its time went to faulting in
    // fresh column pages: a helper does that ahead of it (async_prefault.h).
    platform::SetAsyncPrefaultForThisThread(true);
    while (const Worker::Batch* b = worker_->pipe.Next()) {
      for (size_t i = 0; i < b->size; ++i) Apply(b->items[i]);
      worker_->pipe.Release();
    }
  });
}

void FtraceTableWriter::StopWorker() {
  if (!worker_) return;
  Worker& w = *worker_;
  if (w.filling && w.filling->size) {
    w.pipe.Publish();
    w.filling = nullptr;
  }
  w.pipe.Finish(w.filling);
  w.thread.join();
  worker_.reset();
}

void FtraceTableWriter::Submit(const Command& c) {
  if (!worker_) return Apply(c);
  Worker& w = *worker_;
  if (!w.filling) w.filling = w.pipe.Acquire();  // the consumer never abandons: not null
  w.filling->items[w.filling->size] = c;
  if (++w.filling->size == Worker::Batch::kCapacity) {
    w.pipe.Publish();
    w.filling = nullptr;
  }
}

void FtraceTableWriter::Apply(const Command& c) {
  using Op = Command::Op;
  auto& raw = storage_->ftrace_event;
  switch (c.op) {
    case Op::kRawEvent:
      raw.Insert(c.ts, c.name, c.cpu, c.utid, c.has_set, c.set, c.has_flags, c.flags);
      break;
    case Op::kRawEventDeferred:
      raw_args_->DeferEvent(c.set, c.event_id, c.payload);
      raw.Insert(c.ts, c.name, c.cpu, c.utid, c.has_set, c.set, c.has_flags, c.flags);
      break;
    case Op::kSchedSwitch:
      raw_args_->DeferSwitch(c.set, c.sw);
      raw.Insert(c.ts, c.name, c.cpu, c.utid, c.has_set, c.set, false, 0);
      thread_state_.PushSchedSwitch(c.ts, c.cpu, c.utid, c.state, c.other);
      break;
    case Op::kCompactWaking:
      raw_args_->DeferWaking(c.set, c.wk);
      raw.Insert(c.ts, c.name, c.cpu, c.utid, c.has_set, c.set, c.has_flags, c.flags);
      if (c.has_other) thread_state_.PushWaking(c.ts, c.other, c.utid, c.irq_context);
      break;
    case Op::kWaking:
      thread_state_.PushWaking(c.ts, c.utid, c.other, c.irq_context);
      break;
    case Op::kBlockedReason:
      thread_state_.PushBlockedReason(
          c.utid, c.io_wait_known ? std::optional<bool>(c.io_wait) : std::nullopt, c.state);
      break;
    case Op::kState:
      thread_state_.PushState(c.ts, c.utid, c.state,
                              c.has_cpu ? std::optional<uint32_t>(c.cpu) : std::nullopt);
      break;
    case Op::kUpdateOpenState:
      thread_state_.UpdateOpenState(c.utid, c.state);
      break;
  }
}

namespace {
// The fields every raw row has.
FtraceTableWriter::Command RawRow(FtraceTableWriter::Command::Op op, int64_t ts, StringId name,
                                  uint32_t cpu, uint32_t utid, std::optional<uint32_t> set,
                                  std::optional<uint32_t> common_flags) {
  FtraceTableWriter::Command c;
  c.op = op;
  c.ts = ts;
  c.name = name;
  c.cpu = cpu;
  c.utid = utid;
  c.has_set = set.has_value();
  c.set = set.value_or(0);
  c.has_flags = common_flags.has_value();
  c.flags = common_flags.value_or(0);
  return c;
}
// A thread state change of `utid`, with another thread (waker) when it matters.
FtraceTableWriter::Command StateOf(FtraceTableWriter::Command::Op op, int64_t ts, uint32_t utid,
                                   uint32_t other, StringId state) {
  FtraceTableWriter::Command c;
  c.op = op;
  c.ts = ts;
  c.utid = utid;
  c.other = other;
  c.state = state;
  return c;
}
}  // namespace

void FtraceTableWriter::RawEvent(int64_t ts, StringId name, uint32_t cpu, uint32_t utid,
                                 std::optional<uint32_t> set,
                                 std::optional<uint32_t> common_flags) {
  Submit(RawRow(Command::Op::kRawEvent, ts, name, cpu, utid, set, common_flags));
}

void FtraceTableWriter::RawEventDeferred(int64_t ts, StringId name, uint32_t cpu, uint32_t utid,
                                         uint32_t set, std::optional<uint32_t> common_flags,
                                         uint32_t event_id, proto::Bytes payload) {
  Command c = RawRow(Command::Op::kRawEventDeferred, ts, name, cpu, utid, set, common_flags);
  c.event_id = event_id;
  c.payload = payload;
  Submit(c);
}

void FtraceTableWriter::SchedSwitch(int64_t ts, uint32_t cpu, StringId name, uint32_t set,
                                    const FtraceRawArgs::Switch& args, uint32_t prev_utid,
                                    StringId prev_state, uint32_t next_utid) {
  Command c = RawRow(Command::Op::kSchedSwitch, ts, name, cpu, prev_utid, set, std::nullopt);
  c.sw = args;
  c.state = prev_state;
  c.other = next_utid;
  Submit(c);
}

void FtraceTableWriter::CompactWaking(int64_t ts, uint32_t cpu, StringId name, uint32_t set,
                                      const FtraceRawArgs::Waking& args, uint32_t waker_utid,
                                      std::optional<uint32_t> common_flags,
                                      std::optional<uint32_t> wakee) {
  Command c = RawRow(Command::Op::kCompactWaking, ts, name, cpu, waker_utid, set, common_flags);
  c.wk = args;
  // The kernel's irq flags (TRACE_FLAG_HARDIRQ 0x08, TRACE_FLAG_SOFTIRQ 0x10): a
  // waking from interrupt context, as upstream reports it.
  if (common_flags) c.irq_context = (*common_flags & 0x18) ? 1 : 0;
  c.has_other = wakee.has_value();
  c.other = wakee.value_or(0);
  Submit(c);
}

void FtraceTableWriter::PushWaking(int64_t ts, uint32_t utid, uint32_t waker_utid,
                                   int irq_context) {
  Command c = StateOf(Command::Op::kWaking, ts, utid, waker_utid, kNullStringId);
  c.irq_context = static_cast<int8_t>(irq_context);
  Submit(c);
}

void FtraceTableWriter::PushBlockedReason(uint32_t utid, std::optional<bool> io_wait,
                                          StringId blocked_function) {
  Command c = StateOf(Command::Op::kBlockedReason, 0, utid, 0, blocked_function);
  c.io_wait_known = io_wait.has_value();
  c.io_wait = io_wait.value_or(false);
  Submit(c);
}

void FtraceTableWriter::PushState(int64_t ts, uint32_t utid, StringId state,
                                  std::optional<uint32_t> cpu) {
  Command c = StateOf(Command::Op::kState, ts, utid, 0, state);
  c.has_cpu = cpu.has_value();
  c.cpu = cpu.value_or(0);
  Submit(c);
}

void FtraceTableWriter::UpdateOpenState(uint32_t utid, StringId state) {
  Submit(StateOf(Command::Op::kUpdateOpenState, 0, utid, 0, state));
}

}  // namespace fathom
