#include "core/sql/functions/slice_ancestry.h"

#include <optional>
#include <string>

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

}  // namespace

Status RegisterSliceAncestryFunctions(sqlite3* db, TraceStorage* storage) {
  int rc =
      sqlite3_create_function_v2(db, "slice_is_ancestor", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                 storage, SliceIsAncestor, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return ErrorStatus("cannot register slice_is_ancestor");
  return Status::Ok();
}

}  // namespace fathom
