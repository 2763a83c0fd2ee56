// Chrome's trace-wide packets: ChromeMetadataPacket (TracePacket field 51)
// becomes cr-* metadata keys, and ChromeTrigger (field 109), the background
// tracing rule that fired, a cr-triggered_rule_name_hash row plus an instant
// "chrome_trigger" slice on the "Trace Triggers" track, as upstream does.
#pragma once

#include <cstdint>

#include "core/import/proto_decoder.h"

namespace fathom {

struct TraceContext;

// Upstream's field numbers; Fathom's protos do not carry these messages.
inline constexpr uint32_t kChromeMetadataPacketFieldNumber = 51;
inline constexpr uint32_t kChromeTriggerFieldNumber = 109;

// One ChromeMetadataPacket; `index` counts the ones read before it in file
// order, and its keys are prefixed cr-a-, cr-b-, ... by it. False when the
// packet is not valid protobuf.
bool ParseChromeMetadataPacket(TraceContext* ctx, uint32_t index, proto::Bytes packet);

// One ChromeTrigger at `ts` (sorted). False when it is not valid protobuf.
bool ParseChromeTrigger(TraceContext* ctx, int64_t ts, proto::Bytes trigger);

}  // namespace fathom
