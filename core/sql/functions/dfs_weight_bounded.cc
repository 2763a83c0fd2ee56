#include "core/sql/functions/dfs_weight_bounded.h"

#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fathom {
namespace {

constexpr const char* kListType = "fathom.repeated";
using List = std::vector<double>;

void ListStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto** slot = static_cast<List**>(sqlite3_aggregate_context(ctx, sizeof(List*)));
  if (!slot) return sqlite3_result_error_nomem(ctx);
  if (!*slot) *slot = new List();
  (*slot)->push_back(sqlite3_value_double(argv[0]));
}

void ListFinal(sqlite3_context* ctx) {
  auto** slot = static_cast<List**>(sqlite3_aggregate_context(ctx, 0));
  List* l = slot && *slot ? *slot : new List();
  sqlite3_result_pointer(ctx, l, kListType, [](void* p) { delete static_cast<List*>(p); });
}

struct Row {
  int64_t root, node;
  std::optional<int64_t> parent;
};

struct Edge {
  int64_t to;
  double weight;
};

// One root's walk, appended to `out`.
void Walk(const std::unordered_map<int64_t, std::vector<Edge>>& edges, int64_t root, double target,
          bool floor, std::vector<Row>* out) {
  struct Step {
    int64_t node;
    std::optional<int64_t> parent;
    double weight;
  };
  std::vector<Step> stack = {{root, std::nullopt, 0}};
  std::unordered_set<int64_t> seen;
  double total = 0;
  while (!stack.empty()) {
    const Step s = stack.back();
    stack.pop_back();
    if (seen.count(s.node)) continue;
    if (total + s.weight > target) {
      if (floor) out->push_back({root, s.node, s.parent});
      return;
    }
    total += s.weight;
    seen.insert(s.node);
    out->push_back({root, s.node, s.parent});
    auto it = edges.find(s.node);
    if (it == edges.end()) continue;
    for (auto e = it->second.rbegin(); e != it->second.rend(); ++e)
      stack.push_back({e->to, s.node, e->weight});
  }
}

constexpr int kArgs = 6;

struct Cursor : sqlite3_vtab_cursor {
  std::vector<Row> rows;
  size_t row = 0;
};

int Connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char**) {
  if (sqlite3_declare_vtab(db,
                           "CREATE TABLE x(root_node_id, node_id, parent_node_id, a0 HIDDEN, "
                           "a1 HIDDEN, a2 HIDDEN, a3 HIDDEN, a4 HIDDEN, a5 HIDDEN)") != SQLITE_OK)
    return SQLITE_ERROR;
  *out = new sqlite3_vtab();
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* v) {
  delete v;
  return SQLITE_OK;
}

int BestIndex(sqlite3_vtab*, sqlite3_index_info* info) {
  int found = 0;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable || c.op != SQLITE_INDEX_CONSTRAINT_EQ || c.iColumn < 3) continue;
    info->aConstraintUsage[i].argvIndex = c.iColumn - 3 + 1;
    info->aConstraintUsage[i].omit = 1;
    ++found;
  }
  if (found != kArgs) return SQLITE_CONSTRAINT;
  info->estimatedCost = 1000;
  return SQLITE_OK;
}

int Open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  *out = new Cursor();
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* c) {
  delete static_cast<Cursor*>(c);
  return SQLITE_OK;
}

int Filter(sqlite3_vtab_cursor* cur, int, const char*, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  c->rows.clear();
  c->row = 0;
  const List* lists[5] = {};
  for (int i = 0; i < 5 && i < argc; ++i)
    lists[i] = static_cast<const List*>(sqlite3_value_pointer(argv[i], kListType));
  // An empty subquery gives no list: nothing to walk.
  const List empty;
  for (auto& l : lists)
    if (!l) l = &empty;
  const List &src = *lists[0], &dst = *lists[1], &w = *lists[2], &roots = *lists[3],
             &targets = *lists[4];
  const bool floor = argc > 5 && sqlite3_value_int(argv[5]) != 0;
  std::unordered_map<int64_t, std::vector<Edge>> edges;
  for (size_t i = 0; i < src.size() && i < dst.size(); ++i)
    edges[static_cast<int64_t>(src[i])].push_back(
        {static_cast<int64_t>(dst[i]), i < w.size() ? w[i] : 0});
  for (size_t i = 0; i < roots.size(); ++i)
    Walk(edges, static_cast<int64_t>(roots[i]), i < targets.size() ? targets[i] : 0, floor,
         &c->rows);
  return SQLITE_OK;
}

int Next(sqlite3_vtab_cursor* cur) {
  ++static_cast<Cursor*>(cur)->row;
  return SQLITE_OK;
}

int Eof(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  return c->row >= c->rows.size();
}

int Column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  const Row& r = static_cast<Cursor*>(cur)->rows[static_cast<Cursor*>(cur)->row];
  if (col == 0) sqlite3_result_int64(ctx, r.root);
  if (col == 1) sqlite3_result_int64(ctx, r.node);
  if (col == 2) r.parent ? sqlite3_result_int64(ctx, *r.parent) : sqlite3_result_null(ctx);
  return SQLITE_OK;
}

int Rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  *out = static_cast<sqlite3_int64>(static_cast<Cursor*>(cur)->row);
  return SQLITE_OK;
}

sqlite3_module MakeModule() {
  sqlite3_module m{};
  m.xConnect = Connect;
  m.xBestIndex = BestIndex;
  m.xDisconnect = Disconnect;
  m.xDestroy = Disconnect;
  m.xOpen = Open;
  m.xClose = Close;
  m.xFilter = Filter;
  m.xNext = Next;
  m.xEof = Eof;
  m.xColumn = Column;
  m.xRowid = Rowid;
  return m;
}

const sqlite3_module kModule = MakeModule();

}  // namespace

Status RegisterDfsWeightBounded(sqlite3* db) {
  if (sqlite3_create_function_v2(db, "repeatedfield", 1, SQLITE_UTF8, nullptr, nullptr, ListStep,
                                 ListFinal, nullptr) != SQLITE_OK ||
      sqlite3_create_module_v2(db, "__intrinsic_dfs_weight_bounded", &kModule, nullptr, nullptr) !=
          SQLITE_OK)
    return ErrorStatus("cannot register __intrinsic_dfs_weight_bounded");
  return Status::Ok();
}

}  // namespace fathom
