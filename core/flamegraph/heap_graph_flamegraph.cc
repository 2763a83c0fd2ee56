// Java heap graph flamegraphs: the shortest-path tree from the GC roots and
// the dominator tree (semi-NCA: Lengauer-Tarjan semidominators, then nearest
// common ancestors). Both work on a
// compact copy of one dump's graph (CSR arrays of local object indices), so
// millions of objects fit in a few hundred MB and nothing touches storage.
#include <algorithm>
#include <map>

#include "core/flamegraph/profiles.h"
#include "core/storage/trace_storage.h"

namespace fathom {
namespace {

constexpr uint32_t kNone = ~0u;

struct DumpGraph {
  std::vector<uint32_t> rows;     // local index -> heap_graph_object row
  std::vector<uint32_t> offsets;  // CSR: out-edges of i are targets[offsets[i]..offsets[i+1])
  std::vector<uint32_t> targets;  // local indices, ascending and distinct per object
  std::vector<uint32_t> roots;    // local indices of GC roots, in row order
};

bool Cancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load(std::memory_order_relaxed);
}

Result<DumpGraph> LoadDump(const TraceStorage& s, uint32_t upid, int64_t ts,
                           const std::atomic<bool>* cancel) {
  const auto& objects = s.profile.heap_graph_object;
  const auto& refs = s.profile.heap_graph_reference;
  DumpGraph g;
  std::vector<uint32_t> local(objects.row_count(), kNone);
  for (uint32_t r = 0; r < objects.row_count(); ++r) {
    if (objects.upid[r] != upid || objects.graph_sample_ts[r] != ts) continue;
    local[r] = static_cast<uint32_t>(g.rows.size());
    g.rows.push_back(r);
    if (objects.root_type[r] != kNullStringId) g.roots.push_back(local[r]);
  }
  g.offsets.reserve(g.rows.size() + 1);
  g.offsets.push_back(0);
  for (uint32_t i = 0; i < g.rows.size(); ++i) {
    if ((i & 0xffff) == 0 && Cancelled(cancel)) return ErrorStatus("cancelled");
    size_t begin = g.targets.size();
    if (auto set = objects.reference_set_id.Get(g.rows[i])) {
      for (uint32_t r = *set; r < refs.row_count() && refs.reference_set_id[r] == *set; ++r) {
        auto owned = refs.owned_id.Get(r);
        // References to objects of other dumps or unknown ids are skipped.
        if (owned && *owned < local.size() && local[*owned] != kNone)
          g.targets.push_back(local[*owned]);
      }
    }
    auto first = g.targets.begin() + static_cast<ptrdiff_t>(begin);
    std::sort(first, g.targets.end());
    g.targets.erase(std::unique(first, g.targets.end()), g.targets.end());
    g.offsets.push_back(static_cast<uint32_t>(g.targets.size()));
  }
  return g;
}

// Class names (deobfuscated when known) as flamegraph strings, per class.
class ClassNames {
 public:
  ClassNames(const TraceStorage& s, Flamegraph* fg)
      : s_(s), fg_(fg), cache_(s.profile.heap_graph_class.row_count(), kNone) {}
  FgStringId Of(uint32_t object_row) {
    uint32_t cls = s_.profile.heap_graph_object.type_id[object_row];
    if (cls >= cache_.size()) return fg_->Intern("[unknown class]");
    if (cache_[cls] != kNone) return cache_[cls];
    return cache_[cls] = fg_->Intern(Text(cls));
  }
  // "Class [ROOT_TYPE]" for GC roots.
  FgStringId RootOf(uint32_t object_row) {
    const auto& objects = s_.profile.heap_graph_object;
    auto key = std::make_pair(objects.type_id[object_row], objects.root_type[object_row]);
    auto it = roots_.find(key);
    if (it != roots_.end()) return it->second;
    uint32_t cls = key.first;
    std::string name = cls < cache_.size() ? Text(cls) : "[unknown class]";
    name += " [";
    name += s_.GetString(key.second);
    name += "]";
    return roots_[key] = fg_->Intern(name);
  }

