#include "core/sql/functions/slice_ancestry.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/sql/functions/table_ptr.h"

namespace fathom {
namespace {

void SliceIsAncestor(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  for (int i = 0; i < argc; ++i) {
    const int type = sqlite3_value_type(argv[i]);
    if (type == SQLITE_NULL) return sqlite3_result_null(ctx);
    if (type != SQLITE_INTEGER) {
      std::string msg = "slice_is_ancestor: argument " + std::to_string(i) +
                        " does not have expected type: expected LONG";
      return sqlite3_result_error(ctx, msg.c_str(), -1);
    }
  }
  const auto* storage = static_cast<const TraceStorage*>(sqlite3_user_data(ctx));
  const SliceTable& slices = storage->slice;
  const int64_t ancestor = sqlite3_value_int64(argv[0]);
  const int64_t descendant = sqlite3_value_int64(argv[1]);
  const auto rows = static_cast<int64_t>(slices.row_count());
  if (ancestor < 0 || ancestor >= rows || descendant < 0 || descendant >= rows)
    return sqlite3_result_null(ctx);
  // A parent is inserted before its children, so ids fall along the chain;
  // the check also keeps a malformed chain from looping.
  auto child = static_cast<uint32_t>(descendant);
  for (auto parent = slices.parent_id.Get(child); parent && *parent < child;
       child = *parent, parent = slices.parent_id.Get(child)) {
    if (*parent == ancestor) return sqlite3_result_int(ctx, 1);
  }
  sqlite3_result_int(ctx, 0);
}

// The slice id argument of the id-list functions, or nullopt (with the
// error set) when it is not a slice.
std::optional<uint32_t> SliceArg(sqlite3_context* ctx, sqlite3_value* v, const char* fn) {
  const auto* storage = static_cast<const TraceStorage*>(sqlite3_user_data(ctx));
  if (sqlite3_value_type(v) != SQLITE_INTEGER) {
    sqlite3_result_error(ctx, (std::string(fn) + ": slice id must be an integer").c_str(), -1);
    return std::nullopt;
  }
  const int64_t id = sqlite3_value_int64(v);
  if (id < 0 || id >= static_cast<int64_t>(storage->slice.row_count())) return std::nullopt;
  return static_cast<uint32_t>(id);
}

std::unique_ptr<PtrTable> IdTable(const std::vector<uint32_t>& ids) {
  auto t = std::make_unique<PtrTable>();
  t->names = {"id"};
  for (uint32_t id : ids) t->rows.push_back({SqlCell::Int(id)});
  return t;
}

// __intrinsic_slice_ancestor_ids(id): a table pointer of the slice's strict
// ancestors' ids, root first. ancestor_slice() (the prelude) reads it.
void AncestorIds(sqlite3_context* ctx, int, sqlite3_value** argv) {
  std::vector<uint32_t> ids;
  if (auto id = SliceArg(ctx, argv[0], "ancestor_slice")) {
    const SliceTable& slices = static_cast<const TraceStorage*>(sqlite3_user_data(ctx))->slice;
    uint32_t child = *id;
    for (auto parent = slices.parent_id.Get(child); parent && *parent < child;
         child = *parent, parent = slices.parent_id.Get(child))
      ids.insert(ids.begin(), *parent);
  } else if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
    return;  // the error is set
  }
  ResultPtrTable(ctx, IdTable(ids));
}

// __intrinsic_slice_descendant_ids(id): the ids of every slice below it, in
// id order. Children come after their parent, so one pass marks them.
void DescendantIds(sqlite3_context* ctx, int, sqlite3_value** argv) {
  std::vector<uint32_t> ids;
  if (auto id = SliceArg(ctx, argv[0], "descendant_slice")) {
    const SliceTable& slices = static_cast<const TraceStorage*>(sqlite3_user_data(ctx))->slice;
    const uint32_t rows = static_cast<uint32_t>(slices.row_count());
    std::vector<char> below(rows, 0);
    below[*id] = 1;
    for (uint32_t j = *id + 1; j < rows; ++j) {
      auto parent = slices.parent_id.Get(j);
      if (parent && *parent < j && below[*parent]) {
        below[j] = 1;
        ids.push_back(j);
      }
    }
  } else if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
    return;
  }
  ResultPtrTable(ctx, IdTable(ids));
}

}  // namespace

Status RegisterSliceAncestryFunctions(sqlite3* db, TraceStorage* storage) {
  int rc =
      sqlite3_create_function_v2(db, "slice_is_ancestor", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                 storage, SliceIsAncestor, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return ErrorStatus("cannot register slice_is_ancestor");
  using Fn = void (*)(sqlite3_context*, int, sqlite3_value**);
  const std::pair<const char*, Fn> walks[] = {{"__intrinsic_slice_ancestor_ids", AncestorIds},
                                              {"__intrinsic_slice_descendant_ids", DescendantIds}};
  for (const auto& [name, fn] : walks) {
    if (sqlite3_create_function_v2(db, name, 1, SQLITE_UTF8, storage, fn, nullptr, nullptr,
                                   nullptr) != SQLITE_OK)
      return ErrorStatus(std::string("cannot register ") + name);
  }
  return Status::Ok();
}

}  // namespace fathom
