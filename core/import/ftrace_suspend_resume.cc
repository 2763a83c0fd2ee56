#include "core/import/ftrace_suspend_resume.h"

#include <string_view>

#include "core/import/args_tracker.h"
#include "core/import/process_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/track_tracker.h"
#include "perfetto/trace/ftrace/ftrace_event_bundle.pb.h"

namespace fathom {

namespace pb = perfetto::protos;

namespace {
using Flat = proto::FlatMessage<8>;

// The kernel's PM_EVENT_* codes, as device_pm_callback_start reports them.
const char* PmEventName(int32_t event) {
  switch (event) {
    case 0x1:
      return "freeze";
    case 0x2:
      return "suspend";
    case 0x4:
      return "hibernate";
    case 0x8:
      return "quiesce";
    case 0x10:
      return "resume";
    case 0x20:
      return "thaw";
    case 0x40:
      return "restore";
    case 0x80:
      return "recover";
    default:
      return "(unknown PM event)";
  }
}

// "EVENT[:PHASE]". The kernel leaves pm_ops empty for the prepare and
// complete callbacks; otherwise pm_ops may start with the phase.
std::string CallbackPhase(std::string_view pm_ops, int32_t event) {
  std::string phase = PmEventName(event);
  if (pm_ops.empty()) {
    if (phase == "suspend") return phase + ":prepare";
    if (phase == "resume") return phase + ":complete";
  }
  for (std::string_view p : {"early", "late", "noirq"}) {
    if (pm_ops.substr(0, p.size()) == p) return phase + ":" + std::string(p);
  }
  return phase;
}

}  // namespace

FtraceSuspendResume::FtraceSuspendResume(TraceContext* ctx)
    : ctx_(ctx), storage_(ctx->storage.get()) {
  track_name_ = storage_->Intern("Suspend/Resume Latency");
  track_type_ = storage_->Intern("suspend_resume");
  main_event_ = storage_->Intern("Main Kernel Suspend Event");
  device_pm_event_ = storage_->Intern("Device PM Suspend Event");
  minimal_track_name_ = storage_->Intern("Suspend/Resume Minimal");
  minimal_track_type_ = storage_->Intern("suspend_resume_minimal");
  suspended_ = storage_->Intern("Suspended");
}

bool FtraceSuspendResume::Handles(uint32_t event_id) {
  using FE = pb::FtraceEvent;
  return event_id == FE::kSuspendResumeFieldNumber ||
         event_id == FE::kSuspendResumeMinimalFieldNumber ||
         event_id == FE::kDevicePmCallbackStartFieldNumber ||
         event_id == FE::kDevicePmCallbackEndFieldNumber;
}

void FtraceSuspendResume::Parse(int64_t ts, uint32_t cpu, uint32_t pid, uint32_t event_id,
                                proto::Bytes payload) {
  using FE = pb::FtraceEvent;
  switch (event_id) {
    case FE::kSuspendResumeFieldNumber:
      return ParseSuspendResume(ts, cpu, pid, payload);
    case FE::kSuspendResumeMinimalFieldNumber:
      return ParseMinimal(ts, payload);
    case FE::kDevicePmCallbackStartFieldNumber:
      return ParseDpmStart(ts, cpu, pid, payload);
    case FE::kDevicePmCallbackEndFieldNumber:
      return ParseDpmEnd(ts, payload);
    default:
      return;
  }
}

// The whole system's suspends: one global track, start 1 opens a
// "Suspended" slice and start 0 closes the innermost open one (the reference
// nests repeated starts). android_suspend_state reads these slices.
void FtraceSuspendResume::ParseMinimal(int64_t ts, proto::Bytes payload) {
  Flat m(payload);
  uint32_t track = ctx_->track_tracker->InternGlobalTrack(minimal_track_name_, minimal_track_type_);
  if (m[pb::SuspendResumeMinimalFtraceEvent::kStartFieldNumber].as_uint32())
    ctx_->slice_tracker->Begin(ts, track, kNullStringId, suspended_);
  else
    ctx_->slice_tracker->End(ts, track);
}

void FtraceSuspendResume::ParseSuspendResume(int64_t ts, uint32_t cpu, uint32_t pid,
                                             proto::Bytes payload) {
  using E = pb::SuspendResumeFtraceEvent;
  Flat m(payload);
  std::string action(m[E::kActionFieldNumber].as_string());
  // timekeeping_freeze's val is the CPU, which may differ between its start
  // and end: the reference names it with 0 so the two pair.
  int32_t val = action == "timekeeping_freeze" ? 0 : m[E::kValFieldNumber].as_int32();
  StringId name = storage_->Intern(action + "(" + std::to_string(val) + ")");
  if (m[E::kStartFieldNumber].as_uint32()) {
    if (action == "suspend_enter") {
      state_ = State::kEnter;
      suspend_enter_name_ = name;
    } else if (action == "freeze_processes" && state_ == State::kEnter) {
      state_ = State::kFreeze;
    }
    Begin(ts, cpu, pid, name, main_event_, kNullStringId, kNullStringId, kNullStringId);
    return;
  }
  End(ts, name);
  if (action == "suspend_enter") {
    state_ = State::kInitial;
  } else if (action == "thaw_processes" && state_ == State::kFreeze) {
    // suspend_prepare failed: its suspend_enter never ends by itself.
    End(ts, suspend_enter_name_);
    state_ = State::kInitial;
  }
}

void FtraceSuspendResume::ParseDpmStart(int64_t ts, uint32_t cpu, uint32_t pid,
                                        proto::Bytes payload) {
  using E = pb::DevicePmCallbackStartFtraceEvent;
  Flat m(payload);
  std::string_view device = m[E::kDeviceFieldNumber].as_string();
  std::string_view driver = m[E::kDriverFieldNumber].as_string();
  StringId name = storage_->Intern(std::string(device) + " " + std::string(driver));
  std::string phase =
      CallbackPhase(m[E::kPmOpsFieldNumber].as_string(), m[E::kEventFieldNumber].as_int32());
  Begin(ts, cpu, pid, name, device_pm_event_, storage_->Intern(device), storage_->Intern(driver),
        storage_->Intern(phase));
}

void FtraceSuspendResume::ParseDpmEnd(int64_t ts, proto::Bytes payload) {
  using E = pb::DevicePmCallbackEndFtraceEvent;
  Flat m(payload);
  End(ts, storage_->Intern(std::string(m[E::kDeviceFieldNumber].as_string()) + " " +
                           std::string(m[E::kDriverFieldNumber].as_string())));
}

void FtraceSuspendResume::Begin(int64_t ts, uint32_t cpu, uint32_t pid, StringId name,
                                StringId event_type, StringId device, StringId driver,
                                StringId callback_phase) {
  uint32_t track = tracks_.BeginNestable(name, [this](uint32_t idx) { return CreateTrack(idx); });
  auto args = ctx_->args_tracker->NewSet()
                  .AddUint("utid", ctx_->process_tracker->GetOrCreateThread(pid))
                  .AddString("event_type", event_type)
                  .AddUint("cpu", cpu)
                  .AddString("device_name", device)
                  .AddString("driver_name", driver)
                  .AddString("callback_phase", callback_phase);
  ctx_->slice_tracker->Begin(ts, track, kNullStringId, name, std::move(args));
}

void FtraceSuspendResume::End(int64_t ts, StringId name) {
  // Even with none open, the end claims a track as a begin would (creating
  // it if every track is busy), as the reference does.
  uint32_t track = tracks_.EndNestable(name, [this](uint32_t idx) { return CreateTrack(idx); });
  ctx_->slice_tracker->End(ts, track);
}

uint32_t FtraceSuspendResume::CreateTrack(uint32_t idx) {
  uint32_t t = ctx_->track_tracker->CreateTrack(false, track_name_, track_type_, std::nullopt,
                                                std::nullopt, std::nullopt);
  auto dims = ctx_->args_tracker->NewSet().AddInt("track_compressor_idx", idx);
  if (auto set = dims.Commit()) storage_->track.dimension_arg_set_id.Set(t, *set);
  storage_->track.track_group_id.Set(
      t, tracks_.GroupId([this] { return ctx_->track_tracker->NewTrackGroup(); }));
  return t;
}

}  // namespace fathom
