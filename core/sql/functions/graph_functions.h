// Graph walks for the standard library's graphs.* modules:
//   __intrinsic_graph_agg(source, dest)  edges -> one graph pointer
//   __intrinsic_array_agg(x)             values -> one array pointer
//   __intrinsic_dfs(graph, starts)       table pointer (node_id,
//   __intrinsic_bfs(graph, starts)         parent_node_id) in visit order
//   __intrinsic_dominator_tree(source, dest, root)  aggregate -> table
//     pointer (node_id, dominator_node_id) of the nodes reachable from root,
//     in depth-first preorder.
// Edges are followed in the order they were aggregated. The DFS is an
// explicit stack seeded with the start nodes in order (so the last start is
// walked first) and visits a node when it is popped; the BFS marks nodes
// when queued. These orders and parents are upstream's answers.
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom {

Status RegisterGraphFunctions(sqlite3* db);

}  // namespace fathom
