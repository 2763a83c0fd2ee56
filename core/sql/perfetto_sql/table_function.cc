#include "core/sql/perfetto_sql/table_function.h"

#include <sqlite3.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/sql/perfetto_sql/functions.h"

namespace fathom::psql {
namespace {

struct Vtab : sqlite3_vtab {
  FunctionImpl* f = nullptr;
  int columns = 0;  // return columns; the arguments follow them
};

// Runs the body once per xFilter and keeps its rows: the body's statement
// goes back to the pool before the first row is read, so a body that calls
// the function again (or a join of two calls) never shares a statement.
struct Cursor : sqlite3_vtab_cursor {
  std::vector<sqlite3_value*> cells;  // rows * columns
  std::vector<sqlite3_value*> args;
  size_t row = 0;
  size_t rows = 0;
  void Clear() {
    for (sqlite3_value* v : cells) sqlite3_value_free(v);
    for (sqlite3_value* v : args) sqlite3_value_free(v);
    cells.clear();
    args.clear();
    row = rows = 0;
  }
};

std::string Quote(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  auto* f = static_cast<FunctionImpl*>(aux);
  std::string schema = "CREATE TABLE x(";
  const auto& d = f->def();
  for (size_t i = 0; i < d.return_columns.size(); ++i)
    schema += (i ? ", " : "") + Quote(d.return_columns[i].name);
  for (size_t i = 0; i < d.args.size(); ++i)
    schema += ", " + Quote("__arg_" + d.args[i].name) + " HIDDEN";
  schema += ")";
  int rc = sqlite3_declare_vtab(db, schema.c_str());
  if (rc != SQLITE_OK) return rc;
  auto* v = new Vtab();
  v->f = f;
  v->columns = static_cast<int>(d.return_columns.size());
  *out = v;
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* v) {
  delete static_cast<Vtab*>(v);
  return SQLITE_OK;
}

// Every argument needs a usable '=' constraint; the plan passes them in order.
int BestIndex(sqlite3_vtab* tab, sqlite3_index_info* info) {
  auto* v = static_cast<Vtab*>(tab);
  const int nargs = static_cast<int>(v->f->def().args.size());
  std::vector<bool> seen(static_cast<size_t>(nargs), false);
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    const int arg = c.iColumn - v->columns;
    if (arg < 0 || !c.usable || c.op != SQLITE_INDEX_CONSTRAINT_EQ ||
        seen[static_cast<size_t>(arg)])
      continue;
    seen[static_cast<size_t>(arg)] = true;
    info->aConstraintUsage[i].argvIndex = arg + 1;
    info->aConstraintUsage[i].omit = 1;
  }
  for (bool s : seen)
    if (!s) return SQLITE_CONSTRAINT;
  info->estimatedCost = 1000;
  info->estimatedRows = 1000;
  return SQLITE_OK;
}

int Open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  *out = new Cursor();
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* c) {
  auto* cur = static_cast<Cursor*>(c);
  cur->Clear();
  delete cur;
  return SQLITE_OK;
}

int Fail(sqlite3_vtab* tab, const std::string& msg) {
  sqlite3_free(tab->zErrMsg);
  tab->zErrMsg = sqlite3_mprintf("%s", msg.c_str());
  return SQLITE_ERROR;
}

int Filter(sqlite3_vtab_cursor* c, int, const char*, int argc, sqlite3_value** argv) {
  auto* cur = static_cast<Cursor*>(c);
  auto* v = static_cast<Vtab*>(c->pVtab);
  FunctionImpl* f = v->f;
  cur->Clear();
  for (int i = 0; i < argc; ++i) cur->args.push_back(sqlite3_value_dup(argv[i]));
  Result<sqlite3_stmt*> stmt = f->Acquire();
  if (!stmt.ok()) return Fail(c->pVtab, stmt.status().message());
  sqlite3_stmt* s = *stmt;
  std::string error;
  if (!f->Bind(s, argc, argv, &error)) {
    f->Release(s);
    return Fail(c->pVtab, error);
  }
  const int n = std::min(sqlite3_column_count(s), v->columns);
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    for (int i = 0; i < v->columns; ++i)
      cur->cells.push_back(i < n ? sqlite3_value_dup(sqlite3_column_value(s, i)) : nullptr);
    ++cur->rows;
  }
  if (rc != SQLITE_DONE) error = f->def().name + ": " + sqlite3_errmsg(f->db());
  f->Release(s);
  if (!error.empty()) return Fail(c->pVtab, error);
  return SQLITE_OK;
}

int Next(sqlite3_vtab_cursor* c) {
  ++static_cast<Cursor*>(c)->row;
  return SQLITE_OK;
}

int Eof(sqlite3_vtab_cursor* c) {
  auto* cur = static_cast<Cursor*>(c);
  return cur->row >= cur->rows;
}

int Column(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int col) {
  auto* cur = static_cast<Cursor*>(c);
  auto* v = static_cast<Vtab*>(c->pVtab);
  sqlite3_value* value = nullptr;
  if (col < v->columns) {
    value = cur->cells[cur->row * static_cast<size_t>(v->columns) + static_cast<size_t>(col)];
  } else if (static_cast<size_t>(col - v->columns) < cur->args.size()) {
    value = cur->args[static_cast<size_t>(col - v->columns)];
  }
  if (value)
    sqlite3_result_value(ctx, value);
  else
    sqlite3_result_null(ctx);
  return SQLITE_OK;
}

int Rowid(sqlite3_vtab_cursor* c, sqlite3_int64* out) {
  *out = static_cast<sqlite3_int64>(static_cast<Cursor*>(c)->row);
  return SQLITE_OK;
}

sqlite3_module MakeModule() {
  sqlite3_module m{};
  m.iVersion = 0;
  m.xCreate = nullptr;  // eponymous only: `FROM f(...)`, never CREATE VIRTUAL TABLE
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

}  // namespace

Status RegisterTableFunction(FunctionImpl* f) {
  static const sqlite3_module kModule = MakeModule();
  int rc = sqlite3_create_module_v2(f->db(), f->def().name.c_str(), &kModule, f, nullptr);
  if (rc != SQLITE_OK) return ErrorStatus(f->def().name + ": " + sqlite3_errmsg(f->db()));
  return Status::Ok();
}

}  // namespace fathom::psql
