// The flows reachable from a slice, as upstream's table functions answer
// (learnt from its answers on generated traces):
//  - DIRECTLY_CONNECTED_FLOW(id): the flows of the slice's chains, followed
//    backwards (into a slice, from the slice it came out of) and forwards
//    (out of a slice, to the slice it goes into), each direction on its own;
//  - FOLLOWING_FLOW(id): the flows out of the slice or any descendant, then
//    out of each reached slice or its descendants, and so on;
//  - PRECEDING_FLOW(id): the flows into the slice or any ancestor, then into
//    each reached slice or its ancestors, and so on.
// Each flow once. A NULL id gives no rows; an id that names no slice is an
// error ("invalid slice id N").
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "core/storage/trace_storage.h"

namespace fathom {

enum class FlowWalk { kDirectlyConnected, kFollowing, kPreceding };

// The flow table ids reached from `slice`, in the order a breadth-first walk
// meets them.
std::vector<uint32_t> WalkFlows(const TraceStorage& storage, uint32_t slice, FlowWalk mode);

// Registers __intrinsic_flow_walk(mode, slice_id): a table pointer of the
// reached flow ids (columns `flow_id` and `pos`, its rank); mode is 'directly_connected',
// 'following' or 'preceding'. The prelude's flow functions read it.
Status RegisterFlowWalk(sqlite3* db, TraceStorage* storage);

}  // namespace fathom
