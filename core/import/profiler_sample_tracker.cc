#include "core/import/profiler_sample_tracker.h"

#include "core/import/trace_context.h"
#include "core/import/track_tracker.h"

namespace fathom {

namespace {
int64_t KeyOf(std::optional<uint32_t> v) { return v ? static_cast<int64_t>(*v) : -1; }
}  // namespace

uint32_t ProfilerSampleTracker::NewSession(StringId source, StringId timebase_unit) {
  return ctx_->storage->profile.profiler_session.Insert(source, timebase_unit);
}

std::optional<uint32_t> ProfilerSampleTracker::InternTaskContext(
    std::optional<uint32_t> upid, std::optional<uint32_t> utid,
    std::optional<uint32_t> async_context) {
  if (!upid && !utid && !async_context) return std::nullopt;
  auto key = std::make_tuple(KeyOf(upid), KeyOf(utid), KeyOf(async_context));
  auto [it, inserted] = task_contexts_.try_emplace(key, 0);
  if (inserted)
    it->second = ctx_->storage->profile.profiler_task_context.Insert(upid, utid, async_context);
  return it->second;
}

uint32_t ProfilerSampleTracker::InternExecutionContext(std::optional<uint32_t> cpu, StringId mode) {
  auto [it, inserted] = execution_contexts_.try_emplace({KeyOf(cpu), mode}, 0);
  if (inserted) it->second = ctx_->storage->profile.profiler_execution_context.Insert(cpu, mode);
  return it->second;
}

uint32_t ProfilerSampleTracker::NewCounterTrack(StringId name, StringId type, StringId unit,
                                                std::optional<uint32_t> cpu,
                                                ArgsTracker::Builder dimensions,
                                                ArgsTracker::Builder source) {
  TraceStorage* s = ctx_->storage.get();
  uint32_t track =
      ctx_->track_tracker->CreateTrack(true, name, type, std::nullopt, std::nullopt, cpu);
  if (unit != kNullStringId) s->track.counter_unit.Set(track, unit);
  if (auto set = dimensions.Commit()) s->track.dimension_arg_set_id.Set(track, *set);
  if (auto set = source.Commit()) s->track.source_arg_set_id.Set(track, *set);
  return track;
}

uint32_t ProfilerSampleTracker::AddSample(
    ProfilerSampleTable::Row row, const std::vector<std::pair<uint32_t, double>>& counters) {
  TraceStorage* s = ctx_->storage.get();
  for (const auto& [track, value] : counters) {
    uint32_t counter = ctx_->track_tracker->PushCounter(row.ts, value, track);
    if (!row.counter_set) row.counter_set = counter;
    s->profile.profiler_counter_set.Insert(*row.counter_set, counter);
  }
  s->UpdateBounds(row.ts);
  return s->profile.profiler_sample.Insert(row);
}

}  // namespace fathom
