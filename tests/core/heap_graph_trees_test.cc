// Heap graph trees against slow, obviously correct references on random
// graphs: the dominator tree against the O(n^2) dataflow definition
// (dom(v) = {v} + intersection of dom(p) over predecessors), the
// shortest-path tree against BFS distances and a recursive walk. Graphs have
// cycles, self references, duplicate references, references to unknown ids,
// several GC roots and unreachable objects; some are long chains with back
// references, which make the forest paths of Lengauer-Tarjan long (the case
// path compression exists for). One class per object, so a flamegraph node
// is exactly one object and the trees can be compared edge by edge.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/flamegraph/profiles.h"
#include "core/storage/trace_storage.h"
#include "tests/core/naive_dominators.h"

namespace fathom {
namespace {

struct RandomGraph {
  int n = 0;
  std::vector<std::vector<int>> succ;  // as stored, duplicates included
  std::vector<int> roots;              // ascending (row order)
};

// Objects 0..n-1 of dump (upid 0, ts 1) as rows n_before.. of the tables;
// `other_dump_objects` rows of another dump come first, so local indices
// differ from row ids and the non-consecutive path is covered too.
RandomGraph MakeGraph(std::mt19937* rng, TraceStorage* s, bool chain, bool interleave) {
  RandomGraph g;
  g.n = 2 + static_cast<int>((*rng)() % (chain ? 120 : 40));
  g.succ.resize(g.n);
  auto& objects = s->profile.heap_graph_object;
  auto& refs = s->profile.heap_graph_reference;
  StringId kind = s->Intern("KIND_NORMAL");
  StringId root = s->Intern("ROOT_X");
  std::vector<uint32_t> row(g.n), other;
  for (int i = 0; i < g.n; ++i) {
    if (interleave && (*rng)() % 3 == 0) other.push_back(objects.Insert(0, 2));  // another dump
    std::string name = "C";  // appended: GCC 12 warns (-Wrestrict) on "C" + std::string
    name += std::to_string(i);
    uint32_t cls = s->profile.heap_graph_class.Insert(s->Intern(name), kNullStringId, kind);
    row[i] = objects.Insert(0, 1);
    objects.type_id.Set(row[i], cls);
    objects.self_size.Set(row[i], 1 + i);
  }
  for (int i = 0; i < g.n; ++i) {
    if (chain && i + 1 < g.n) g.succ[i].push_back(i + 1);
    int extra = static_cast<int>((*rng)() % (chain ? 2 : 4));
    for (int e = 0; e < extra; ++e) g.succ[i].push_back(static_cast<int>((*rng)() % g.n));
  }
  int root_count = 1 + static_cast<int>((*rng)() % 3);
  for (int k = 0; k < root_count; ++k) g.roots.push_back(static_cast<int>((*rng)() % g.n));
  std::sort(g.roots.begin(), g.roots.end());
  g.roots.erase(std::unique(g.roots.begin(), g.roots.end()), g.roots.end());
  for (int r : g.roots) objects.root_type.Set(row[r], root);
  for (int i = 0; i < g.n; ++i) {
    if (g.succ[i].empty()) continue;
    uint32_t set = refs.row_count();
    // Stored in reverse and with a dangling id: the builders must sort,
    // deduplicate and skip.
    for (auto it = g.succ[i].rbegin(); it != g.succ[i].rend(); ++it)
      refs.Insert(set, row[i], row[*it], kNullStringId, kNullStringId);
    refs.Insert(set, row[i], 1000000, kNullStringId, kNullStringId);
    if (!other.empty())  // an object of the other dump: not part of this graph
      refs.Insert(set, row[i], other[(*rng)() % other.size()], kNullStringId, kNullStringId);
    objects.reference_set_id.Set(row[i], set);
  }
  return g;
}

// Object index of each node ("C12" or "C12 [ROOT_X]" -> 12), -1 for the
// virtual root, and each object's parent object in the tree (-2 = absent).
std::vector<int> ParentsFromTree(const Flamegraph& fg, int n) {
  std::vector<int> parent(n, -2);
  auto object_of = [&](uint32_t node) {
    std::string name(fg.name(node));
    return std::stoi(name.substr(1, name.find(' ') - 1));
  };
  for (uint32_t i = 0; i < fg.size(); ++i) {
    int o = object_of(i);
    EXPECT_EQ(parent[o], -2) << "object " << o << " appears twice";
    parent[o] = fg.node(i).parent ? object_of(*fg.node(i).parent) : -1;
    EXPECT_EQ(fg.node(i).count, 1);
  }
  return parent;
}

// Immediate dominators by the dataflow definition; -1 = the virtual root
// above every GC root, -2 = unreachable.
std::vector<int> NaiveIdoms(const RandomGraph& g) {
  const int n = g.n, top = n;  // vertex n: virtual root
  const testing::NaiveDominators nd = testing::ComputeNaiveDominators(n, g.succ, g.roots);
  const auto& reach = nd.reach;
  const auto& dom = nd.dom;
  // The idom is the strict dominator that every other strict dominator
  // dominates (the one with the most dominators itself).
  std::vector<int> idom(n, -2);
  for (int v = 0; v < n; ++v) {
    if (!reach[v]) continue;
    int best = top, best_depth = -1;
    for (int d = 0; d <= n; ++d) {
      if (d == v || !dom[v][d]) continue;
      int depth = static_cast<int>(std::count(dom[d].begin(), dom[d].end(), true));
      if (depth > best_depth) best = d, best_depth = depth;
    }
    idom[v] = best == top ? -1 : best;
  }
  return idom;
}

// Shortest-path tree by definition: BFS distances, then a recursive walk
// from each root in row order that adopts every not yet adopted object one
// step further away, scanning references in ascending object order.
std::vector<int> NaiveShortestPathParents(const RandomGraph& g) {
  std::vector<std::vector<int>> succ = g.succ;
  for (auto& s : succ) {
    std::sort(s.begin(), s.end());
    s.erase(std::unique(s.begin(), s.end()), s.end());
  }
  std::vector<int> dist(g.n, -1), queue;
  for (int r : g.roots) dist[r] = 0, queue.push_back(r);
  for (size_t q = 0; q < queue.size(); ++q)
    for (int w : succ[queue[q]])
      if (dist[w] < 0) dist[w] = dist[queue[q]] + 1, queue.push_back(w);
  std::vector<int> parent(g.n, -2);
  std::function<void(int)> walk = [&](int v) {
    for (int w : succ[v])
      if (dist[w] == dist[v] + 1 && parent[w] == -2) {
        parent[w] = v;
        walk(w);
      }
  };
  for (int r : g.roots) {
    parent[r] = -1;
    walk(r);
  }
  return parent;
}

TEST(HeapGraphTrees, DominatorTreeMatchesDataflowDefinition) {
  std::mt19937 rng(12345);
  for (int round = 0; round < 200; ++round) {
    TraceStorage s;
    RandomGraph g = MakeGraph(&rng, &s, /*chain=*/round % 2 == 1, /*interleave=*/round % 4 >= 2);
    Result<Flamegraph> fg = BuildHeapGraphDominatorFlamegraph(s, 0, 1);
    ASSERT_TRUE(fg.ok());
    fg->Finalize(Metric::kSize);
    EXPECT_EQ(ParentsFromTree(*fg, g.n), NaiveIdoms(g)) << "round " << round;
  }
}

TEST(HeapGraphTrees, ShortestPathTreeMatchesDefinition) {
  std::mt19937 rng(777);
  for (int round = 0; round < 200; ++round) {
    TraceStorage s;
    RandomGraph g = MakeGraph(&rng, &s, /*chain=*/round % 2 == 1, /*interleave=*/round % 4 >= 2);
    Result<Flamegraph> fg = BuildHeapGraphFlamegraph(s, 0, 1);
    ASSERT_TRUE(fg.ok());
    fg->Finalize(Metric::kSize);
    EXPECT_EQ(ParentsFromTree(*fg, g.n), NaiveShortestPathParents(g)) << "round " << round;
  }
}

}  // namespace
}  // namespace fathom
