#include "core/sql/functions/tree_partition.h"

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/sql/functions/table_ptr.h"

namespace fathom {
namespace {

struct TreeRows {
  std::vector<int64_t> ids, groups;
  std::vector<std::optional<int64_t>> parents;
};

void Step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto** slot = static_cast<TreeRows**>(sqlite3_aggregate_context(ctx, sizeof(TreeRows*)));
  if (!slot) return sqlite3_result_error_nomem(ctx);
  if (!*slot) *slot = new TreeRows();
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
    return sqlite3_result_error(ctx, "__intrinsic_structural_tree_partition: id is NULL", -1);
  (*slot)->ids.push_back(sqlite3_value_int64(argv[0]));
  (*slot)->parents.push_back(sqlite3_value_type(argv[1]) == SQLITE_NULL
                                 ? std::nullopt
                                 : std::optional<int64_t>(sqlite3_value_int64(argv[1])));
  (*slot)->groups.push_back(sqlite3_value_int64(argv[2]));
}

void Final(sqlite3_context* ctx) {
  auto** slot = static_cast<TreeRows**>(sqlite3_aggregate_context(ctx, 0));
  std::unique_ptr<TreeRows> rows(slot && *slot ? *slot : new TreeRows());
  auto out = std::make_unique<PtrTable>();
  out->names = {"node_id", "parent_node_id", "group_key"};
  const size_t n = rows->ids.size();
  std::unordered_map<int64_t, size_t> index;
  for (size_t i = 0; i < n; ++i) index.emplace(rows->ids[i], i);
  // Children in row order; a node whose parent is not in the table is a root.
  std::vector<std::vector<size_t>> children(n);
  std::vector<size_t> roots;
  for (size_t i = 0; i < n; ++i) {
    auto it = rows->parents[i] ? index.find(*rows->parents[i]) : index.end();
    if (it == index.end()) {
      roots.push_back(i);
    } else {
      children[it->second].push_back(i);
    }
  }
  // The walk keeps, per group, the stack of that group's nodes on the path.
  std::unordered_map<int64_t, std::vector<int64_t>> on_path;
  struct Visit {
    size_t node;
    bool leave;
  };
  std::vector<Visit> stack;
  for (size_t r : roots) stack.push_back({r, false});
  while (!stack.empty()) {
    const Visit v = stack.back();
    stack.pop_back();
    std::vector<int64_t>& path = on_path[rows->groups[v.node]];
    if (v.leave) {
      path.pop_back();
      continue;
    }
    out->rows.push_back({SqlCell::Int(rows->ids[v.node]),
                         path.empty() ? SqlCell() : SqlCell::Int(path.back()),
                         SqlCell::Int(rows->groups[v.node])});
    path.push_back(rows->ids[v.node]);
    stack.push_back({v.node, true});
    for (size_t c : children[v.node]) stack.push_back({c, false});
  }
  ResultPtrTable(ctx, std::move(out));
}

}  // namespace

Status RegisterTreePartition(sqlite3* db) {
  if (sqlite3_create_function_v2(db, "__intrinsic_structural_tree_partition", 3, SQLITE_UTF8,
                                 nullptr, nullptr, Step, Final, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register __intrinsic_structural_tree_partition");
  return Status::Ok();
}

}  // namespace fathom
