// Finds or creates a process's memory counter track (mem.rss, mem.smaps.pss,
// ...) with upstream's type, dimensions and description.
#pragma once

#include <cstdint>

#include "core/import/trace_context.h"

namespace fathom {

uint32_t InternProcessMemoryTrack(TraceContext* ctx, uint32_t upid, StringId name);

}  // namespace fathom
