// Problems found while parsing sorted events, for the load report. Sorted
// events no longer know their byte offset in the file, so a problem names the
// event's timestamp (trace clock, ns) instead when it has one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/import/trace_context.h"

namespace fathom {

inline void AddParseProblem(TraceContext* ctx, const std::string& kind, std::optional<int64_t> ts,
                            const std::string& what) {
  ctx->problems.AddParsed(kind, ts, what);
}

}  // namespace fathom
