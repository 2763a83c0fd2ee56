// The graph value that __intrinsic_graph_agg builds and the graph walks and
// scans read (SQLite pointer type "fathom.graph").
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace fathom {

inline constexpr const char* kGraphPtrType = "fathom.graph";

// Nodes are numbered densely in order of first appearance.
struct Graph {
  std::vector<int64_t> ids;
  std::unordered_map<int64_t, uint32_t> index;
  std::vector<std::vector<uint32_t>> out;  // edges in aggregation order
  int64_t root = 0;                        // the dominator tree's root

  uint32_t Node(int64_t id) {
    auto [it, added] = index.emplace(id, static_cast<uint32_t>(ids.size()));
    if (added) {
      ids.push_back(id);
      out.emplace_back();
    }
    return it->second;
  }
  void AddEdge(int64_t from, int64_t to) {
    const uint32_t f = Node(from);
    const uint32_t t = Node(to);
    out[f].push_back(t);
  }
};

// The graph a SQL value points at, or null.
inline Graph* GraphOf(sqlite3_value* v) {
  return static_cast<Graph*>(sqlite3_value_pointer(v, kGraphPtrType));
}

}  // namespace fathom
