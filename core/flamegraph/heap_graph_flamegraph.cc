// Java heap graph flamegraphs: the shortest-path tree from the GC roots and
// the dominator tree (semi-NCA: Lengauer-Tarjan semidominators, then nearest
// common ancestors). Both work on a compact copy of one dump's graph (CSR
// arrays of local object indices) with flat per-object arrays only: no
// node-based maps, no per-object vectors, no recursion. Large dumps are
// bound by cache misses (random references), so the loops that chase them
// prefetch a few steps ahead. 5 M objects / 20 M references take a few
// seconds and under 1.5 GB (tests/bench/flamegraph_bench.cc).
#include <algorithm>
#include <map>

#include "core/flamegraph/profiles.h"
#include "core/heap/dominators.h"
#include "core/storage/trace_storage.h"

namespace fathom {
namespace {

constexpr uint32_t kNone = ~0u;

struct DumpGraph {
  std::vector<uint32_t> rows;     // local index -> heap_graph_object row
  std::vector<uint32_t> offsets;  // CSR: out-edges of i are targets[offsets[i]..offsets[i+1])
  std::vector<uint32_t> targets;  // local indices, ascending and distinct per object
  std::vector<uint32_t> roots;    // local indices of GC roots, in row order
  // Per local index, copied in row order so the walks (which visit objects
  // in graph order) read two small arrays instead of storage columns.
  std::vector<uint32_t> cls;  // type_id
  std::vector<int64_t> size;  // self_size
};

bool Cancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load(std::memory_order_relaxed);
}

// Sorts one object's references and drops duplicates; returns the new end.
// Objects have a handful of references, where insertion sort beats
// std::sort's setup.
uint32_t* SortUnique(uint32_t* first, uint32_t* last) {
  if (last - first < 2) return last;  // also no `first + 1` on an empty (null) range: UB
  if (last - first > 24) {
    std::sort(first, last);
  } else {
    for (uint32_t* i = first + 1; i < last; ++i) {
      uint32_t v = *i;
      uint32_t* j = i;
      for (; j > first && *(j - 1) > v; --j) *j = *(j - 1);
      *j = v;
    }
  }
  return std::unique(first, last);
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
    g.cls.push_back(objects.type_id[r]);
    g.size.push_back(objects.self_size[r]);
    if (objects.root_type[r] != kNullStringId) g.roots.push_back(local[r]);
  }
  const uint32_t n = static_cast<uint32_t>(g.rows.size());
  const uint32_t ref_rows = refs.row_count();
  // A dump's objects are usually consecutive rows (the importer appends one
  // dump at a time): then a reference's target maps to a local index by a
  // subtraction instead of a random read of `local`.
  const uint32_t first_row = n ? g.rows[0] : 0;
  const bool consecutive = n == 0 || g.rows[n - 1] - first_row + 1 == n;
  if (consecutive) local = {};
  // One dump is usually the whole table: then this is the exact size.
  if (n == objects.row_count()) g.targets.reserve(ref_rows);
  g.offsets.resize(n + 1);
  g.offsets[0] = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if ((i & 0xffff) == 0 && Cancelled(cancel)) return ErrorStatus("cancelled");
    size_t begin = g.targets.size();
    if (auto set = objects.reference_set_id.Get(g.rows[i])) {
      for (uint32_t r = *set; r < ref_rows && refs.reference_set_id[r] == *set; ++r) {
        auto owned = refs.owned_id.Get(r);
        // References to objects of other dumps or unknown ids are skipped.
        if (!owned) continue;
        if (consecutive) {
          if (*owned - first_row < n) g.targets.push_back(*owned - first_row);
        } else if (*owned < local.size() && local[*owned] != kNone) {
          g.targets.push_back(local[*owned]);
        }
      }
    }
    uint32_t* first = g.targets.data() + begin;
    g.targets.resize(static_cast<size_t>(SortUnique(first, g.targets.data() + g.targets.size()) -
                                         g.targets.data()));
    g.offsets[i + 1] = static_cast<uint32_t>(g.targets.size());
  }
  return g;
}

// Class names (deobfuscated when known) as flamegraph strings, per class.
class ClassNames {
 public:
  ClassNames(const TraceStorage& s, Flamegraph* fg)
      : s_(s), fg_(fg), cache_(s.profile.heap_graph_class.row_count(), kNone) {}
  // By heap_graph_class row (an object's type_id).
  FgStringId Of(uint32_t cls) {
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
  std::map<std::pair<uint32_t, StringId>, FgStringId> roots_;  // a few entries
};

// The flamegraph tree while building: nodes are (parent node, class name)
// pairs numbered in creation order (kNone parent = a root), interned in an
// open-addressing table that holds node ids and compares the packed keys of
// a flat array, so a lookup touches two arrays and no FlamegraphNode. Moved
// into the Flamegraph in one piece at the end (Flamegraph::AppendNodes).
class PathTree {
 public:
  explicit PathTree(size_t expected_nodes) {
    keys_.reserve(expected_nodes);
    count_.reserve(expected_nodes);
    size_.reserve(expected_nodes);
    Rehash(expected_nodes);
  }

