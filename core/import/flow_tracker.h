// Flow events (the `flow` table) of TrackEvents, as upstream connects them.
//
// Two id spaces exist:
//  * Trace-global flow ids: TrackEvent.flow_ids / terminating_flow_ids (v2)
//    and LegacyEvent.bind_id with a flow_direction. Each id remembers the
//    last slice it touched; Step connects that slice to a new one.
//  * Legacy flow *events* (phases 's', 't', 'f', v1): ids scoped by the
//    event's category and name, bound to the slice open on the track (or,
//    for an 'f' without bind_to_enclosing, to the next slice that begins on
//    the track).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

class FlowTracker {
 public:
  explicit FlowTracker(TraceStorage* storage) : storage_(storage) {}

  // ---- trace-global ids ----
  bool IsActive(uint64_t id) const { return last_slice_.count(id) != 0; }
  // Starts flow `id` at `slice`; an id already active keeps its slice.
  void Begin(uint64_t id, uint32_t slice);
  // Connects the flow's last slice to `slice`, which becomes its last slice.
  void Step(uint64_t id, uint32_t slice);
  // Connects the flow's last slice to `slice`; `close` forgets the id.
  void End(uint64_t id, uint32_t slice, bool close);

  // ---- legacy flow events ----
  using V1Key = std::tuple<uint64_t, StringId, StringId>;  // id, category, name
  void V1Begin(const V1Key& key, uint32_t enclosing_slice);
  void V1Step(const V1Key& key, uint32_t enclosing_slice);
  void V1EndOnEnclosing(const V1Key& key, uint32_t enclosing_slice);
  // The flow ends on the next slice that begins on `track`.
  void V1EndOnNextSlice(const V1Key& key, uint32_t track);
  // Called for every new TrackEvent slice: binds pending flow ends.
  void OnSliceBegin(uint32_t track, uint32_t slice) {
    if (!pending_ends_.empty()) BindPendingEnds(track, slice);
  }

 private:
  // `trace_id` is the flow's trace-global id (NULL for v1 flow events).
  void Connect(uint32_t out, uint32_t in, std::optional<uint64_t> trace_id);
  void BindPendingEnds(uint32_t track, uint32_t slice);

  TraceStorage* storage_;
  std::unordered_map<uint64_t, uint32_t> last_slice_;
  std::map<V1Key, uint32_t> v1_last_slice_;
  std::unordered_map<uint32_t, std::vector<V1Key>> pending_ends_;  // track -> flows
};

}  // namespace fathom
