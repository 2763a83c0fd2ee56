#include "core/sql/functions/layout_depth.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace fathom {
namespace {

constexpr int64_t kNeverEnds = std::numeric_limits<int64_t>::max();

struct LayoutState {
  std::vector<int64_t> end_of_depth;  // when each depth's latest interval ends
  std::optional<int64_t> last_ts;
  int64_t depth = 0;  // of the latest interval
  bool value_pending = false;
};

LayoutState* StateOf(sqlite3_context* ctx, bool create) {
  auto** slot = static_cast<LayoutState**>(
      sqlite3_aggregate_context(ctx, create ? static_cast<int>(sizeof(LayoutState*)) : 0));
  if (!slot) return nullptr;
  if (!*slot && create) *slot = new LayoutState();
  return *slot;
}

void Step(sqlite3_context* ctx, int, sqlite3_value** argv) {
  LayoutState* s = StateOf(ctx, true);
  if (!s) return sqlite3_result_error_nomem(ctx);
  if (s->value_pending) {
    // Two rows arrived for one answer: the frame is not "up to the current
    // row" (e.g. RANGE peers with equal ts, or no OVER clause at all).
    return sqlite3_result_error(
        ctx,
        "INTERNAL_LAYOUT: the window clause must be \"rows between unbounded preceding and "
        "current row\"",
        -1);
  }
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER ||
      sqlite3_value_type(argv[1]) != SQLITE_INTEGER)
    return sqlite3_result_error(ctx, "INTERNAL_LAYOUT: ts and dur must be integers", -1);
  const int64_t ts = sqlite3_value_int64(argv[0]);
  const int64_t dur = sqlite3_value_int64(argv[1]);
  if (dur < -1) return sqlite3_result_error(ctx, "INTERNAL_LAYOUT: dur cannot be < -1.", -1);
  if (s->last_ts && ts < *s->last_ts)
    return sqlite3_result_error(
        ctx, "INTERNAL_LAYOUT: rows must be sorted by ts (\"ORDER BY ts\" in the window clause)",
        -1);
  s->last_ts = ts;
  size_t depth = 0;
  while (depth < s->end_of_depth.size() && s->end_of_depth[depth] > ts) ++depth;
  if (depth == s->end_of_depth.size()) s->end_of_depth.push_back(0);
  s->end_of_depth[depth] = dur == -1 ? kNeverEnds : ts + dur;
  s->depth = static_cast<int64_t>(depth);
  s->value_pending = true;
}

void Inverse(sqlite3_context* ctx, int, sqlite3_value**) {
  sqlite3_result_error(ctx, "INTERNAL_LAYOUT: the window frame must start at UNBOUNDED PRECEDING",
                       -1);
}

void Value(sqlite3_context* ctx) {
  LayoutState* s = StateOf(ctx, false);
  if (!s) return sqlite3_result_null(ctx);
  s->value_pending = false;
  sqlite3_result_int64(ctx, s->depth);
}

void Final(sqlite3_context* ctx) {
  LayoutState* s = StateOf(ctx, false);
  if (s && s->value_pending) {
    sqlite3_result_int64(ctx, s->depth);
  } else {
    sqlite3_result_null(ctx);
  }
  delete s;
}

}  // namespace

Status RegisterLayoutDepthFunction(sqlite3* db) {
  int rc =
      sqlite3_create_window_function(db, "internal_layout", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                     nullptr, Step, Final, Value, Inverse, nullptr);
  if (rc != SQLITE_OK) return ErrorStatus("cannot register internal_layout");
  return Status::Ok();
}

}  // namespace fathom
