// The tracks of Chrome's legacy process- and global-scoped instant events
// (JSON "s": "p" / "g", TrackEvent legacy_event instant_event_scope), shared
// by both importers: chrome_process_instant (dimension upid) and
// legacy_chrome_global_instants (no dimension), each with the source args
// source=chrome, as upstream.
#pragma once

#include <cstdint>

#include "core/import/trace_context.h"

namespace fathom {

uint32_t LegacyProcessInstantTrack(TraceContext* ctx, uint32_t upid);
uint32_t LegacyGlobalInstantTrack(TraceContext* ctx);

}  // namespace fathom
