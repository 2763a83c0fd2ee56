#include "core/import/ftrace_clock_events.h"

#include <string>

#include "core/import/args_tracker.h"
#include "core/import/track_tracker.h"

namespace fathom {

void ParseClockEvent(TraceContext* ctx, int64_t ts, uint32_t event_id, proto::Bytes payload) {
  // All three events: name = 1, state = 2, cpu_id = 3.
  proto::FlatMessage<4> m(payload);
  const std::string clock(m[1].as_string());
  const bool rate = event_id == kClockSetRateFieldNumber;
  TraceStorage* s = ctx->storage.get();
  const uint32_t tracks_before = s->track.row_count();
  const uint32_t track = ctx->track_tracker->InternGlobalCounterTrack(
      s->Intern(clock + (rate ? " Frequency" : " State")),
      s->Intern(rate ? "clock_frequency" : "clock_state"));
  if (track >= tracks_before) {  // a new track: its dimension
    auto dims = ctx->args_tracker->NewSet().AddString("linux_device", clock);
    if (auto set = dims.Commit()) s->track.dimension_arg_set_id.Set(track, *set);
  }
  ctx->track_tracker->PushCounter(ts, static_cast<double>(m[2].as_uint64()), track);
}

}  // namespace fathom
