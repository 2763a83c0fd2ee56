#include "core/import/generic_kernel_parser.h"

#include "core/import/process_tracker.h"
#include "core/import/sorter.h"
#include "core/import/track_tracker.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {

using perfetto::protos::GenericKernelCpuFrequencyEvent;
using perfetto::protos::GenericKernelTaskRenameEvent;
using perfetto::protos::GenericKernelTaskStateEvent;
using perfetto::protos::TracePacket;

GenericKernelParser::GenericKernelParser(TraceContext* ctx, FtraceTableWriter* ts)
    : ctx_(ctx), storage_(ctx->storage.get()), thread_state_(ts) {
  // Indexed by GenericKernelTaskStateEvent.TaskStateEnum.
  const char* const kNames[] = {"Unknown", "Created", "R", "Running", "S", "D", "T", "Z", "X"};
  for (int i = 0; i < 9; ++i) states_[i] = storage_->Intern(kNames[i]);
  running_ = states_[GenericKernelTaskStateEvent::TASK_STATE_RUNNING];
  cpufreq_ = storage_->Intern("cpufreq");
  cpu_frequency_ = storage_->Intern("cpu_frequency");
}

void GenericKernelParser::ParsePacket(int64_t ts, uint32_t field_id, proto::Bytes payload) {
  storage_->UpdateBounds(ts);
  switch (field_id) {
    case TracePacket::kGenericKernelTaskStateEventFieldNumber:
      return ParseTaskState(ts, payload);
    case TracePacket::kGenericKernelTaskRenameEventFieldNumber:
      return ParseTaskRename(payload);
    case TracePacket::kGenericKernelCpuFreqEventFieldNumber:
      return ParseCpuFrequency(ts, payload);
    default:
      return;
  }
}

void GenericKernelParser::SetName(uint32_t utid, StringId comm) {
  if (comm != kNullStringId) ctx_->process_tracker->SetThreadName(utid, comm);
}

void GenericKernelParser::CountInvalidOrder() {
  storage_->stats.Increment(Stat::kGenericTaskStateInvalidOrder);
}

void GenericKernelParser::PushState(int64_t ts, uint32_t utid, StringId state,
                                    std::optional<uint32_t> cpu) {
  ThreadInfo& info = Info(utid);
  if (info.last_state_ts == ts) CountInvalidOrder();
  info.last_state_ts = ts;
  info.running = state == running_;
  thread_state_->PushState(ts, utid, state, cpu);
}

std::optional<uint32_t> GenericKernelParser::UtidForState(int64_t ts, int64_t tid, StringId comm,
                                                          uint32_t state) {
  ProcessTracker* pt = ctx_->process_tracker.get();
  auto invalid = [&]() -> std::optional<uint32_t> {
    CountInvalidOrder();
    return std::nullopt;
  };
  if (state == GenericKernelTaskStateEvent::TASK_STATE_CREATED) {
    if (pt->GetThreadOrNull(tid)) return invalid();
    uint32_t utid = pt->StartNewThread(ts, tid);
    SetName(utid, comm);
    return utid;
  }
  if (state == GenericKernelTaskStateEvent::TASK_STATE_UNKNOWN ||
      state > GenericKernelTaskStateEvent::TASK_STATE_DESTROYED)
    return std::nullopt;
  uint32_t utid = pt->GetOrCreateThread(tid);
  ThreadInfo& info = Info(utid);
  switch (state) {
    case GenericKernelTaskStateEvent::TASK_STATE_DESTROYED:
      // The tid's next event belongs to a new thread.
      pt->EndThread(ts, tid);
      break;
    case GenericKernelTaskStateEvent::TASK_STATE_DEAD:
      if (info.dead) return invalid();
      info.dead = true;
      break;
    case GenericKernelTaskStateEvent::TASK_STATE_RUNNING:
      if (info.dead || info.running) return invalid();
      break;
    default:
      if (info.dead) return invalid();
  }
  SetName(utid, comm);
  return utid;
}

void GenericKernelParser::ParseTaskState(int64_t ts, proto::Bytes payload) {
  using E = GenericKernelTaskStateEvent;
  proto::FlatMessage<8> m(payload);
  uint32_t cpu = m[E::kCpuFieldNumber].as_uint32();
  // The cpu indexes per-CPU state: a corrupt value must not size a vector.
  if (cpu >= kMaxCpus) {
    CountInvalidOrder();
    return;
  }
  int64_t tid = m[E::kTidFieldNumber].as_int64();
  int32_t prio = m[E::kPrioFieldNumber].as_int32();
  uint32_t state = m[E::kStateFieldNumber].as_uint32();
  StringId comm = m.has(E::kCommFieldNumber) ? storage_->Intern(m[E::kCommFieldNumber].as_string())
                                             : kNullStringId;
  auto utid_opt = UtidForState(ts, tid, comm, state);
  if (!utid_opt) return;
  uint32_t utid = *utid_opt;
  StringId st = states_[state];
  if (cpu >= cpus_.size()) cpus_.resize(cpu + 1);
  CpuState& c = cpus_[cpu];
  auto& sched = storage_->sched;

  if (st == running_) {
    if (c.slice_row != kNone) {
      // Switched out by this task: its own state may follow at the same ts.
      sched.dur.Set(c.slice_row, ts - sched.ts[c.slice_row]);
      Info(c.utid).hanging_slice_row = c.slice_row;
      PushState(ts, c.utid, kNullStringId, std::nullopt);
    }
    c.slice_row = sched.Insert(ts, -1, cpu, utid, kNullStringId, prio);
    c.utid = utid;
    c.tid = tid;
    PushState(ts, utid, st, cpu);
    return;
  }
  if (c.slice_row != kNone && tid == c.tid) {
    sched.dur.Set(c.slice_row, ts - sched.ts[c.slice_row]);
    sched.end_state.Set(c.slice_row, st);
    c = CpuState{};
    PushState(ts, utid, st, std::nullopt);
    return;
  }
  ThreadInfo& info = Info(utid);
  if (info.hanging_slice_row != kNone) {
    uint32_t row = info.hanging_slice_row;
    info.hanging_slice_row = kNone;
    if (sched.ts[row] + sched.dur[row] == ts) {
      // Fills in the unknown state the switch left: no new row.
      sched.end_state.Set(row, st);
      thread_state_->UpdateOpenState(utid, st);
      return;
    }
  }
  PushState(ts, utid, st, std::nullopt);
}

void GenericKernelParser::ParseTaskRename(proto::Bytes payload) {
  using E = GenericKernelTaskRenameEvent;
  proto::FlatMessage<4> m(payload);
  uint32_t utid = ctx_->process_tracker->GetOrCreateThread(m[E::kTidFieldNumber].as_int64());
  ctx_->process_tracker->SetThreadName(utid, storage_->Intern(m[E::kCommFieldNumber].as_string()));
}

void GenericKernelParser::ParseCpuFrequency(int64_t ts, proto::Bytes payload) {
  using E = GenericKernelCpuFrequencyEvent;
  proto::FlatMessage<4> m(payload);
  uint32_t track = ctx_->track_tracker->InternCpuCounterTrack(
      m[E::kCpuFieldNumber].as_uint32(), cpufreq_, cpu_frequency_, ctx_->packet_machine_id);
  // Hz in the event, kHz in the cpufreq track (as ftrace's cpu_frequency).
  ctx_->track_tracker->PushCounter(
      ts, static_cast<double>(m[E::kFreqHzFieldNumber].as_int64()) / 1000, track);
}

}  // namespace fathom
