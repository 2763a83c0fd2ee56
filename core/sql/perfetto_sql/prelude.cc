#include "core/sql/perfetto_sql/prelude.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "core/sql/perfetto_sql/engine.h"

namespace fathom::psql {
namespace {

// One column of the trace_bounds table (0: start_ts, 1: end_ts), or NULL
// when the table has no row.
void TraceBound(sqlite3_context* ctx, int which) {
  sqlite3* db = sqlite3_context_db_handle(ctx);
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT start_ts, end_ts FROM trace_bounds", -1, &s, nullptr) !=
      SQLITE_OK) {
    sqlite3_finalize(s);
    return sqlite3_result_error(ctx, "trace bounds: no trace_bounds table", -1);
  }
  if (sqlite3_step(s) != SQLITE_ROW) {
    sqlite3_result_null(ctx);
  } else {
    const int64_t start = sqlite3_column_int64(s, 0), end = sqlite3_column_int64(s, 1);
    sqlite3_result_int64(ctx, which == 0 ? start : which == 1 ? end : end - start);
  }
  sqlite3_finalize(s);
}

void TraceStart(sqlite3_context* ctx, int, sqlite3_value**) { TraceBound(ctx, 0); }
void TraceEnd(sqlite3_context* ctx, int, sqlite3_value**) { TraceBound(ctx, 1); }
void TraceDur(sqlite3_context* ctx, int, sqlite3_value**) { TraceBound(ctx, 2); }

// HASH(a, ...): 64-bit FNV-1a over the arguments in order, integers as their
// 8 little-endian bytes and text as its bytes (upstream's values). Other
// types are an error, as upstream's.
void Hash(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](const unsigned char* p, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  };
  for (int i = 0; i < argc; ++i) {
    switch (sqlite3_value_type(argv[i])) {
      case SQLITE_INTEGER: {
        const uint64_t v = static_cast<uint64_t>(sqlite3_value_int64(argv[i]));
        unsigned char b[8];
        for (int k = 0; k < 8; ++k) b[k] = static_cast<unsigned char>(v >> (8 * k));
        mix(b, 8);
        break;
      }
      case SQLITE_TEXT:
        mix(sqlite3_value_text(argv[i]), static_cast<size_t>(sqlite3_value_bytes(argv[i])));
        break;
      default: {
        const std::string msg = "HASH: arg " + std::to_string(i) + " has unknown type";
        return sqlite3_result_error(ctx, msg.c_str(), -1);
      }
    }
  }
  sqlite3_result_int64(ctx, static_cast<int64_t>(h));
}

// STR_SPLIT(text, delimiter, index): the index-th (0-based) piece of text cut
// at each delimiter; NULL past the last piece or for NULL text.
void StrSplit(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[1]) != SQLITE_TEXT || sqlite3_value_bytes(argv[1]) == 0)
    return sqlite3_result_error(ctx, "str_split: delimiter must be a non-empty string", -1);
  if (sqlite3_value_type(argv[2]) != SQLITE_INTEGER)
    return sqlite3_result_error(ctx, "str_split: index must be an integer", -1);
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  if (sqlite3_value_type(argv[0]) != SQLITE_TEXT)
    return sqlite3_result_error(ctx, "str_split: input must be a string", -1);
  std::string_view text(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])),
                        static_cast<size_t>(sqlite3_value_bytes(argv[0])));
  std::string_view delim(reinterpret_cast<const char*>(sqlite3_value_text(argv[1])),
                         static_cast<size_t>(sqlite3_value_bytes(argv[1])));
  int64_t index = sqlite3_value_int64(argv[2]);
  if (index < 0) return sqlite3_result_null(ctx);
  size_t begin = 0;
  for (; index > 0; --index) {
    size_t at = text.find(delim, begin);
    if (at == std::string_view::npos) return sqlite3_result_null(ctx);
    begin = at + delim.size();
  }
  size_t end = text.find(delim, begin);
  if (end == std::string_view::npos) end = text.size();
  sqlite3_result_text(ctx, text.data() + begin, static_cast<int>(end - begin), SQLITE_TRANSIENT);
}

// IMPORT('a.b.c'): the older spelling of INCLUDE PERFETTO MODULE a.b.c, as
// a function returning NULL.
void Import(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* engine = static_cast<PerfettoSqlEngine*>(sqlite3_user_data(ctx));
  const unsigned char* key = sqlite3_value_text(argv[0]);
  if (!key) return sqlite3_result_error(ctx, "IMPORT: expected a module name", -1);
  Status st = engine->Include(reinterpret_cast<const char*>(key));
  if (!st.ok()) return sqlite3_result_error(ctx, st.message().c_str(), -1);
  sqlite3_result_null(ctx);
}

// The cast macros are one CAST each; the SQL type names are SQLite's.
constexpr const char* kPreludeMacros[] = {
    "CREATE PERFETTO MACRO cast_int(value Expr) RETURNS Expr AS CAST($value AS INT)",
    "CREATE PERFETTO MACRO cast_double(value Expr) RETURNS Expr AS CAST($value AS REAL)",
    "CREATE PERFETTO MACRO cast_string(value Expr) RETURNS Expr AS CAST($value AS TEXT)",
};

