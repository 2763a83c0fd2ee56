#include "core/import/flow_tracker.h"

namespace fathom {

void FlowTracker::Connect(uint32_t out, uint32_t in, std::optional<uint64_t> trace_id) {
  if (out == in) return;
  // As upstream, an arrow points from the earlier slice to the later one
  // whatever order the events came in (an end event can link a slice that
  // began before the flow's source).
  const auto& ts = storage_->slice.ts;
  if (ts[out] > ts[in]) std::swap(out, in);
  uint32_t row = storage_->flow.Insert(out, in);
  if (trace_id) storage_->flow.trace_id.Set(row, static_cast<int64_t>(*trace_id));
}

void FlowTracker::Begin(uint64_t id, uint32_t slice) { last_slice_.emplace(id, slice); }

void FlowTracker::Step(uint64_t id, uint32_t slice) {
  auto it = last_slice_.find(id);
  if (it == last_slice_.end()) return;  // a step without a start
  Connect(it->second, slice, id);
  it->second = slice;
}

void FlowTracker::End(uint64_t id, uint32_t slice, bool close) {
  auto it = last_slice_.find(id);
  if (it == last_slice_.end()) return;  // an end without a start
  Connect(it->second, slice, id);
  if (close) last_slice_.erase(it);
}

void FlowTracker::V1Begin(const V1Key& key, uint32_t enclosing_slice) {
  v1_last_slice_.emplace(key, enclosing_slice);
}

void FlowTracker::V1Step(const V1Key& key, uint32_t enclosing_slice) {
  auto it = v1_last_slice_.find(key);
  if (it == v1_last_slice_.end()) return;
  Connect(it->second, enclosing_slice, std::nullopt);
  it->second = enclosing_slice;
}

void FlowTracker::V1EndOnEnclosing(const V1Key& key, uint32_t enclosing_slice) {
  auto it = v1_last_slice_.find(key);
  if (it == v1_last_slice_.end()) return;
  Connect(it->second, enclosing_slice, std::nullopt);
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
