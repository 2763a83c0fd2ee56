// Semi-NCA dominators. Large dumps are bound by cache misses (random
// references), so the loops that chase them prefetch a few steps ahead.
#include "core/heap/dominators.h"

namespace fathom::heap {
namespace {

constexpr uint32_t kNone = ~0u;

bool Cancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load(std::memory_order_relaxed);
}

// Depth-first numbering from a virtual root (number 0) whose successors are
// the roots. Everything after works in dfnum space, so the hot loops index
// dense arrays in walk order. The walk sees every edge of a reachable vertex
// once and records it as (to, from) dfnums for the predecessor lists.
struct Numbering {
  std::vector<uint32_t> vertex{kNone};  // per dfnum: the vertex
  std::vector<uint32_t> parent{kNone};  // per dfnum: its DFS parent's dfnum
  struct Edge {
    uint32_t to, from;
  };
  std::vector<Edge> edges;
};

Result<Numbering> Number(const CsrView& g, const std::atomic<bool>* cancel) {
  const uint32_t objects = static_cast<uint32_t>(g.offsets.size() - 1);
  std::vector<uint32_t> dfnum(objects, kNone);
  Numbering out;
  out.vertex.reserve(objects + 1);
  out.parent.reserve(objects + 1);
  out.edges.reserve(g.targets.size() + g.roots.size());
  struct Frame {
    uint32_t next, end, v;  // v: dfnum of the vertex
  };
  std::vector<Frame> stack;
  size_t steps = 0;
  auto number = [&](uint32_t obj, uint32_t dfs_parent) {
    uint32_t d = static_cast<uint32_t>(out.vertex.size());
    dfnum[obj] = d;
    out.vertex.push_back(obj);
    out.parent.push_back(dfs_parent);
    const uint32_t begin = g.offsets[obj], end = g.offsets[obj + 1];
    // The walk reads dfnum of each target soon: start those (random) loads
    // together rather than one miss after the other.
    for (uint32_t e = begin; e < end && e < begin + 16; ++e)
      __builtin_prefetch(&dfnum[g.targets[e]]);
    stack.push_back(Frame{begin, end, d});
    return d;
  };
  for (uint32_t root : g.roots) {
    if (root >= objects) continue;
    uint32_t d = dfnum[root];
    if (d == kNone) d = number(root, 0);
    out.edges.push_back({d, 0});
    while (!stack.empty()) {
      if ((++steps & 0xfffff) == 0 && Cancelled(cancel)) return ErrorStatus("cancelled");
      Frame& f = stack.back();
      if (f.next == f.end) {
        stack.pop_back();
        continue;
      }
      uint32_t w = g.targets[f.next++];
      uint32_t from = f.v, dw = dfnum[w];
      if (dw == kNone) dw = number(w, from);  // invalidates f
      out.edges.push_back({dw, from});
    }
  }
  return out;
}

// Predecessors in dfnum space, CSR by counting sort: counts land two slots
// up, so after the prefix sum pred_off[v + 1] is the fill cursor of v and
// ends as the end of v's list. Both passes read `edges` in order and touch
// pred_off/preds at random: prefetching keeps several misses in flight.
void Predecessors(std::vector<Numbering::Edge>& edges, uint32_t n, std::vector<uint32_t>* pred_off,
                  std::vector<uint32_t>* preds) {
  constexpr size_t kAhead = 16;
  const size_t m = edges.size();
  std::vector<uint32_t>& off = *pred_off;
  off.assign(n + 2, 0);
  for (size_t k = 0; k < m; ++k) {
    if (k + kAhead < m) __builtin_prefetch(&off[edges[k + kAhead].to + 2]);
    off[edges[k].to + 2]++;
  }
  for (uint32_t i = 2; i < n + 2; ++i) off[i] += off[i - 1];
  preds->resize(m);
  for (size_t k = 0; k < m; ++k) {
    if (k + kAhead < m) __builtin_prefetch(&off[edges[k + kAhead].to + 1]);
    (*preds)[off[edges[k].to + 1]++] = edges[k].from;
  }
  off.pop_back();  // v's predecessors are preds[off[v]..off[v + 1])
  edges = {};
}

// Semidominators in decreasing dfnum. A processed vertex hangs below its DFS
// parent in a forest whose `ancestor` links get shortened; `label` is the
// smallest semidominator on the tree path from the vertex up to (excluding)
// its ancestor. While vertex i is processed exactly the vertices > i are in
// the forest, so that needs no array. Returns semi per dfnum.
Result<std::vector<uint32_t>> Semidominators(const std::vector<uint32_t>& parent,
                                             const std::vector<uint32_t>& pred_off,
                                             const std::vector<uint32_t>& preds,
                                             const std::atomic<bool>* cancel) {
  const uint32_t n = static_cast<uint32_t>(parent.size());
  struct Link {
    uint32_t ancestor, label;  // together: one cache line per vertex
  };
  std::vector<Link> link(n);
  for (uint32_t i = 0; i < n; ++i) link[i] = Link{parent[i], i};
  std::vector<uint32_t> semi(n, 0);
  for (uint32_t i = n; i-- > 1;) {
    if ((i & 0xffff) == 0 && Cancelled(cancel)) return ErrorStatus("cancelled");
    if (i > 2)  // the forest entries of the vertex after next, to overlap
      for (uint32_t p = pred_off[i - 2]; p < pred_off[i - 1]; ++p)
        __builtin_prefetch(&link[preds[p]]);
    uint32_t best = i;
    for (uint32_t p = pred_off[i]; p < pred_off[i + 1]; ++p) {
      uint32_t x = preds[p];
      if (x <= i) {  // outside the forest: contributes itself
        if (x < best) best = x;
        continue;
      }
      // The smallest label up to the forest root, with path halving: one
      // pass, no stack, same answer as full compression.
      for (;;) {
        Link& lx = link[x];
        const uint32_t a = lx.ancestor;
        if (a <= i) {
          if (lx.label < best) best = lx.label;
          break;
        }
        const Link& la = link[a];
        if (la.label < lx.label) lx.label = la.label;
        lx.ancestor = la.ancestor;
        if (lx.label < best) best = lx.label;
        x = la.ancestor;
        if (x <= i) break;  // skipped onto the root
      }
    }
    semi[i] = best;
    link[i].label = best;  // link[i].ancestor is parent[i] already
  }
  return semi;
}

}  // namespace

