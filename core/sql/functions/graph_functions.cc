#include "core/sql/functions/graph_functions.h"

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/sql/functions/graph.h"
#include "core/sql/functions/table_ptr.h"

namespace fathom {
namespace {

constexpr const char* kGraphType = kGraphPtrType;
constexpr const char* kArrayType = "fathom.array";

using Array = std::vector<int64_t>;

template <typename T>
void Delete(void* p) {
  delete static_cast<T*>(p);
}

template <typename T>
T* AggState(sqlite3_context* ctx) {
  auto** slot = static_cast<T**>(sqlite3_aggregate_context(ctx, sizeof(T*)));
  if (slot && !*slot) *slot = new T();
  return slot ? *slot : nullptr;
}

template <typename T>
void AggFinal(sqlite3_context* ctx, const char* type) {
  auto** slot = static_cast<T**>(sqlite3_aggregate_context(ctx, 0));
  T* v = slot && *slot ? *slot : new T();
  sqlite3_result_pointer(ctx, v, type, Delete<T>);
}

void GraphStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Graph* g = AggState<Graph>(ctx);
  if (!g) return sqlite3_result_error_nomem(ctx);
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
    return;
  g->AddEdge(sqlite3_value_int64(argv[0]), sqlite3_value_int64(argv[1]));
}
void GraphFinal(sqlite3_context* ctx) { AggFinal<Graph>(ctx, kGraphType); }

void ArrayStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Array* a = AggState<Array>(ctx);
  if (!a) return sqlite3_result_error_nomem(ctx);
  a->push_back(sqlite3_value_int64(argv[0]));
}
void ArrayFinal(sqlite3_context* ctx) { AggFinal<Array>(ctx, kArrayType); }

std::unique_ptr<PtrTable> NodeTable(const char* parent_name) {
  auto t = std::make_unique<PtrTable>();
  t->names = {"node_id", parent_name};
  return t;
}

void AddRow(PtrTable* t, int64_t node, std::optional<int64_t> parent) {
  t->rows.push_back({SqlCell::Int(node), parent ? SqlCell::Int(*parent) : SqlCell()});
}

// The walk shared by DFS and BFS; `bfs` picks the order.
void Walk(sqlite3_context* ctx, sqlite3_value** argv, bool bfs) {
  auto* g = static_cast<Graph*>(sqlite3_value_pointer(argv[0], kGraphType));
  auto* starts = static_cast<Array*>(sqlite3_value_pointer(argv[1], kArrayType));
  if (!g || !starts)
    return sqlite3_result_error(ctx, "graph walk: expected a graph and starts", -1);
  auto table = NodeTable("parent_node_id");
  std::vector<char> seen(g->ids.size(), 0);
  // Start nodes missing from the graph are still visited (they have no edges).
  std::unordered_map<int64_t, char> seen_outside;
  auto mark = [&](int64_t id) {
    auto it = g->index.find(id);
    if (it == g->index.end()) return !seen_outside[id]++;
    if (seen[it->second]) return false;
    return seen[it->second] = 1, true;
  };
  auto edges = [&](int64_t id) -> const std::vector<uint32_t>* {
    auto it = g->index.find(id);
    return it == g->index.end() ? nullptr : &g->out[it->second];
  };
  if (bfs) {
    std::deque<std::pair<int64_t, std::optional<int64_t>>> queue;
    for (int64_t s : *starts)
      if (mark(s)) queue.emplace_back(s, std::nullopt);
    while (!queue.empty()) {
      auto [node, parent] = queue.front();
      queue.pop_front();
      AddRow(table.get(), node, parent);
      if (const auto* e = edges(node))
        for (uint32_t t : *e)
          if (mark(g->ids[t])) queue.emplace_back(g->ids[t], node);
    }
  } else {
    std::vector<std::pair<int64_t, std::optional<int64_t>>> stack;
    for (int64_t s : *starts) stack.emplace_back(s, std::nullopt);
    while (!stack.empty()) {
      auto [node, parent] = stack.back();
      stack.pop_back();
      if (!mark(node)) continue;
      AddRow(table.get(), node, parent);
      if (const auto* e = edges(node))
        for (auto it = e->rbegin(); it != e->rend(); ++it) stack.emplace_back(g->ids[*it], node);
    }
  }
  ResultPtrTable(ctx, std::move(table));
}

