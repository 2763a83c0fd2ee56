#include "core/sql/functions/interval_create.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "core/sql/functions/table_ptr.h"

namespace fathom {
namespace {

constexpr const char* kSetType = "fathom.timestamp_set";

using TimestampSet = std::vector<int64_t>;

void DeleteSet(void* p) { delete static_cast<TimestampSet*>(p); }

void SetStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto** slot = static_cast<TimestampSet**>(sqlite3_aggregate_context(ctx, sizeof(TimestampSet*)));
  if (!slot) return sqlite3_result_error_nomem(ctx);
  if (!*slot) *slot = new TimestampSet();
  if (sqlite3_value_type(argv[0]) != SQLITE_NULL) (*slot)->push_back(sqlite3_value_int64(argv[0]));
}

void SetFinal(sqlite3_context* ctx) {
  auto** slot = static_cast<TimestampSet**>(sqlite3_aggregate_context(ctx, 0));
  TimestampSet* set = slot && *slot ? *slot : new TimestampSet();
  sqlite3_result_pointer(ctx, set, kSetType, DeleteSet);
}

void Create(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* starts = static_cast<TimestampSet*>(sqlite3_value_pointer(argv[0], kSetType));
  auto* ends = static_cast<TimestampSet*>(sqlite3_value_pointer(argv[1], kSetType));
  if (!starts || !ends)
    return sqlite3_result_error(ctx, "interval_create: arguments must be timestamp sets", -1);
  TimestampSet s = *starts, e = *ends;
  std::sort(s.begin(), s.end());
  std::sort(e.begin(), e.end());
  auto table = std::make_unique<PtrTable>();
  table->names = {"ts", "dur"};
  for (int64_t ts : s) {
    auto end = std::upper_bound(e.begin(), e.end(), ts);
    if (end == e.end()) break;  // later starts have no end either
    table->rows.push_back({SqlCell::Int(ts), SqlCell::Int(*end - ts)});
  }
  ResultPtrTable(ctx, std::move(table));
}

}  // namespace

Status RegisterIntervalCreate(sqlite3* db) {
  if (sqlite3_create_function_v2(db, "__intrinsic_timestamp_set_agg", 1, SQLITE_UTF8, nullptr,
                                 nullptr, SetStep, SetFinal, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register __intrinsic_timestamp_set_agg");
  if (sqlite3_create_function_v2(db, "__intrinsic_interval_create", 2, SQLITE_UTF8, nullptr, Create,
                                 nullptr, nullptr, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register __intrinsic_interval_create");
  return Status::Ok();
}

}  // namespace fathom
