#include "core/sql/functions/last_non_null.h"

#include <cstdint>
#include <deque>
#include <utility>

namespace fathom {
namespace {

// The frame's non-NULL values in row order, each tagged with its row's
// position in the partition, so a sliding frame can drop its oldest row
// (xInverse) in O(1).
struct FrameState {
  std::deque<std::pair<int64_t, sqlite3_value*>> non_null;
  int64_t rows_added = 0;
  int64_t rows_removed = 0;

  ~FrameState() {
    for (auto& [row, v] : non_null) sqlite3_value_free(v);
  }
};

// The state lives on the heap; SQLite's aggregate context holds a pointer.
FrameState* StateOf(sqlite3_context* ctx, bool create) {
  auto** slot = static_cast<FrameState**>(
      sqlite3_aggregate_context(ctx, create ? static_cast<int>(sizeof(FrameState*)) : 0));
  if (!slot) return nullptr;
  if (!*slot && create) *slot = new FrameState();
  return *slot;
}

void Step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  FrameState* state = StateOf(ctx, true);
  if (!state) return sqlite3_result_error_nomem(ctx);
  const int64_t row = state->rows_added++;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  sqlite3_value* copy = sqlite3_value_dup(argv[0]);
  if (!copy) return sqlite3_result_error_nomem(ctx);
  state->non_null.emplace_back(row, copy);
}

void Inverse(sqlite3_context* ctx, int, sqlite3_value**) {
  FrameState* state = StateOf(ctx, false);
  if (!state) return;
  const int64_t row = state->rows_removed++;
  if (!state->non_null.empty() && state->non_null.front().first == row) {
    sqlite3_value_free(state->non_null.front().second);
    state->non_null.pop_front();
  }
}

void Value(sqlite3_context* ctx) {
  FrameState* state = StateOf(ctx, false);
  if (!state || state->non_null.empty()) return sqlite3_result_null(ctx);
  sqlite3_result_value(ctx, state->non_null.back().second);
}

void Final(sqlite3_context* ctx) {
  Value(ctx);
  FrameState* state = StateOf(ctx, false);
  delete state;
}

}  // namespace

Status RegisterLastNonNullFunction(sqlite3* db) {
  int rc =
      sqlite3_create_window_function(db, "last_non_null", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                     nullptr, Step, Final, Value, Inverse, nullptr);
  if (rc != SQLITE_OK) return ErrorStatus("cannot register last_non_null");
  return Status::Ok();
}

}  // namespace fathom
