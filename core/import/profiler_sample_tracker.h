// Writes the generic profiler sample model (__intrinsic_profiler_* tables,
// see core/storage/profiler_sample_tables.h) for the perf and StackSample
// importers: deduplicated task and execution contexts, sessions, the counter
// tracks of a session and each sample with its counter set.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "core/import/args_tracker.h"
#include "core/storage/trace_storage.h"

namespace fathom {

struct TraceContext;

class ProfilerSampleTracker {
 public:
  explicit ProfilerSampleTracker(TraceContext* ctx) : ctx_(ctx) {}

  uint32_t NewSession(StringId source, StringId timebase_unit);
  // nullopt when the sample names no process, thread nor async context.
  std::optional<uint32_t> InternTaskContext(std::optional<uint32_t> upid,
                                            std::optional<uint32_t> utid,
                                            std::optional<uint32_t> async_context);
  uint32_t InternExecutionContext(std::optional<uint32_t> cpu, StringId mode);

  // A counter track of a session. `dimensions` identify it (upstream's
  // dimension args), `source` describes it (is_timebase, ...).
  uint32_t NewCounterTrack(StringId name, StringId type, StringId unit, std::optional<uint32_t> cpu,
                           ArgsTracker::Builder dimensions, ArgsTracker::Builder source);

  // Pushes the sample's counter values (track, value) and stores the sample
  // with their counter set; returns the sample id.
  uint32_t AddSample(ProfilerSampleTable::Row row,
                     const std::vector<std::pair<uint32_t, double>>& counters);

 private:
  TraceContext* ctx_;
  // Null ids are stored as -1 in the keys.
  std::map<std::tuple<int64_t, int64_t, int64_t>, uint32_t> task_contexts_;
  std::map<std::pair<int64_t, StringId>, uint32_t> execution_contexts_;
};

}  // namespace fathom
