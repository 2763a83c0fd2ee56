#include "core/import/ftrace_clock_events.h"

#include <string>

#include "core/import/track_tracker.h"

namespace fathom {

void ParseClockEvent(TraceContext* ctx, int64_t ts, uint32_t event_id, proto::Bytes payload) {
  // All three events: name = 1, state = 2, cpu_id = 3.
  proto::FlatMessage<4> m(payload);
  const std::string clock(m[1].as_string());
  const bool rate = event_id == kClockSetRateFieldNumber;
  TraceStorage* s = ctx->storage.get();
  // Its device is its dimension (the same track as sys_stats devfreq's).
  const uint32_t track = ctx->track_tracker->InternGlobalCounterTrack(
      s->Intern(clock + (rate ? " Frequency" : " State")),
      s->Intern(rate ? "clock_frequency" : "clock_state"), kNullStringId,
      TrackDims().Str("linux_device", clock));
  ctx->track_tracker->PushCounter(ts, static_cast<double>(m[2].as_uint64()), track);
}

}  // namespace fathom
