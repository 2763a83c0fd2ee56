#include "core/heap/heap_analysis.h"

#include <algorithm>

#include "core/storage/trace_storage.h"

namespace fathom::heap {
namespace {

bool Cancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load(std::memory_order_relaxed);
}

// Counting sort of (key, value) pairs into CSR: off has keys + 1 entries.
void BuildCsr(uint32_t keys, const std::vector<std::pair<uint32_t, uint32_t>>& pairs,
              std::vector<uint32_t>* off, std::vector<uint32_t>* values) {
  off->assign(keys + 1, 0);
  for (const auto& [k, v] : pairs) ++(*off)[k + 1];
  for (uint32_t i = 1; i <= keys; ++i) (*off)[i] += (*off)[i - 1];
  values->resize(pairs.size());
  std::vector<uint32_t> fill(off->begin(), off->end() - 1);
  for (const auto& [k, v] : pairs) (*values)[fill[k]++] = v;
}

// The dump's strong graph (see the header) and its referrers.
struct Graph {
  std::vector<uint32_t> offsets, targets, target_ref, roots;
};

Graph LoadGraph(const TraceStorage& s, HeapAnalysis& a) {
  const auto& objects = s.profile.heap_graph_object;
  const auto& refs = s.profile.heap_graph_reference;
  const auto& classes = s.profile.heap_graph_class;
  std::vector<uint8_t> weak(classes.row_count(), 0);
  for (uint32_t c = 0; c < classes.row_count(); ++c) {
    std::string_view k = s.GetString(classes.kind[c]);
    weak[c] = k == "KIND_WEAK_REFERENCE" || k == "KIND_PHANTOM_REFERENCE" ||
              k == "KIND_FINALIZER_REFERENCE";
  }
  const StringId referent = s.strings.Find("java.lang.ref.Reference.referent");
  Graph g;
  const uint32_t n = a.size();
  g.offsets.assign(n + 1, 0);
  std::vector<std::pair<uint32_t, uint32_t>> in;  // (target, reference row)
  // One dump is usually the whole table: then these are the exact sizes.
  if (n == objects.row_count()) {
    in.reserve(refs.row_count());
    g.targets.reserve(refs.row_count());
    g.target_ref.reserve(refs.row_count());
  }
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t row = a.rows[i];
    if (a.is_root[i]) g.roots.push_back(i);
    if (auto set = objects.reference_set_id.Get(row)) {
      const bool strong_source = objects.reachable[row] != 0;
      const bool weak_ref = a.cls[i] < weak.size() && weak[a.cls[i]];
      for (uint32_t r = *set; r < refs.row_count() && refs.reference_set_id[r] == *set; ++r) {
        auto owned = refs.owned_id.Get(r);
        if (!owned) continue;
        const uint32_t t = a.LocalOfRow(*owned);
        if (t == kNoObject) continue;  // another dump's object
        in.emplace_back(t, r);
        if (!strong_source || (weak_ref && refs.field_name[r] == referent)) continue;
        g.targets.push_back(t);
        g.target_ref.push_back(r);
      }
    }
    g.offsets[i + 1] = static_cast<uint32_t>(g.targets.size());
  }
  BuildCsr(n, in, &a.in_off, &a.in_refs);
  return g;
}

// Shortest paths from the GC roots (breadth first, roots in row order).
void ShortestPaths(const Graph& g, HeapAnalysis& a) {
  const uint32_t n = a.size();
  a.bfs_parent.assign(n, kNoObject);
  a.bfs_ref.assign(n, kNoObject);
  std::vector<uint8_t> seen(n, 0);
  std::vector<uint32_t> queue;
  queue.reserve(n);
  for (uint32_t r : g.roots)
    if (!seen[r]) seen[r] = 1, queue.push_back(r);
  for (size_t head = 0; head < queue.size(); ++head) {
    const uint32_t v = queue[head];
    for (uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const uint32_t t = g.targets[e];
      if (seen[t]) continue;
      seen[t] = 1;
      a.bfs_parent[t] = v;
      a.bfs_ref[t] = g.target_ref[e];
      queue.push_back(t);
    }
  }
}

