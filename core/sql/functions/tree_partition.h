// __intrinsic_structural_tree_partition(id, parent_id, group_key): an
// aggregate over a tree's rows giving a table pointer (node_id,
// parent_node_id, group_key) for graphs.partition's
// tree_structural_partition_by_group!: each node's parent becomes its nearest
// ancestor in the same group (NULL when there is none). Rows come in the
// order of a depth-first walk whose stack takes each node's children in
// order (so the last child is walked first), as upstream's do.
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom {

Status RegisterTreePartition(sqlite3* db);

}  // namespace fathom
