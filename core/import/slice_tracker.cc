#include "core/import/slice_tracker.h"

namespace fathom {

void SliceTracker::PopEnded(uint32_t track, int64_t ts) {
  auto& stack = stacks_[track];
  while (!stack.empty() && stack.back().end_ts >= 0 && stack.back().end_ts <= ts) stack.pop_back();
}

std::optional<uint32_t> SliceTracker::Begin(int64_t ts, uint32_t track, StringId category,
                                            StringId name, std::optional<uint32_t> arg_set_id) {
  PopEnded(track, ts);
  auto& stack = stacks_[track];
  std::optional<uint32_t> parent;
  if (!stack.empty()) parent = stack.back().id;
  uint32_t id = storage_->slice.Insert(ts, -1, track, category, name,
                                       static_cast<uint32_t>(stack.size()), parent);
  if (arg_set_id) storage_->slice.arg_set_id.Set(id, *arg_set_id);
  storage_->UpdateBounds(ts);
  stack.push_back({id, -1});
  return id;
}

std::optional<uint32_t> SliceTracker::End(int64_t ts, uint32_t track, StringId category,
                                          StringId name) {
  PopEnded(track, ts);
  auto it = stacks_.find(track);
  if (it == stacks_.end() || it->second.empty()) {
    storage_->stats.Increment(Stat::kMisplacedEndEvent);
    return std::nullopt;
  }
  auto& stack = it->second;
  uint32_t id = stack.back().id;
  if (name != kNullStringId && storage_->slice.name[id] != kNullStringId &&
      storage_->slice.name[id] != name) {
    storage_->stats.Increment(Stat::kMisplacedEndEvent);
    return std::nullopt;
  }
  stack.pop_back();
  storage_->slice.dur.Set(id, ts - storage_->slice.ts[id]);
  storage_->UpdateBounds(ts);
  return id;
}

std::optional<uint32_t> SliceTracker::Scoped(int64_t ts, uint32_t track, StringId category,
                                             StringId name, int64_t dur,
                                             std::optional<uint32_t> arg_set_id) {
  PopEnded(track, ts);
  auto& stack = stacks_[track];
  std::optional<uint32_t> parent;
  if (!stack.empty()) parent = stack.back().id;
  uint32_t id = storage_->slice.Insert(ts, dur, track, category, name,
                                       static_cast<uint32_t>(stack.size()), parent);
  if (arg_set_id) storage_->slice.arg_set_id.Set(id, *arg_set_id);
  storage_->UpdateBounds(ts);
  storage_->UpdateBounds(ts + dur);
  if (dur > 0) stack.push_back({id, ts + dur});
  return id;
}

std::optional<uint32_t> SliceTracker::GetTopmostOpen(uint32_t track) const {
  auto it = stacks_.find(track);
  if (it == stacks_.end() || it->second.empty()) return std::nullopt;
  return it->second.back().id;
}

}  // namespace fathom