  uint32_t Child(uint32_t parent, FgStringId name) {
    const uint64_t key = (uint64_t{parent + 1} << 32) | name;  // kNone + 1 == 0
    if ((keys_.size() + 1) * 2 > slots_.size()) Rehash(keys_.size() + 1);
    size_t i = Hash(key) & mask_;
    for (; slots_[i] != kNone; i = (i + 1) & mask_)
      if (keys_[slots_[i]] == key) return slots_[i];
    uint32_t id = static_cast<uint32_t>(keys_.size());
    slots_[i] = id;
    keys_.push_back(key);
    count_.push_back(0);
    size_.push_back(0);
    return id;
  }
  void AddObject(uint32_t node, int64_t self_size) {
    count_[node] += 1;
    size_[node] += self_size;
  }

  void MoveInto(Flamegraph* fg, FgStringId map_name) {
    slots_ = {};
    const uint32_t base = static_cast<uint32_t>(fg->size());
    std::vector<FlamegraphNode> nodes(keys_.size());
    for (size_t i = 0; i < keys_.size(); ++i) {
      FlamegraphNode& n = nodes[i];
      uint32_t parent_plus_one = static_cast<uint32_t>(keys_[i] >> 32);
      if (parent_plus_one) {
        n.parent = base + parent_plus_one - 1;
        n.depth = nodes[parent_plus_one - 1].depth + 1;
      }
      n.name = static_cast<FgStringId>(keys_[i]);
      n.map_name = map_name;
      n.count = count_[i];
      n.size = size_[i];
    }
    keys_ = {};
    count_ = {};
    size_ = {};
    fg->AppendNodes(std::move(nodes));
  }

 private:
  static size_t Hash(uint64_t key) {
    key *= 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(key ^ (key >> 31));
  }
  // Load factor at most 1/2 for `nodes` nodes.
  void Rehash(size_t nodes) {
    size_t size = 1024;
    while (size < nodes * 2) size *= 2;
    if (size <= slots_.size()) return;
    slots_.assign(size, kNone);
    mask_ = size - 1;
    for (uint32_t id = 0; id < keys_.size(); ++id) {
      size_t i = Hash(keys_[id]) & mask_;
      while (slots_[i] != kNone) i = (i + 1) & mask_;
      slots_[i] = id;
    }
  }

  std::vector<uint64_t> keys_;  // (parent + 1) << 32 | name, per node
  std::vector<uint32_t> count_;
  std::vector<int64_t> size_;
  std::vector<uint32_t> slots_;
  size_t mask_ = 0;
};

}  // namespace

