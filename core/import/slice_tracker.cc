#include "core/import/slice_tracker.h"

#include <string>

#include "core/import/upstream_map_order.h"

namespace fathom {
namespace {
constexpr int64_t kPending = -1;
}  // namespace

std::optional<uint32_t> SliceTracker::Begin(int64_t ts, uint32_t track, StringId category,
                                            StringId name, std::optional<uint32_t> arg_set_id) {
  return StartSlice(ts, kPending, track, category, name, arg_set_id, std::nullopt);
}

std::optional<uint32_t> SliceTracker::Begin(int64_t ts, uint32_t track, StringId category,
                                            StringId name, ArgsTracker::Builder args) {
  return StartSlice(ts, kPending, track, category, name, std::nullopt, std::move(args));
}

std::optional<uint32_t> SliceTracker::Scoped(int64_t ts, uint32_t track, StringId category,
                                             StringId name, int64_t dur,
                                             std::optional<uint32_t> arg_set_id) {
  return StartSlice(ts, dur, track, category, name, arg_set_id, std::nullopt);
}

std::optional<uint32_t> SliceTracker::Scoped(int64_t ts, uint32_t track, StringId category,
                                             StringId name, int64_t dur,
                                             ArgsTracker::Builder args) {
  return StartSlice(ts, dur, track, category, name, std::nullopt, std::move(args));
}

std::optional<uint32_t> SliceTracker::End(int64_t ts, uint32_t track, StringId category,
                                          StringId name) {
  return EndSlice(ts, track, category, name, std::nullopt);
}

std::optional<uint32_t> SliceTracker::End(int64_t ts, uint32_t track, StringId category,
                                          StringId name, ArgsTracker::Builder args) {
  return EndSlice(ts, track, category, name, std::move(args));
}

std::optional<uint32_t> SliceTracker::StartSlice(int64_t ts, int64_t dur, uint32_t track,
                                                 StringId category, StringId name,
                                                 std::optional<uint32_t> arg_set_id,
                                                 std::optional<ArgsTracker::Builder> args) {
  auto [it, inserted] = stacks_.try_emplace(track);
  if (inserted) stack_tracks_.push_back(track);
  Stack& stack = it->second;
  last_start_overlapped_ = !MaybeCloseStack(stack, ts, dur);
  if (last_start_overlapped_) return std::nullopt;
  if (stack.size() >= kMaxDepth) {
    DropTooDeep(ts, track);
    return std::nullopt;
  }
  std::optional<uint32_t> parent;
  if (!stack.empty()) parent = stack.back().id;
  uint32_t id = storage_->slice.Insert(ts, dur, track, category, name,
                                       static_cast<uint32_t>(stack.size()), parent);
  if (arg_set_id) storage_->slice.arg_set_id.Set(id, *arg_set_id);
  storage_->UpdateBounds(ts);
  if (dur > 0) storage_->UpdateBounds(ts + dur);
  stack.push_back({id, ts, dur, std::move(args)});
  return id;
}

void SliceTracker::DropTooDeep(int64_t ts, uint32_t track) {
  // Upstream drops these too (same stat); say where, once per track.
  storage_->stats.Increment(Stat::kSliceMaxDepthExceeded);
  if (!problems_ || !too_deep_tracks_.insert(track).second) return;
  problems_->AddParsed("slice_max_depth_exceeded", ts,
                       "track " + std::to_string(track) + " already has " +
                           std::to_string(kMaxDepth) +
                           " nested slices open: this slice and any deeper ones are dropped "
                           "(stat slice_max_depth_exceeded)");
}

std::optional<uint32_t> SliceTracker::EndSlice(int64_t ts, uint32_t track, StringId category,
                                               StringId name,
                                               std::optional<ArgsTracker::Builder> args) {
  // An end that closes nothing (its begin came before the trace, or it had no
  // begin at all) is dropped silently: upstream counts misplaced_end_event only
  // for slices truncated by an enclosing slice's end (MaybeCloseStack).
  auto it = stacks_.find(track);
  if (it == stacks_.end()) return std::nullopt;
  Stack& stack = it->second;
  MaybeCloseStack(stack, ts, kPending);
  std::optional<size_t> idx = MatchingOpenSlice(stack, category, name);
  if (!idx) return std::nullopt;
  StackEntry& entry = stack[*idx];
  uint32_t id = entry.id;
  entry.dur = ts - entry.ts;
  storage_->slice.dur.Set(id, entry.dur);
  storage_->UpdateBounds(ts);
  if (args && !args->empty()) {
    if (entry.args) {
      entry.args->Append(std::move(*args));
    } else {
      entry.args = std::move(args);
    }
  }
  if (*idx == stack.size() - 1) Pop(stack);
  return id;
}

bool SliceTracker::MaybeCloseStack(Stack& stack, int64_t ts, int64_t dur) {
  bool open_descendant = false;
  for (int i = static_cast<int>(stack.size()) - 1; i >= 0; --i) {
    const StackEntry& entry = stack[static_cast<size_t>(i)];
    int64_t start = entry.ts;
    int64_t slice_dur = entry.dur;
    int64_t end = start + slice_dur;
    if (slice_dur == kPending) {
      open_descendant = true;
      continue;
    }
    if (open_descendant) {
      if (ts <= end) continue;
      // Open slices inside a parent that already ended: the producer closed
      // them out of order. Truncate them to the parent's end and pop them.
      storage_->stats.Increment(Stat::kMisplacedEndEvent);
      for (int j = static_cast<int>(stack.size()) - 1; j > i; --j) {
        const StackEntry& child = stack.back();
        storage_->slice.dur.Set(child.id, end - child.ts);
        Pop(stack);
      }
      Pop(stack);
      open_descendant = false;
      continue;
    }
    // Intervals are [start, end): a slice ending exactly at `ts` is popped,
    // unless both it and the new event are instants (those stack).
    bool ends_before = end < ts;
    bool ends_at = end == ts && !(slice_dur == 0 && dur == 0);
    if (ends_before || ends_at) {
      Pop(stack);
      continue;
    }
    if (dur == kPending) continue;
    if (ts < end && ts + dur > end) {  // partial overlap: drop
      overlap_conflict_ = entry.id;
      return false;
    }
  }
  return true;
}

std::optional<size_t> SliceTracker::MatchingOpenSlice(const Stack& stack, StringId category,
                                                      StringId name) const {
  const SliceTable& slices = storage_->slice;
  for (int i = static_cast<int>(stack.size()) - 1; i >= 0; --i) {
    const StackEntry& entry = stack[static_cast<size_t>(i)];
    if (entry.dur != kPending) continue;
    uint32_t id = entry.id;
    if (category != kNullStringId && slices.category[id] != category) continue;
    if (name != kNullStringId && slices.name[id] != kNullStringId && slices.name[id] != name)
      continue;
    return static_cast<size_t>(i);
  }
  return std::nullopt;
}

void SliceTracker::CommitArgs(StackEntry& entry) {
  if (!entry.args || entry.args->empty()) return;
  auto& column = storage_->slice.arg_set_id;
  std::optional<uint32_t> set = entry.args->CommitMerged(column.Get(entry.id));
  if (set) column.Set(entry.id, *set);
  entry.args.reset();
}

void SliceTracker::Pop(Stack& stack) {
  CommitArgs(stack.back());
  stack.pop_back();
}

bool SliceTracker::AddArgs(uint32_t track, uint32_t id, ArgsTracker::Builder args) {
  auto it = stacks_.find(track);
  if (it == stacks_.end()) return false;
  for (StackEntry& entry : it->second) {
    if (entry.id != id) continue;
    if (entry.args) {
      entry.args->Append(std::move(args));
    } else {
      entry.args = std::move(args);
    }
    return true;
  }
  return false;
}

std::optional<uint32_t> SliceTracker::GetTopmostOpen(uint32_t track) const {
  auto it = stacks_.find(track);
  if (it == stacks_.end() || it->second.empty()) return std::nullopt;
  return it->second.back().id;
}

void SliceTracker::FlushPendingSlices() {
  // In the order the reference's map of stacks visits them (it shows in
  // the ids of these arg sets), each stack from the bottom.
  for (uint32_t track : UpstreamMapOrder(stack_tracks_, UpstreamKey::kTrackId))
    for (StackEntry& e : stacks_[track]) CommitArgs(e);
  stacks_.clear();
  stack_tracks_.clear();
}

}  // namespace fathom
