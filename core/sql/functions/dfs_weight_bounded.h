// graphs.search's graph_reachable_weight_bounded_dfs!:
//   repeatedfield(x)  aggregate: the column's values as one list pointer
//   __intrinsic_dfs_weight_bounded(sources, dests, weights, roots,
//                                  root_targets, is_floor)
//     table function (root_node_id, node_id, parent_node_id): from each root
//     in order, a depth-first walk taking each node's edges in order, which
//     adds up the weights of the edges it follows and stops at the first
//     edge that takes the sum past the root's target (the node it reaches is
//     kept when is_floor, left out otherwise). The root itself is always a
//     row. Each root walks on its own. Checked against trace_processor_shell.
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom {

Status RegisterDfsWeightBounded(sqlite3* db);

}  // namespace fathom