Result<DominatorTree> ComputeDominators(const CsrView& g, const std::atomic<bool>* cancel) {
  if (g.offsets.empty()) return DominatorTree{};
  Result<Numbering> numbered = Number(g, cancel);
  if (!numbered.ok()) return numbered.status();
  Numbering& num = *numbered;
  const uint32_t n = static_cast<uint32_t>(num.vertex.size());  // reachable + virtual root
  std::vector<uint32_t> pred_off, preds;
  Predecessors(num.edges, n, &pred_off, &preds);
  if (Cancelled(cancel)) return ErrorStatus("cancelled");
  Result<std::vector<uint32_t>> semi = Semidominators(num.parent, pred_off, preds, cancel);
  if (!semi.ok()) return semi.status();
  pred_off = {};
  preds = {};
  // idom: the nearest ancestor of the DFS parent numbered at most the
  // semidominator; i ascending, so idom[d] for d < i is final by then.
  std::vector<uint32_t>& idom = *semi;
  for (uint32_t i = 1; i < n; ++i) {
    const uint32_t s = idom[i];
    uint32_t d = num.parent[i];
    while (d > s) d = idom[d];
    idom[i] = d;
  }
  DominatorTree tree;
  tree.idom.assign(g.offsets.size() - 1, kNoObject);
  tree.order.assign(num.vertex.begin() + 1, num.vertex.end());
  for (uint32_t i = 1; i < n; ++i)
    tree.idom[num.vertex[i]] = idom[i] == 0 ? kVirtualRoot : num.vertex[idom[i]];
  return tree;
}

}  // namespace fathom::heap
