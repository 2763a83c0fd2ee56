// SmapsPacket (per-mapping /proc/pid/smaps entries captured with profiles)
// into the profiler_smaps table.
#pragma once

#include <cstdint>

#include "core/import/proto_decoder.h"

namespace fathom {

struct TraceContext;

// One profiler_smaps row per SmapsEntry, at the packet's timestamp.
void ParseSmapsPacket(TraceContext* ctx, int64_t ts, proto::Bytes payload);

}  // namespace fathom
