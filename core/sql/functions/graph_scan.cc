#include "core/sql/functions/graph_scan.h"

#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "core/sql/functions/graph.h"
#include "core/sql/functions/table_ptr.h"

namespace fathom {
namespace {

// The parameter the rewritten step query reads its `$table` rows from.
constexpr const char* kTableParam = ":__fathom_scan_table";

void RowDataframeStep(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (argc % 2 != 0)
    return sqlite3_result_error(ctx, "__intrinsic_row_dataframe_agg: takes name, value pairs", -1);
  auto** slot = static_cast<PtrTable**>(sqlite3_aggregate_context(ctx, sizeof(PtrTable*)));
  if (!slot) return sqlite3_result_error_nomem(ctx);
  if (!*slot) {
    *slot = new PtrTable();
    for (int i = 0; i < argc; i += 2) {
      const unsigned char* name = sqlite3_value_text(argv[i]);
      (*slot)->names.emplace_back(name ? reinterpret_cast<const char*>(name) : "");
    }
  }
  std::vector<SqlCell> row;
  for (int i = 1; i < argc; i += 2) row.push_back(SqlCell::Of(argv[i]));
  (*slot)->rows.push_back(std::move(row));
}

void RowDataframeFinal(sqlite3_context* ctx) {
  auto** slot = static_cast<PtrTable**>(sqlite3_aggregate_context(ctx, 0));
  std::unique_ptr<PtrTable> t(slot && *slot ? *slot : new PtrTable());
  ResultPtrTable(ctx, std::move(t));
}

// "(a, b , c)" -> {"a", "b", "c"}.
std::vector<std::string> ColumnList(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == '(' || c == ')' || std::isspace(static_cast<unsigned char>(c))) continue;
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The step query with each `$table` read from the bound table pointer.
std::string RewriteStep(const std::string& sql, const std::vector<std::string>& names) {
  std::string sub = "(SELECT c0 AS id";
  for (size_t i = 1; i < names.size(); ++i) sub += ", c" + std::to_string(i) + " AS " + names[i];
  sub += std::string(" FROM __intrinsic_table_ptr(") + kTableParam + ") WHERE ";
  for (size_t i = 0; i < names.size(); ++i)
    sub += (i ? " AND " : "") + std::string("__intrinsic_table_ptr_bind(c") + std::to_string(i) +
           ", '" + names[i] + "')";
  sub += ")";
  // The step is a parenthesised query or a table name: read it as a table.
  std::string out = "SELECT * FROM ";
  const std::string key = "$table";
  for (size_t i = 0; i < sql.size();) {
    if (sql.compare(i, key.size(), key) == 0 &&
        (i + key.size() >= sql.size() || !IsIdentChar(sql[i + key.size()]))) {
      out += sub;
      i += key.size();
    } else {
      out += sql[i++];
    }
  }
  return out;
}

// Runs the step query over `input`; its rows (id first, then the scan's
// columns by name, or by position when a name is missing) go to `out`.
bool RunStep(sqlite3* db, const std::string& sql, const PtrTable& input, PtrTable* out,
             std::string* err) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
    *err = std::string("graph scan step: ") + sqlite3_errmsg(db);
    sqlite3_finalize(s);
    return false;
  }
  const int param = sqlite3_bind_parameter_index(s, kTableParam);
  if (param > 0) BindPtrTable(s, param, &input);
  std::vector<int> source(out->names.size());
  const int ncol = sqlite3_column_count(s);
  for (size_t k = 0; k < source.size(); ++k) {
    source[k] = static_cast<int>(k) < ncol ? static_cast<int>(k) : -1;
    for (int c = 0; c < ncol; ++c)
      if (sqlite3_stricmp(sqlite3_column_name(s, c), out->names[k].c_str()) == 0) source[k] = c;
  }
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    std::vector<SqlCell> row;
    for (int c : source) row.push_back(c < 0 ? SqlCell() : SqlCell::Of(sqlite3_column_value(s, c)));
    out->rows.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) *err = std::string("graph scan step: ") + sqlite3_errmsg(db);
  sqlite3_finalize(s);
  return rc == SQLITE_DONE;
}