void Dfs(sqlite3_context* ctx, int, sqlite3_value** argv) { Walk(ctx, argv, false); }
void Bfs(sqlite3_context* ctx, int, sqlite3_value** argv) { Walk(ctx, argv, true); }

void DominatorStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Graph* g = AggState<Graph>(ctx);
  if (!g) return sqlite3_result_error_nomem(ctx);
  g->root = sqlite3_value_int64(argv[2]);
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL)
    return;
  g->AddEdge(sqlite3_value_int64(argv[0]), sqlite3_value_int64(argv[1]));
}

// Cooper, Harvey and Kennedy's iterative dominator algorithm over the
// depth-first order from the root.
void DominatorFinal(sqlite3_context* ctx) {
  auto** slot = static_cast<Graph**>(sqlite3_aggregate_context(ctx, 0));
  std::unique_ptr<Graph> g(slot && *slot ? *slot : new Graph());
  auto table = NodeTable("dominator_node_id");
  auto root_it = g->index.find(g->root);
  if (root_it == g->index.end()) {
    if (slot && *slot) AddRow(table.get(), g->root, std::nullopt);
    return ResultPtrTable(ctx, std::move(table));
  }
  const uint32_t n = static_cast<uint32_t>(g->ids.size()), kNone = UINT32_MAX;
  // Preorder (the output order) and postorder numbers, iteratively.
  std::vector<uint32_t> preorder, post(n, kNone), order;  // order: nodes by postorder
  std::vector<char> seen(n, 0);
  std::vector<std::pair<uint32_t, size_t>> stack = {{root_it->second, 0}};
  seen[root_it->second] = 1;
  preorder.push_back(root_it->second);
  while (!stack.empty()) {
    auto& [v, next] = stack.back();
    if (next < g->out[v].size()) {
      const uint32_t w = g->out[v][next++];
      if (!seen[w]) {
        seen[w] = 1;
        preorder.push_back(w);
        stack.emplace_back(w, 0);
      }
      continue;
    }
    post[v] = static_cast<uint32_t>(order.size());
    order.push_back(v);
    stack.pop_back();
  }
  std::vector<std::vector<uint32_t>> preds(n);
  for (uint32_t v = 0; v < n; ++v)
    if (seen[v])
      for (uint32_t w : g->out[v]) preds[w].push_back(v);
  std::vector<uint32_t> idom(n, kNone);
  idom[root_it->second] = root_it->second;
  auto intersect = [&](uint32_t a, uint32_t b) {
    while (a != b) {
      while (post[a] < post[b]) a = idom[a];
      while (post[b] < post[a]) b = idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const uint32_t v = *it;
      if (v == root_it->second) continue;
      uint32_t d = kNone;
      for (uint32_t p : preds[v])
        if (idom[p] != kNone) d = d == kNone ? p : intersect(p, d);
      if (d != idom[v]) idom[v] = d, changed = true;
    }
  }
  for (uint32_t v : preorder)
    AddRow(table.get(), g->ids[v],
           v == root_it->second ? std::nullopt : std::optional<int64_t>(g->ids[idom[v]]));
  ResultPtrTable(ctx, std::move(table));
}

}  // namespace

Status RegisterGraphFunctions(sqlite3* db) {
  struct Agg {
    const char* name;
    int argc;
    void (*step)(sqlite3_context*, int, sqlite3_value**);
    void (*final)(sqlite3_context*);
  };
  for (const Agg& a : {Agg{"__intrinsic_graph_agg", 2, GraphStep, GraphFinal},
                       Agg{"__intrinsic_array_agg", 1, ArrayStep, ArrayFinal},
                       Agg{"__intrinsic_dominator_tree", 3, DominatorStep, DominatorFinal}}) {
    if (sqlite3_create_function_v2(db, a.name, a.argc, SQLITE_UTF8, nullptr, nullptr, a.step,
                                   a.final, nullptr) != SQLITE_OK)
      return ErrorStatus(std::string("cannot register ") + a.name);
  }
  if (sqlite3_create_function_v2(db, "__intrinsic_dfs", 2, SQLITE_UTF8, nullptr, Dfs, nullptr,
                                 nullptr, nullptr) != SQLITE_OK ||
      sqlite3_create_function_v2(db, "__intrinsic_bfs", 2, SQLITE_UTF8, nullptr, Bfs, nullptr,
                                 nullptr, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register the graph walks");
  return Status::Ok();
}

}  // namespace fathom