// Retained sizes bottom-up, depths top-down, and the children lists.
void SummarizeTree(const DominatorTree& dom, HeapAnalysis& a) {
  const uint32_t n = a.size();
  a.idom = dom.idom;
  a.retained_size.assign(n, 0);
  a.retained_count.assign(n, 0);
  a.depth.assign(n, 0);
  for (uint32_t v : dom.order) a.retained_size[v] = a.self_size[v], a.retained_count[v] = 1;
  for (size_t k = dom.order.size(); k-- > 0;) {
    const uint32_t v = dom.order[k], d = a.idom[v];
    if (d == kVirtualRoot) continue;
    a.retained_size[d] += a.retained_size[v];
    a.retained_count[d] += a.retained_count[v];
  }
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  pairs.reserve(dom.order.size());
  for (uint32_t v : dom.order) {
    const uint32_t d = a.idom[v];
    a.depth[v] = d == kVirtualRoot ? 1 : a.depth[d] + 1;
    pairs.emplace_back(d == kVirtualRoot ? n : d, v);
    a.total_reachable_size += a.self_size[v];
  }
  a.reachable_count = static_cast<uint32_t>(dom.order.size());
  BuildCsr(n + 1, pairs, &a.child_off, &a.children);
  for (uint32_t p = 0; p <= n; ++p)
    std::sort(a.children.begin() + a.child_off[p], a.children.begin() + a.child_off[p + 1],
              [&](uint32_t x, uint32_t y) {
                return a.retained_size[x] != a.retained_size[y]
                           ? a.retained_size[x] > a.retained_size[y]
                           : x < y;
              });
}

}  // namespace

std::vector<HeapDumpId> ListHeapDumps(const TraceStorage& s) {
  const auto& objects = s.profile.heap_graph_object;
  std::vector<HeapDumpId> out;
  for (uint32_t r = 0; r < objects.row_count(); ++r) {
    HeapDumpId d{objects.upid[r], objects.graph_sample_ts[r]};
    if (out.empty() || !(out.back() == d))
      if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
  }
  std::sort(out.begin(), out.end(), [](const HeapDumpId& x, const HeapDumpId& y) {
    return x.ts != y.ts ? x.ts < y.ts : x.upid < y.upid;
  });
  return out;
}

uint32_t HeapAnalysis::LocalOfRow(uint32_t row) const {
  // A dump's objects are usually consecutive rows (importers append one
  // dump at a time): then no search.
  if (!rows.empty() && rows.back() - rows.front() + 1 == rows.size())
    return row - rows.front() < rows.size() ? row - rows.front() : kNoObject;
  auto it = std::lower_bound(rows.begin(), rows.end(), row);
  return it != rows.end() && *it == row ? static_cast<uint32_t>(it - rows.begin()) : kNoObject;
}

std::span<const uint32_t> HeapAnalysis::Children(uint32_t v) const {
  const uint32_t p = v == kVirtualRoot ? size() : v;
  if (p > size()) return {};
  return {children.data() + child_off[p], children.data() + child_off[p + 1]};
}

Result<std::shared_ptr<const HeapAnalysis>> AnalyzeHeapDump(const TraceStorage& s, HeapDumpId dump,
                                                            const std::atomic<bool>* cancel,
                                                            std::atomic<int>* step) {
  auto at = [step](AnalysisStep now) {
    if (step) step->store(int(now), std::memory_order_relaxed);
  };
  at(AnalysisStep::kObjects);
  auto a = std::make_shared<HeapAnalysis>();
  a->dump = dump;
  const auto& objects = s.profile.heap_graph_object;
  // Counted first: growing five arrays of millions by doubling copies them
  // over and over.
  size_t count = 0;
  for (uint32_t r = 0; r < objects.row_count(); ++r)
    count += objects.upid[r] == dump.upid && objects.graph_sample_ts[r] == dump.ts;
  a->rows.reserve(count);
  a->cls.reserve(count);
  a->self_size.reserve(count);
  a->is_root.reserve(count);
  for (uint32_t r = 0; r < objects.row_count(); ++r) {
    if (objects.upid[r] != dump.upid || objects.graph_sample_ts[r] != dump.ts) continue;
    a->rows.push_back(r);
    a->cls.push_back(objects.type_id[r]);
    a->self_size.push_back(objects.self_size[r]);
    a->is_root.push_back(objects.root_type[r] != kNullStringId);
  }
  if (a->rows.empty()) return ErrorStatus("no heap graph objects for this process and time");
  if (Cancelled(cancel)) return ErrorStatus("cancelled");
  at(AnalysisStep::kGraph);
  Graph g = LoadGraph(s, *a);
  if (Cancelled(cancel)) return ErrorStatus("cancelled");
  at(AnalysisStep::kPaths);
  ShortestPaths(g, *a);
  at(AnalysisStep::kDominators);
  Result<DominatorTree> dom = ComputeDominators(CsrView{g.offsets, g.targets, g.roots}, cancel);
  if (!dom.ok()) return dom.status();
  g = {};
  at(AnalysisStep::kSizes);
  SummarizeTree(*dom, *a);
  return std::shared_ptr<const HeapAnalysis>(std::move(a));
}

}  // namespace fathom::heap