// The scan shared by both functions; `aggregating` picks when a node is
// handed to the step query.
void Scan(sqlite3_context* ctx, sqlite3_value** argv, bool aggregating) {
  const Graph* g = GraphOf(argv[0]);
  const PtrTable* init = PtrTableOf(argv[1]);
  const unsigned char* step_text = sqlite3_value_text(argv[2]);
  const unsigned char* cols_text = sqlite3_value_text(argv[3]);
  if (!init || !step_text || !cols_text)
    return sqlite3_result_error(ctx, "graph scan: expected a graph, rows, a query and columns", -1);
  Graph empty;
  if (!g) g = &empty;  // no edges at all (an empty edge table)
  auto result = std::make_unique<PtrTable>();
  result->names = {"id"};
  for (auto& c : ColumnList(reinterpret_cast<const char*>(cols_text))) result->names.push_back(c);
  const std::string sql = RewriteStep(reinterpret_cast<const char*>(step_text), result->names);
  // The init rows, with their columns in the scan's order.
  PtrTable frontier;
  frontier.names = result->names;
  for (size_t row = 0; row < init->RowCount(); ++row) {
    std::vector<SqlCell> r;
    for (const auto& name : result->names) {
      SqlCell cell;
      for (size_t k = 0; k < init->names.size(); ++k)
        if (init->names[k] == name) cell = init->CellAt(row, k);
      r.push_back(cell);
    }
    frontier.rows.push_back(std::move(r));
  }
  std::vector<uint32_t> waiting(g->ids.size(), 0);  // edges not yet followed
  for (const auto& edges : g->out)
    for (uint32_t t : edges) ++waiting[t];
  std::vector<std::vector<std::vector<SqlCell>>> held(g->ids.size());
  sqlite3* db = sqlite3_context_db_handle(ctx);
  while (!frontier.rows.empty()) {
    for (const auto& r : frontier.rows) result->rows.push_back(r);
    PtrTable input;
    input.names = result->names;
    std::vector<uint32_t> ready;
    for (const auto& r : frontier.rows) {
      if (r[0].type != SQLITE_INTEGER) continue;
      auto it = g->index.find(r[0].i);
      if (it == g->index.end()) continue;
      for (uint32_t t : g->out[it->second]) {
        auto row = r;
        row[0] = SqlCell::Int(g->ids[t]);
        if (!aggregating) {
          input.rows.push_back(std::move(row));
          continue;
        }
        held[t].push_back(std::move(row));
        if (--waiting[t] == 0) ready.push_back(t);
      }
    }
    for (uint32_t t : ready)
      for (auto& row : held[t]) input.rows.push_back(std::move(row));
    if (input.rows.empty()) break;
    PtrTable next;
    next.names = result->names;
    std::string err;
    if (!RunStep(db, sql, input, &next, &err)) return sqlite3_result_error(ctx, err.c_str(), -1);
    frontier = std::move(next);
  }
  ResultPtrTable(ctx, std::move(result));
}

void GraphScan(sqlite3_context* ctx, int, sqlite3_value** argv) { Scan(ctx, argv, false); }
void AggregatingScan(sqlite3_context* ctx, int, sqlite3_value** argv) { Scan(ctx, argv, true); }

}  // namespace

Status RegisterGraphScan(sqlite3* db) {
  if (sqlite3_create_function_v2(db, "__intrinsic_row_dataframe_agg", -1, SQLITE_UTF8, nullptr,
                                 nullptr, RowDataframeStep, RowDataframeFinal,
                                 nullptr) != SQLITE_OK ||
      sqlite3_create_function_v2(db, "__intrinsic_graph_scan", 4, SQLITE_UTF8, nullptr, GraphScan,
                                 nullptr, nullptr, nullptr) != SQLITE_OK ||
      sqlite3_create_function_v2(db, "__intrinsic_graph_aggregating_scan", 4, SQLITE_UTF8, nullptr,
                                 AggregatingScan, nullptr, nullptr, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register the graph scans");
  return Status::Ok();
}

}  // namespace fathom
