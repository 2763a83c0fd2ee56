// The ftrace power/suspend_resume event as upstream models it: each phase is
// a slice "ACTION(VAL)" on the compressed "Suspend/Resume Latency" tracks
// (type suspend_resume, TrackCompressor nestable slots keyed by the slice
// name: repeated starts of one phase nest on its slot, a name goes back to
// the slot it used last when that is free, others take the lowest free one).
// Start 1 begins a slice, start 0 ends the innermost open slice of that name
// (none open: nothing ends, but the end still claims a slot, which may
// create a track). timekeeping_freeze's val is the CPU it ran on, so its
// name always uses 0 and its start and end pair across CPUs.
//
// Every slice carries the args utid, event_type ("Main Kernel Suspend
// Event"), cpu, and device_name / driver_name / callback_phase as null
// strings (those are for device PM callbacks).
//
// power/device_pm_callback_start/_end put each driver PM callback on the
// same tracks: a slice "DEVICE DRIVER" (also the compressor key), whose args
// say event_type "Device PM Suspend Event", the device and driver names and
// callback_phase "EVENT[:PHASE]" (EVENT from the PM event code, PHASE the
// leading early/late/noirq of pm_ops; an empty pm_ops means prepare for
// suspend and complete for resume). The end closes that name's slice.
//
// power/suspend_resume_minimal: the whole system's suspends as nested
// "Suspended" slices on one global "Suspend/Resume Minimal" track (type
// suspend_resume_minimal).
//
// A kernel bug leaves suspend_enter open when suspend_prepare fails: then
// thaw_processes ends while freeze_processes runs inside suspend_enter, and
// that end also closes the suspend_enter slice.
#pragma once

#include <cstdint>
#include <string>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"
#include "core/import/track_compressor.h"

namespace fathom {

class FtraceSuspendResume {
 public:
  explicit FtraceSuspendResume(TraceContext* ctx);

  // True when `event_id` (an FtraceEvent field) is one of the events above.
  static bool Handles(uint32_t event_id);
  void Parse(int64_t ts, uint32_t cpu, uint32_t pid, uint32_t event_id, proto::Bytes payload);

 private:
  enum class State { kInitial, kEnter, kFreeze };

  void ParseSuspendResume(int64_t ts, uint32_t cpu, uint32_t pid, proto::Bytes payload);
  void ParseMinimal(int64_t ts, proto::Bytes payload);
  void ParseDpmStart(int64_t ts, uint32_t cpu, uint32_t pid, proto::Bytes payload);
  void ParseDpmEnd(int64_t ts, proto::Bytes payload);
  // Begins `name`'s slice with the args every slice here carries.
  void Begin(int64_t ts, uint32_t cpu, uint32_t pid, StringId name, StringId event_type,
             StringId device, StringId driver, StringId callback_phase);
  void End(int64_t ts, StringId name);
  uint32_t CreateTrack(uint32_t idx);

  TraceContext* ctx_;
  TraceStorage* storage_;
  TrackCompressor tracks_;
  State state_ = State::kInitial;
  StringId suspend_enter_name_ = kNullStringId;  // the open suspend_enter's name
  StringId track_name_, track_type_, main_event_, device_pm_event_;
  StringId minimal_track_name_, minimal_track_type_, suspended_;
};

}  // namespace fathom
