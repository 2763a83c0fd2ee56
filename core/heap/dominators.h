// Immediate dominators of a directed graph whose entry is a virtual root
// above a set of GC roots (semi-NCA: Lengauer-Tarjan semidominators, then
// nearest common ancestors). O((V + E) log) in practice near-linear, flat
// arrays only, no recursion: it runs on heap dumps of millions of objects.
// Shared by the heap explorer (core/heap/heap_analysis.h) and the dominator
// flamegraph (core/flamegraph/heap_graph_flamegraph.cc).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "base/status.h"

namespace fathom::heap {

inline constexpr uint32_t kNoObject = ~0u;         // unreachable / none
inline constexpr uint32_t kVirtualRoot = ~0u - 1;  // the root above every GC root

// A graph of `offsets.size() - 1` vertices in CSR form: the successors of v
// are targets[offsets[v] .. offsets[v + 1]).
struct CsrView {
  const std::vector<uint32_t>& offsets;
  const std::vector<uint32_t>& targets;
  const std::vector<uint32_t>& roots;  // entered from the virtual root, in this order
};

struct DominatorTree {
  // Reachable vertices in depth-first preorder from the virtual root: every
  // vertex comes after its immediate dominator (so a reverse walk sums
  // subtrees bottom-up).
  std::vector<uint32_t> order;
  // Per vertex: its immediate dominator, kVirtualRoot, or kNoObject when
  // the vertex is not reachable from the roots.
  std::vector<uint32_t> idom;
};

// Errors only when `cancel` becomes true.
Result<DominatorTree> ComputeDominators(const CsrView& g, const std::atomic<bool>* cancel);

}  // namespace fathom::heap