Result<Flamegraph> BuildHeapGraphFlamegraph(const TraceStorage& s, uint32_t upid, int64_t ts,
                                            const std::atomic<bool>* cancel) {
  Result<DumpGraph> loaded = LoadDump(s, upid, ts, cancel);
  if (!loaded.ok()) return loaded.status();
  DumpGraph& g = *loaded;
  const uint32_t n = static_cast<uint32_t>(g.rows.size());
  // Breadth-first distances from every root at once. The scan also keeps
  // the references one step further from the roots (the shortest-path DAG,
  // the only ones the tree walk follows) in a compact CSR of their own,
  // per object in the original (ascending) order: the walk then reads a
  // fraction of the edges and no distances.
  std::vector<uint32_t> dist(n, kNone), queue;
  queue.reserve(n);
  struct Range {
    uint32_t begin, end;
  };
  std::vector<Range> dag(n, Range{0, 0});
  std::vector<uint32_t> dag_targets;
  dag_targets.reserve(g.targets.size() / 2);
  for (uint32_t r : g.roots)
    if (dist[r] == kNone) {
      dist[r] = 0;
      queue.push_back(r);
    }
  for (size_t q = 0; q < queue.size(); ++q) {
    if ((q & 0xfffff) == 0 && Cancelled(cancel)) return ErrorStatus("cancelled");
    // Queued objects are scattered: prefetch in stages (offsets of the
    // object 12 ahead, its references at 6, their distances at 3) so each
    // step finds its data in cache.
    if (q + 12 < queue.size()) __builtin_prefetch(&g.offsets[queue[q + 12]]);
    if (q + 6 < queue.size()) __builtin_prefetch(&g.targets[g.offsets[queue[q + 6]]]);
    if (q + 3 < queue.size()) {
      const uint32_t u = queue[q + 3];
      for (uint32_t e = g.offsets[u]; e < g.offsets[u + 1] && e < g.offsets[u] + 8; ++e)
        __builtin_prefetch(&dist[g.targets[e]]);
    }
    const uint32_t v = queue[q], next = dist[v] + 1;
    dag[v].begin = static_cast<uint32_t>(dag_targets.size());
    for (uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      uint32_t w = g.targets[e];
      uint32_t dw = dist[w];
      if (dw == kNone) {
        dist[w] = dw = next;
        queue.push_back(w);
      }
      if (dw == next) dag_targets.push_back(w);
    }
    dag[v].end = static_cast<uint32_t>(dag_targets.size());
  }
  const size_t reachable = queue.size();
  queue = {};
  dist = {};
  g.targets = {};  // the walk needs only the DAG
  g.offsets = {};
  // Depth-first from each root in row order along the DAG: an object hangs
  // under the first parent the walk meets.
  std::vector<uint8_t> visited(n, 0);
  Flamegraph fg;
  ClassNames names(s, &fg);
  FgStringId java = fg.Intern("JAVA");
  // Worst case one node per reachable object (no two paths share classes).
  PathTree tree(reachable);
  struct Frame {
    uint32_t node, next, end;
  };
  std::vector<Frame> stack;
  size_t steps = 0;
  for (uint32_t root : g.roots) {
    if (visited[root]) continue;
    visited[root] = 1;
    uint32_t node = tree.Child(kNone, names.RootOf(g.rows[root]));
    tree.AddObject(node, g.size[root]);
    stack.push_back(Frame{node, dag[root].begin, dag[root].end});
    while (!stack.empty()) {
      if ((++steps & 0xfffff) == 0 && Cancelled(cancel)) return ErrorStatus("cancelled");
      Frame& f = stack.back();
      if (f.next == f.end) {
        stack.pop_back();
        continue;
      }
      uint32_t child = dag_targets[f.next++];
      if (visited[child]) continue;
      visited[child] = 1;
      uint32_t child_node = tree.Child(f.node, names.Of(g.cls[child]));
      tree.AddObject(child_node, g.size[child]);
      const Range r = dag[child];
      // The walk reads these for each reference of the new object soon.
      for (uint32_t e = r.begin; e < r.end && e < r.begin + 8; ++e) {
        const uint32_t t = dag_targets[e];
        __builtin_prefetch(&visited[t]);
        __builtin_prefetch(&dag[t]);
        __builtin_prefetch(&g.cls[t]);
      }
      stack.push_back(Frame{child_node, r.begin, r.end});  // invalidates f
    }
  }
  tree.MoveInto(&fg, java);
  return fg;
}

Result<Flamegraph> BuildHeapGraphDominatorFlamegraph(const TraceStorage& s, uint32_t upid,
                                                     int64_t ts, const std::atomic<bool>* cancel) {
  Result<DumpGraph> loaded = LoadDump(s, upid, ts, cancel);
  if (!loaded.ok()) return loaded.status();
  DumpGraph& g = *loaded;
  const uint32_t objects = static_cast<uint32_t>(g.rows.size());

  Result<heap::DominatorTree> dominators =
      heap::ComputeDominators(heap::CsrView{g.offsets, g.targets, g.roots}, cancel);
  if (!dominators.ok()) return dominators.status();
  g.targets = {};
  g.offsets = {};
  const heap::DominatorTree& dom = *dominators;

  // The tree, merged by class-name path. `order` puts every object after
  // its immediate dominator.
  Flamegraph fg;
  ClassNames names(s, &fg);
  FgStringId java = fg.Intern("JAVA");
  const auto& root_type = s.profile.heap_graph_object.root_type;
  PathTree tree(1024);
  std::vector<uint32_t> node(objects, kNone);
  for (uint32_t v : dom.order) {
    const uint32_t idom = dom.idom[v];
    if (idom == heap::kVirtualRoot) {
      uint32_t row = g.rows[v];
      bool is_root = root_type[row] != kNullStringId;
      node[v] = tree.Child(kNone, is_root ? names.RootOf(row) : names.Of(g.cls[v]));
    } else {
      node[v] = tree.Child(node[idom], names.Of(g.cls[v]));
    }
    tree.AddObject(node[v], g.size[v]);
  }
  tree.MoveInto(&fg, java);
  return fg;
}

}  // namespace fathom