 private:
  std::string Text(uint32_t cls) const {
    const auto& classes = s_.profile.heap_graph_class;
    StringId n = classes.deobfuscated_name[cls] != kNullStringId ? classes.deobfuscated_name[cls]
                                                                 : classes.name[cls];
    return std::string(s_.GetString(n));
  }
  const TraceStorage& s_;
  Flamegraph* fg_;
  std::vector<FgStringId> cache_;
  std::map<std::pair<uint32_t, StringId>, FgStringId> roots_;
};

void AddObject(const TraceStorage& s, Flamegraph* fg, uint32_t node, uint32_t row) {
  FlamegraphNode& n = fg->mutable_node(node);
  n.count += 1;
  n.size += s.profile.heap_graph_object.self_size[row];
}

}  // namespace

Result<Flamegraph> BuildHeapGraphFlamegraph(const TraceStorage& s, uint32_t upid, int64_t ts,
                                            const std::atomic<bool>* cancel) {
  Result<DumpGraph> loaded = LoadDump(s, upid, ts, cancel);
  if (!loaded.ok()) return loaded.status();
  const DumpGraph& g = *loaded;
  const uint32_t n = static_cast<uint32_t>(g.rows.size());
  // Breadth-first distances from every root at once.
  std::vector<uint32_t> dist(n, kNone), queue;
  queue.reserve(n);
  for (uint32_t r : g.roots)
    if (dist[r] == kNone) {
      dist[r] = 0;
      queue.push_back(r);
    }
  for (size_t q = 0; q < queue.size(); ++q) {
    uint32_t v = queue[q];
    for (uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e)
      if (dist[g.targets[e]] == kNone) {
        dist[g.targets[e]] = dist[v] + 1;
        queue.push_back(g.targets[e]);
      }
  }
  // Depth-first from each root in row order: an object hangs under the first
  // parent found one step closer to a root.
  Flamegraph fg;
  ClassNames names(s, &fg);
  FgStringId java = fg.Intern("JAVA");
  // Worst case one node per reachable object (no two paths share classes).
  fg.Reserve(queue.size());
  std::vector<uint8_t> visited(n, 0);
  struct Frame {
    uint32_t obj, node, next;
  };
  queue = {};
  std::vector<Frame> stack;
  size_t steps = 0;
  for (uint32_t root : g.roots) {
    if (visited[root]) continue;
    visited[root] = 1;
    uint32_t node = fg.Child(std::nullopt, names.RootOf(g.rows[root]), java);
    AddObject(s, &fg, node, g.rows[root]);
    stack.push_back(Frame{root, node, g.offsets[root]});
    while (!stack.empty()) {
      if ((++steps & 0xfffff) == 0 && Cancelled(cancel)) return ErrorStatus("cancelled");
      Frame& f = stack.back();
      if (f.next == g.offsets[f.obj + 1]) {
        stack.pop_back();
        continue;
      }
      uint32_t child = g.targets[f.next++];
      if (dist[child] != dist[f.obj] + 1 || visited[child]) continue;
      visited[child] = 1;
      uint32_t child_node = fg.Child(f.node, names.Of(g.rows[child]), java);
      AddObject(s, &fg, child_node, g.rows[child]);
      stack.push_back(Frame{child, child_node, g.offsets[child]});  // invalidates f
    }
  }
  return fg;
}

