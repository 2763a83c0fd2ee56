// One Java heap dump (the heap_graph_object rows of one upid and
// graph_sample_ts) prepared for the heap explorer: the object graph in CSR
// form, its dominator tree with retained sizes, each object's shortest path
// parent from a GC root, and its referrers. Flat per-object arrays only, so
// a 5 M-object dump costs a few hundred MB; build it once on a worker and
// share it (it is immutable) with every view.
//
// The graph follows upstream's dominator tree (stdlib module
// android.memory.heap_graph.dominator_tree): edges from reachable objects,
// without the `java.lang.ref.Reference.referent` edge of weak, phantom and
// finalizer references; a virtual root above every object with a root_type.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/heap/dominators.h"

namespace fathom {
class TraceStorage;

namespace heap {

struct HeapDumpId {
  uint32_t upid = 0;
  int64_t ts = 0;
  bool operator==(const HeapDumpId&) const = default;
};

// The dumps in heap_graph_object, in (ts, upid) order.
std::vector<HeapDumpId> ListHeapDumps(const TraceStorage& storage);

struct HeapAnalysis {
  HeapDumpId dump;
  // Per local object index (objects in row order).
  std::vector<uint32_t> rows;  // heap_graph_object row
  std::vector<uint32_t> cls;   // type_id (heap_graph_class row)
  std::vector<int64_t> self_size;
  std::vector<uint8_t> is_root;
  // Dominator tree: idom is a local index, kVirtualRoot or kNoObject
  // (unreachable). retained_* include the object itself; 0 when unreachable.
  std::vector<uint32_t> idom;
  std::vector<int64_t> retained_size;
  std::vector<uint32_t> retained_count;
  std::vector<uint32_t> depth;  // in the dominator tree; 1 below the virtual root
  // Children in the dominator tree, largest retained size first; the
  // virtual root's children are at index size().
  std::vector<uint32_t> child_off, children;
  // Shortest path from a GC root over the same edges: the previous object
  // (kNoObject for roots and unreachable objects) and the reference row
  // followed from it.
  std::vector<uint32_t> bfs_parent, bfs_ref;
  // Every heap_graph_reference row pointing at an object (weak ones too).
  std::vector<uint32_t> in_off, in_refs;

  uint32_t size() const { return static_cast<uint32_t>(rows.size()); }
  bool reachable(uint32_t v) const { return idom[v] != kNoObject; }
  // The local index of a heap_graph_object row, or kNoObject.
  uint32_t LocalOfRow(uint32_t row) const;
  // kVirtualRoot lists the tree's top level.
  std::span<const uint32_t> Children(uint32_t v) const;
  std::span<const uint32_t> Referrers(uint32_t v) const {
    return {in_refs.data() + in_off[v], in_refs.data() + in_off[v + 1]};
  }
  int64_t total_reachable_size = 0;
  uint32_t reachable_count = 0;
};

// The analysis's steps in order, for a progress display.
enum class AnalysisStep { kObjects = 1, kGraph, kPaths, kDominators, kSizes };
inline constexpr int kAnalysisSteps = 5;

// Errors when the dump has no objects or `cancel` becomes true. `step`, when
// given, holds the AnalysisStep running.
Result<std::shared_ptr<const HeapAnalysis>> AnalyzeHeapDump(const TraceStorage& storage,
                                                            HeapDumpId dump,
                                                            const std::atomic<bool>* cancel,
                                                            std::atomic<int>* step = nullptr);

}  // namespace heap
}  // namespace fathom
