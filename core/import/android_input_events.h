// Android input tracing (data source android.input.inputevent): the
// AndroidInputEvent payload of TracePacket.winscope_extensions. Key and
// motion events go to __intrinsic_android_key_events / _motion_events (row
// ts: the packet's), per-window dispatches to
// __intrinsic_android_input_event_dispatch; every row's args hold the event
// proto flattened (proto_to_args.h). Redacted variants import the same way.
#pragma once

#include <cstdint>

#include "core/import/proto_decoder.h"

namespace fathom {

struct TraceContext;

void ParseAndroidInputEvent(TraceContext* ctx, int64_t ts, proto::Bytes event);

}  // namespace fathom
