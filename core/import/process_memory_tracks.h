// Finds or creates a process's memory counter track (mem.rss, mem.smaps.pss,
// ...) with upstream's type, dimensions and description.
#pragma once

#include <cstdint>

#include "core/import/trace_context.h"

namespace fathom {

uint32_t InternProcessMemoryTrack(TraceContext* ctx, uint32_t upid, StringId name);
// The track of a thread whose process never became known (rss_stat): upstream's
// process_memory_thread_fallback, with the same process_memory_key dimension.
uint32_t InternThreadMemoryFallbackTrack(TraceContext* ctx, uint32_t utid, StringId name);

}  // namespace fathom
