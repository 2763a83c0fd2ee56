#include "core/sql/perfetto_sql/table_info.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace fathom::psql {
namespace {

struct ColumnInfo {
  std::string name, type;
  bool nullable = false;
  int sorted = 3;
};

// What the rows of one column say about it.
struct ColumnScan {
  int64_t rows = 0;
  bool has_null = false, has_text = false, has_real = false;
  int64_t min = std::numeric_limits<int64_t>::max(), max = std::numeric_limits<int64_t>::min();
  bool is_id = true, is_set_id = true, non_decreasing = true;
  sqlite3_value* prev = nullptr;
  int64_t prev_int = 0;

  void Add(sqlite3_value* v) {
    const int t = sqlite3_value_type(v);
    if (t == SQLITE_NULL) has_null = true;
    if (t == SQLITE_TEXT || t == SQLITE_BLOB) has_text = true;
    if (t == SQLITE_FLOAT) has_real = true;
    const bool integer = t == SQLITE_INTEGER;
    const int64_t i = integer ? sqlite3_value_int64(v) : 0;
    if (integer) min = std::min(min, i), max = std::max(max, i);
    if (!integer || i != rows) is_id = false;
    // A set id: each value is the index of the row where it first appears.
    if (!integer || !(i == rows || (rows > 0 && prev && i == prev_int))) is_set_id = false;
    if (prev && CompareValues(prev, v) > 0) non_decreasing = false;
    sqlite3_value_free(prev);
    prev = sqlite3_value_dup(v);
    prev_int = i;
    ++rows;
  }
  ColumnScan() = default;
  ColumnScan(const ColumnScan&) = delete;
  ColumnScan& operator=(const ColumnScan&) = delete;
  ~ColumnScan() { sqlite3_value_free(prev); }

  static int CompareValues(sqlite3_value* a, sqlite3_value* b) {
    const int ta = sqlite3_value_type(a), tb = sqlite3_value_type(b);
    if (ta == SQLITE_TEXT && tb == SQLITE_TEXT) {
      return std::string(reinterpret_cast<const char*>(sqlite3_value_text(a)))
          .compare(reinterpret_cast<const char*>(sqlite3_value_text(b)));
    }
    const double x = sqlite3_value_double(a), y = sqlite3_value_double(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }

  ColumnInfo Info(const std::string& name) const {
    ColumnInfo c{name, "uint32", has_null, 3};
    if (rows == 0) return c;
    if (has_text) {
      c.type = "string";
    } else if (has_real) {
      c.type = "double";
    } else if (is_id && !has_null) {
      c.type = "id";
    } else if (min >= 0 && max <= std::numeric_limits<uint32_t>::max()) {
      c.type = "uint32";
    } else if (min >= std::numeric_limits<int32_t>::min() &&
               max <= std::numeric_limits<int32_t>::max()) {
      c.type = "int32";
    } else if (min <= max) {
      c.type = "int64";
    }
    if (has_null) return c;
    if (c.type == "id") {
      c.sorted = 0;
    } else if (is_set_id && c.type == "uint32") {
      c.sorted = 1;
    } else if (non_decreasing) {
      c.sorted = 2;
    }
    return c;
  }
};

bool IsSqliteTable(sqlite3* db, const std::string& name) {
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", -1, &s,
                     nullptr);
  sqlite3_bind_text(s, 1, name.c_str(), -1, SQLITE_TRANSIENT);
  const bool found = sqlite3_step(s) == SQLITE_ROW;
  sqlite3_finalize(s);
  return found;
}

// The columns of PERFETTO TABLE `name`, or an error message.
bool Describe(sqlite3* db, const std::string& name, std::vector<ColumnInfo>* out,
              std::string* err) {
  if (!IsSqliteTable(db, name)) {
    *err = "Perfetto table '" + name + "' not found.";
    return false;
  }
  std::string quoted = "\"";
  for (char c : name) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  quoted += "\"";
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, ("SELECT * FROM " + quoted + " ORDER BY rowid").c_str(), -1, &s,
                         nullptr) != SQLITE_OK) {
    *err = sqlite3_errmsg(db);
    sqlite3_finalize(s);
    return false;
  }
  const int n = sqlite3_column_count(s);
  std::vector<ColumnScan> scans(static_cast<size_t>(n));
  while (sqlite3_step(s) == SQLITE_ROW)
    for (int i = 0; i < n; ++i) scans[static_cast<size_t>(i)].Add(sqlite3_column_value(s, i));
  for (int i = 0; i < n; ++i)
    out->push_back(scans[static_cast<size_t>(i)].Info(sqlite3_column_name(s, i)));
  sqlite3_finalize(s);
  out->push_back({"_auto_id", "id", false, 0});
  return true;
}

struct VTab : sqlite3_vtab {
  sqlite3* db = nullptr;
};

struct Cursor : sqlite3_vtab_cursor {
  std::string table;
  std::vector<ColumnInfo> rows;
  size_t row = 0;
};

constexpr int kArgColumn = 6;

int Connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char**) {
  if (sqlite3_declare_vtab(db,
                           "CREATE TABLE x(id, table_name, name, col_type, nullable, sorted, "
                           "arg HIDDEN)") != SQLITE_OK)
    return SQLITE_ERROR;
  auto* v = new VTab();
  v->db = db;
  *out = v;
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* v) {
  delete static_cast<VTab*>(v);
  return SQLITE_OK;
}

int BestIndex(sqlite3_vtab*, sqlite3_index_info* info) {
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.usable && c.iColumn == kArgColumn && c.op == SQLITE_INDEX_CONSTRAINT_EQ) {
      info->aConstraintUsage[i].argvIndex = 1;
      info->aConstraintUsage[i].omit = 1;
      info->estimatedCost = 10;
      return SQLITE_OK;
    }
  }
  return SQLITE_CONSTRAINT;
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
  const unsigned char* name = argc > 0 ? sqlite3_value_text(argv[0]) : nullptr;
  c->table = name ? reinterpret_cast<const char*>(name) : "";
  std::string err;
  if (!Describe(static_cast<VTab*>(cur->pVtab)->db, c->table, &c->rows, &err)) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf("%s", err.c_str());
    return SQLITE_ERROR;
  }
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
  auto* c = static_cast<Cursor*>(cur);
  const ColumnInfo& r = c->rows[c->row];
  switch (col) {
    case 0:
      return sqlite3_result_int64(ctx, static_cast<int64_t>(c->row)), SQLITE_OK;
    case 1:
      return sqlite3_result_text(ctx, c->table.c_str(), -1, SQLITE_TRANSIENT), SQLITE_OK;
    case 2:
      return sqlite3_result_text(ctx, r.name.c_str(), -1, SQLITE_TRANSIENT), SQLITE_OK;
    case 3:
      return sqlite3_result_text(ctx, r.type.c_str(), -1, SQLITE_TRANSIENT), SQLITE_OK;
    case 4:
      return sqlite3_result_int(ctx, r.nullable ? 1 : 0), SQLITE_OK;
    case 5:
      return sqlite3_result_int(ctx, r.sorted), SQLITE_OK;
    default:
      return sqlite3_result_text(ctx, c->table.c_str(), -1, SQLITE_TRANSIENT), SQLITE_OK;
  }
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

Status RegisterTableInfo(sqlite3* db) {
  if (sqlite3_create_module_v2(db, "perfetto_table_info", &kModule, nullptr, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register perfetto_table_info");
  return Status::Ok();
}

}  // namespace fathom::psql