// ancestor_slice(id) and descendant_slice(id): the slice view's rows for
// the ids the C++ walks return (slice_ancestry.cc). Fathom does not count
// instructions, so those two columns are NULL.
constexpr const char* kSliceWalkColumns =
    "(id LONG, ts TIMESTAMP, dur DURATION, track_id LONG, category STRING, name STRING, "
    "depth LONG, parent_id LONG, arg_set_id LONG, thread_ts LONG, thread_dur LONG, "
    "thread_instruction_count LONG, thread_instruction_delta LONG)";
std::string SliceWalk(const std::string& fn, const std::string& ids_fn) {
  return "CREATE PERFETTO FUNCTION " + fn + "(slice_id LONG) RETURNS TABLE" + kSliceWalkColumns +
         " AS SELECT s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth, s.parent_id, "
         "s.arg_set_id, s.thread_ts, s.thread_dur, NULL AS thread_instruction_count, "
         "NULL AS thread_instruction_delta FROM __intrinsic_table_ptr(" +
         ids_fn +
         "($slice_id)) AS w JOIN slice AS s ON s.id = w.c0 "
         "WHERE __intrinsic_table_ptr_bind(w.c0, 'id') ORDER BY s.id";
}

// experimental_ancestor_stack_profile_callsite(id): the callsite's
// ancestors (its parent, the parent's parent, ...), as stack_profile_callsite
// rows in id order (stacks.symbolization_candidates reads their frames).
constexpr const char* kCallsiteAncestors =
    "CREATE PERFETTO FUNCTION experimental_ancestor_stack_profile_callsite(callsite_id LONG) "
    "RETURNS TABLE(id LONG, depth LONG, parent_id LONG, frame_id LONG) AS "
    "WITH RECURSIVE up(id) AS (SELECT parent_id FROM stack_profile_callsite "
    "WHERE id = $callsite_id UNION ALL SELECT c.parent_id FROM stack_profile_callsite AS c "
    "JOIN up ON c.id = up.id) "
    "SELECT c.id, c.depth, c.parent_id, c.frame_id FROM stack_profile_callsite AS c "
    "JOIN up USING (id) ORDER BY c.id";

// directly_connected_flow(id), following_flow(id), preceding_flow(id): the
// flow rows the C++ walk reaches (flow_walk.cc). As upstream, `id` numbers the
// result rows from 0 in walk order; the flow's own id is not shown.
std::string FlowWalkFunction(const std::string& fn, const std::string& mode) {
  return "CREATE PERFETTO FUNCTION " + fn +
         "(slice_id LONG) RETURNS TABLE(id LONG, slice_out LONG, slice_in LONG, trace_id LONG, "
         "arg_set_id LONG) AS SELECT w.c1 AS id, f.slice_out, f.slice_in, f.trace_id, "
         "f.arg_set_id FROM __intrinsic_table_ptr(__intrinsic_flow_walk('" +
         mode +
         "', $slice_id)) AS w JOIN flow AS f ON f.id = w.c0 "
         "WHERE __intrinsic_table_ptr_bind(w.c0, 'flow_id') AND __intrinsic_table_ptr_bind(w.c1, 'pos') "
         "ORDER BY w.c1";
}

}  // namespace

Status RegisterPrelude(sqlite3* db, PerfettoSqlEngine* engine) {
  struct Fn {
    const char* name;
    int argc;
    void (*impl)(sqlite3_context*, int, sqlite3_value**);
    bool deterministic;
  };
  const Fn fns[] = {
      {"trace_start", 0, TraceStart, false}, {"trace_end", 0, TraceEnd, false},
      {"trace_dur", 0, TraceDur, false},     {"HASH", -1, Hash, true},
      {"STR_SPLIT", 3, StrSplit, true},
  };
  for (const Fn& f : fns) {
    const int flags = SQLITE_UTF8 | (f.deterministic ? SQLITE_DETERMINISTIC : 0);
    if (sqlite3_create_function_v2(db, f.name, f.argc, flags, nullptr, f.impl, nullptr, nullptr,
                                   nullptr) != SQLITE_OK)
      return ErrorStatus(std::string("cannot register ") + f.name);
  }
  if (sqlite3_create_function_v2(db, "IMPORT", 1, SQLITE_UTF8, engine, Import, nullptr, nullptr,
                                 nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register IMPORT");
  std::vector<std::string> statements(std::begin(kPreludeMacros), std::end(kPreludeMacros));
  statements.push_back(SliceWalk("ancestor_slice", "__intrinsic_slice_ancestor_ids"));
  statements.push_back(SliceWalk("descendant_slice", "__intrinsic_slice_descendant_ids"));
  statements.push_back(kCallsiteAncestors);
  statements.push_back(FlowWalkFunction("directly_connected_flow", "directly_connected"));
  statements.push_back(FlowWalkFunction("following_flow", "following"));
  statements.push_back(FlowWalkFunction("preceding_flow", "preceding"));
  for (const std::string& sql : statements) {
    const std::string_view text(sql);
    sqlite3_stmt* stmt = nullptr;
    long offset = -1;
    Status st = engine->Prepare(text, StatementSpan{0, text.size()}, &stmt, &offset);
    sqlite3_finalize(stmt);
    if (!st.ok()) return st;
  }
  return Status::Ok();
}

}  // namespace fathom::psql
