#include "core/import/flow_tracker.h"

namespace fathom {

void FlowTracker::Connect(uint32_t out, uint32_t in) {
  if (out != in) storage_->flow.Insert(out, in);
}

void FlowTracker::Begin(uint64_t id, uint32_t slice) { last_slice_.emplace(id, slice); }

void FlowTracker::Step(uint64_t id, uint32_t slice) {
  auto it = last_slice_.find(id);
  if (it == last_slice_.end()) return;  // a step without a start
  Connect(it->second, slice);
  it->second = slice;
}

void FlowTracker::End(uint64_t id, uint32_t slice, bool close) {
  auto it = last_slice_.find(id);
  if (it == last_slice_.end()) return;  // an end without a start
  Connect(it->second, slice);
  if (close) last_slice_.erase(it);
}

void FlowTracker::V1Begin(const V1Key& key, uint32_t enclosing_slice) {
  v1_last_slice_.emplace(key, enclosing_slice);
}

void FlowTracker::V1Step(const V1Key& key, uint32_t enclosing_slice) {
  auto it = v1_last_slice_.find(key);
  if (it == v1_last_slice_.end()) return;
  Connect(it->second, enclosing_slice);
  it->second = enclosing_slice;
}

void FlowTracker::V1EndOnEnclosing(const V1Key& key, uint32_t enclosing_slice) {
  auto it = v1_last_slice_.find(key);
  if (it == v1_last_slice_.end()) return;
  Connect(it->second, enclosing_slice);
}

void FlowTracker::V1EndOnNextSlice(const V1Key& key, uint32_t track) {
  pending_ends_[track].push_back(key);
}

void FlowTracker::BindPendingEnds(uint32_t track, uint32_t slice) {
  auto it = pending_ends_.find(track);
  if (it == pending_ends_.end()) return;
  for (const V1Key& key : it->second) V1EndOnEnclosing(key, slice);
  pending_ends_.erase(it);
}

}  // namespace fathom