Result<Flamegraph> BuildHeapGraphDominatorFlamegraph(const TraceStorage& s, uint32_t upid,
                                                     int64_t ts, const std::atomic<bool>* cancel) {
  Result<DumpGraph> loaded = LoadDump(s, upid, ts, cancel);
  if (!loaded.ok()) return loaded.status();
  DumpGraph& g = *loaded;
  // Vertex 0 is a virtual root with an edge to every GC root; object i is
  // vertex i + 1.
  const uint32_t nv = static_cast<uint32_t>(g.rows.size()) + 1;
  auto succ_begin = [&](uint32_t v) { return v == 0 ? 0u : g.offsets[v - 1]; };
  auto succ_end = [&](uint32_t v) {
    return v == 0 ? static_cast<uint32_t>(g.roots.size()) : g.offsets[v];
  };
  auto succ = [&](uint32_t v, uint32_t e) { return (v == 0 ? g.roots[e] : g.targets[e]) + 1; };

  if (Cancelled(cancel)) return ErrorStatus("cancelled");

  // Depth-first numbering from the virtual root (iterative). Everything
  // below works in dfnum space, so the hot loops index small dense arrays.
  std::vector<uint32_t> dfnum(nv, kNone), vertex, parent;
  vertex.reserve(nv);
  parent.reserve(nv);
  // Every edge is seen once by the walk, when both ends are numbered: keep
  // it as (target, source) in dfnum space for the predecessor lists.
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(g.targets.size() + g.roots.size());
  {
    std::vector<std::pair<uint32_t, uint32_t>> stack;  // (vertex, next edge)
    dfnum[0] = 0;
    vertex.push_back(0);
    parent.push_back(kNone);
    stack.emplace_back(0, succ_begin(0));
    while (!stack.empty()) {
      auto& [v, e] = stack.back();
      if (e == succ_end(v)) {
        stack.pop_back();
        continue;
      }
      uint32_t w = succ(v, e++);
      uint32_t dv = dfnum[v];
      if (dfnum[w] == kNone) {
        dfnum[w] = static_cast<uint32_t>(vertex.size());
        parent.push_back(dv);
        vertex.push_back(w);
        stack.emplace_back(w, succ_begin(w));  // invalidates v, e
      }
      edges.emplace_back(dfnum[w], dv);
    }
  }
  const uint32_t n = static_cast<uint32_t>(vertex.size());  // reachable vertices
  // Predecessors in dfnum space (CSR by counting sort).
  std::vector<uint32_t> pred_off(n + 1, 0), preds(edges.size());
  for (const auto& [to, from] : edges) pred_off[to + 1]++;
  for (uint32_t i = 0; i < n; ++i) pred_off[i + 1] += pred_off[i];
  {
    std::vector<uint32_t> fill(pred_off.begin(), pred_off.end() - 1);
    for (const auto& [to, from] : edges) preds[fill[to]++] = from;
  }
  edges = {};
  dfnum = {};
  if (Cancelled(cancel)) return ErrorStatus("cancelled");

  // Semi-NCA (Georgiadis): semidominators as in Lengauer-Tarjan with path
  // compression, then each idom is the nearest ancestor of the DFS parent
  // whose number is at most the semidominator. `label` holds the smallest
  // semidominator on the compressed path.
  std::vector<uint32_t> semi(n), label(n), ancestor(n, kNone), idom(n, 0);
  for (uint32_t i = 0; i < n; ++i) semi[i] = label[i] = i;
  std::vector<uint32_t> path;
  auto eval = [&](uint32_t v) -> uint32_t {
    if (ancestor[v] == kNone) return label[v];
    path.clear();
    for (uint32_t x = v; ancestor[ancestor[x]] != kNone; x = ancestor[x]) path.push_back(x);
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      uint32_t x = *it, a = ancestor[x];
      if (label[a] < label[x]) label[x] = label[a];
      ancestor[x] = ancestor[a];
    }
    return label[v];
  };
  for (uint32_t i = n; i-- > 1;) {
    if ((i & 0xffff) == 0 && Cancelled(cancel)) return ErrorStatus("cancelled");
    uint32_t best = semi[i];
    for (uint32_t p = pred_off[i]; p < pred_off[i + 1]; ++p) {
      uint32_t v = preds[p];
      // An unprocessed predecessor (v < i) contributes itself.
      uint32_t u = v < i ? v : eval(v);
      if (u < best) best = u;
    }
    semi[i] = label[i] = best;
    ancestor[i] = parent[i];
  }
  preds = {};
  pred_off = {};
  ancestor = {};
  for (uint32_t i = 1; i < n; ++i) {
    uint32_t d = parent[i];
    while (d > semi[i]) d = idom[d];
    idom[i] = d;
  }

  // The tree, merged by class-name path. dfnum order puts every vertex after
  // its immediate dominator.
  Flamegraph fg;
  ClassNames names(s, &fg);
  FgStringId java = fg.Intern("JAVA");
  std::vector<uint32_t> node(n, kNone);
  for (uint32_t i = 1; i < n; ++i) {
    uint32_t row = g.rows[vertex[i] - 1];
    if (idom[i] == 0) {
      bool is_root = s.profile.heap_graph_object.root_type[row] != kNullStringId;
      node[i] = fg.Child(std::nullopt, is_root ? names.RootOf(row) : names.Of(row), java);
    } else {
      node[i] = fg.Child(node[idom[i]], names.Of(row), java);
    }
    AddObject(s, &fg, node[i], row);
  }
  return fg;
}

}  // namespace fathom
