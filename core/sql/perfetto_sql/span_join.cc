#include "core/sql/perfetto_sql/span_join.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <string>
#include <vector>

#include "core/sql/perfetto_sql/span_join_merge.h"

namespace fathom::psql {
namespace {

bool SameName(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string Quote(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// One side of the join as the CREATE statement names it.
struct Side {
  std::string table;
  std::string partition;          // "" when not partitioned
  std::vector<std::string> cols;  // its columns other than ts, dur and the partition
};

// A copied SQLite value (the sides are read once per scan): 16 bytes, the
// bytes of a text or blob in the side's string pool. A scan reads every cell
// of a million-row side once per output row, so their size is its cache
// traffic.
struct Cell {
  union {
    int64_t i = 0;
    double d;
    uint32_t str;  // index into SideData::strings
  };
  int type = SQLITE_NULL;
};

// "name [PARTITIONED col]" -> side; an error in upstream's words otherwise.
bool ParseSide(const std::string& arg, Side* side, std::string* error) {
  std::vector<std::string> words;
  std::string cur;
  for (char c : arg) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!cur.empty()) words.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) words.push_back(cur);
  auto is_name = [](const std::string& w) {
    return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
    });
  };
  const bool plain = words.size() == 1 && is_name(words[0]);
  const bool partitioned = words.size() == 3 && is_name(words[0]) &&
                           SameName(words[1], "PARTITIONED") && is_name(words[2]);
  if (!plain && !partitioned) {
    *error = "SPAN_JOIN: Invalid token";
    return false;
  }
  side->table = words[0];
  side->partition = partitioned ? words[2] : "";
  return true;
}

// Fills side->cols from the table's columns, checking ts, dur and the
// partition are there.
bool ReadColumns(sqlite3* db, Side* side, std::string* error) {
  sqlite3_stmt* s = nullptr;
  const std::string sql = "SELECT * FROM " + Quote(side->table) + " LIMIT 0";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
    sqlite3_finalize(s);
    *error = "Unknown table or view name '" + side->table + "'";
    return false;
  }
  bool ts = false, dur = false, part = side->partition.empty();
  for (int i = 0; i < sqlite3_column_count(s); ++i) {
    const std::string name = sqlite3_column_name(s, i);
    if (SameName(name, "ts")) {
      ts = true;
    } else if (SameName(name, "dur")) {
      dur = true;
    } else if (!side->partition.empty() && SameName(name, side->partition)) {
      part = true;
    } else {
      side->cols.push_back(name);
    }
  }
  sqlite3_finalize(s);
  if (!ts) *error = "SPAN_JOIN: Missing ts column in table " + side->table;
  if (ts && !dur) *error = "SPAN_JOIN: Missing dur column in table " + side->table;
  if (ts && dur && !part)
    *error = "SPAN_JOIN: Missing partition column " + side->partition + " in table " + side->table;
  return ts && dur && part;
}

struct VTab : sqlite3_vtab {
  sqlite3* db = nullptr;
  SpanJoinKind kind = SpanJoinKind::kInner;
  Side left, right;
  std::string partition;  // the output's partition column, "" for none
  int left_first = 0;     // output column of the left side's first own column
  int right_first = 0;
};

// The rows of one side read for a scan, with their spans.
struct SideData {
  std::vector<SideSpan> spans;
  std::vector<Cell> cells;  // row-major, Side::cols.size() per row, in spans' order
  std::vector<std::string> strings;
};

Status ReadSide(sqlite3* db, const Side& side, SideData* out) {
  std::string sql = "SELECT ts, dur";
  if (!side.partition.empty()) sql += ", " + Quote(side.partition);
  for (const std::string& c : side.cols) sql += ", " + Quote(c);
  // Sorted here rather than by SQLite: a stable sort of the spans is several
  // times faster than SQLite's sorter on large tables.
  sql += " FROM " + Quote(side.table);
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
    std::string msg = sqlite3_errmsg(db);
    sqlite3_finalize(s);
    return ErrorStatus("SPAN_JOIN: " + msg);
  }
  const int first = side.partition.empty() ? 2 : 3;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    // A span without a partition value cannot pair with anything.
    if (first == 3 && sqlite3_column_type(s, 2) == SQLITE_NULL) continue;
    SideSpan span;
    span.ts = sqlite3_column_int64(s, 0);
    span.dur = sqlite3_column_int64(s, 1);
    span.partition = first == 3 ? sqlite3_column_int64(s, 2) : 0;
    span.row = static_cast<uint32_t>(out->spans.size());
    out->spans.push_back(span);
    for (size_t c = 0; c < side.cols.size(); ++c) {
      sqlite3_value* v = sqlite3_column_value(s, first + static_cast<int>(c));
      Cell cell;
      cell.type = sqlite3_value_type(v);
      if (cell.type == SQLITE_INTEGER) cell.i = sqlite3_value_int64(v);
      if (cell.type == SQLITE_FLOAT) cell.d = sqlite3_value_double(v);
      if (cell.type == SQLITE_TEXT || cell.type == SQLITE_BLOB) {
        const void* p = cell.type == SQLITE_TEXT ? static_cast<const void*>(sqlite3_value_text(v))
                                                 : sqlite3_value_blob(v);
        cell.str = static_cast<uint32_t>(out->strings.size());
        out->strings.emplace_back(static_cast<const char*>(p),
                                  static_cast<size_t>(sqlite3_value_bytes(v)));
      }
      out->cells.push_back(cell);
    }
  }
  std::string msg = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db);
  sqlite3_finalize(s);
  if (!msg.empty()) return ErrorStatus("SPAN_JOIN: " + msg);
  std::stable_sort(out->spans.begin(), out->spans.end(), [](const SideSpan& a, const SideSpan& b) {
    return a.partition != b.partition ? a.partition < b.partition : a.ts < b.ts;
  });
  // The joined rows come out in the spans' order: lay the cells out the
  // same way, so that reading them is a walk instead of a jump per row.
  const size_t width = side.cols.size();
  std::vector<Cell> ordered(out->cells.size());
  for (size_t k = 0; k < out->spans.size(); ++k) {
    std::copy_n(out->cells.begin() + static_cast<ptrdiff_t>(out->spans[k].row * width), width,
                ordered.begin() + static_cast<ptrdiff_t>(k * width));
    out->spans[k].row = static_cast<uint32_t>(k);
  }
  out->cells = std::move(ordered);
  return Status::Ok();
}

struct Cursor : sqlite3_vtab_cursor {
  bool computed = false;  // the join is computed once per cursor, then filtered
  SideData left, right;
  std::vector<JoinedSpan> rows;
  size_t next = 0, end = 0;  // the rows this filter serves
};

int Create(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
           char** err) {
  auto tab = std::make_unique<VTab>();
  tab->db = db;
  tab->kind = *static_cast<const SpanJoinKind*>(aux);
  std::string error;
  if (argc != 5) error = "SPAN_JOIN: expected exactly two arguments";
  if (error.empty() && ParseSide(argv[3], &tab->left, &error) &&
      ParseSide(argv[4], &tab->right, &error) && ReadColumns(db, &tab->left, &error) &&
      ReadColumns(db, &tab->right, &error)) {
    const Side& l = tab->left;
    const Side& r = tab->right;
    if (!l.partition.empty() && !r.partition.empty() && !SameName(l.partition, r.partition))
      error = "SPAN_JOIN: mismatching partitions between the two tables; (partition " +
              l.partition + " in table " + l.table + ", partition " + r.partition + " in table " +
              r.table + ")";
    for (const std::string& c : l.cols)
      for (const std::string& d : r.cols)
        if (error.empty() && SameName(c, d))
          error =
              "SPAN_JOIN: column " + c + " present in both tables " + l.table + " and " + r.table;
  }
  if (!error.empty()) {
    *err = sqlite3_mprintf("%s", error.c_str());
    return SQLITE_ERROR;
  }
  tab->partition = !tab->left.partition.empty() ? tab->left.partition : tab->right.partition;
  std::string decl = "CREATE TABLE x(ts BIGINT, dur BIGINT";
  if (!tab->partition.empty()) decl += ", " + Quote(tab->partition) + " BIGINT";
  tab->left_first = tab->partition.empty() ? 2 : 3;
  tab->right_first = tab->left_first + static_cast<int>(tab->left.cols.size());
  for (const std::string& c : tab->left.cols) decl += ", " + Quote(c);
  for (const std::string& c : tab->right.cols) decl += ", " + Quote(c);
  if (sqlite3_declare_vtab(db, (decl + ")").c_str()) != SQLITE_OK) {
    *err = sqlite3_mprintf("SPAN_JOIN: %s", sqlite3_errmsg(db));
    return SQLITE_ERROR;
  }
  *out = tab.release();
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* v) {
  delete static_cast<VTab*>(v);
  return SQLITE_OK;
}

// An equality on the partition column is served from the computed rows;
// every other constraint SQLite checks itself.
int BestIndex(sqlite3_vtab* v, sqlite3_index_info* info) {
  auto* tab = static_cast<VTab*>(v);
  info->idxNum = 0;
  info->estimatedCost = 1e6;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable || tab->partition.empty() || c.iColumn != 2 || c.op != SQLITE_INDEX_CONSTRAINT_EQ)
      continue;
    info->idxNum = 1;
    info->aConstraintUsage[i].argvIndex = 1;
    info->aConstraintUsage[i].omit = 1;
    info->estimatedCost = 1e3;
    break;
  }
  return SQLITE_OK;
}

int Open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  *out = new Cursor();
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* c) {
  delete static_cast<Cursor*>(c);
  return SQLITE_OK;
}

int Filter(sqlite3_vtab_cursor* cur, int idx, const char*, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  auto* tab = static_cast<VTab*>(cur->pVtab);
  if (!c->computed) {
    c->left = SideData();
    c->right = SideData();
    Status st = ReadSide(tab->db, tab->left, &c->left);
    if (st.ok()) st = ReadSide(tab->db, tab->right, &c->right);
    if (!st.ok()) {
      sqlite3_free(tab->zErrMsg);
      tab->zErrMsg = sqlite3_mprintf("%s", st.message().c_str());
      return SQLITE_ERROR;
    }
    c->rows = MergeSpans(c->left.spans, !tab->left.partition.empty(), c->right.spans,
                         !tab->right.partition.empty(), tab->kind);
    c->computed = true;
  }
  c->next = 0;
  c->end = c->rows.size();
  if (idx == 1 && argc == 1) {
    if (sqlite3_value_numeric_type(argv[0]) != SQLITE_INTEGER) {
      c->next = c->end;  // no integer partition equals it
      return SQLITE_OK;
    }
    const int64_t p = sqlite3_value_int64(argv[0]);
    auto lo = std::lower_bound(c->rows.begin(), c->rows.end(), p,
                               [](const JoinedSpan& r, int64_t v) { return r.partition < v; });
    auto hi = std::upper_bound(c->rows.begin(), c->rows.end(), p,
                               [](int64_t v, const JoinedSpan& r) { return v < r.partition; });
    c->next = static_cast<size_t>(lo - c->rows.begin());
    c->end = static_cast<size_t>(hi - c->rows.begin());
  }
  return SQLITE_OK;
}

int Next(sqlite3_vtab_cursor* cur) {
  ++static_cast<Cursor*>(cur)->next;
  return SQLITE_OK;
}

int Eof(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  return c->next >= c->end;
}

void ResultCell(sqlite3_context* ctx, const Cell& cell, const std::vector<std::string>& strings) {
  switch (cell.type) {
    case SQLITE_INTEGER:
      return sqlite3_result_int64(ctx, cell.i);
    case SQLITE_FLOAT:
      return sqlite3_result_double(ctx, cell.d);
    case SQLITE_TEXT:
      return sqlite3_result_text(ctx, strings[cell.str].data(),
                                 static_cast<int>(strings[cell.str].size()), SQLITE_TRANSIENT);
    case SQLITE_BLOB:
      return sqlite3_result_blob(ctx, strings[cell.str].data(),
                                 static_cast<int>(strings[cell.str].size()), SQLITE_TRANSIENT);
    default:
      return sqlite3_result_null(ctx);
  }
}

int Column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  auto* tab = static_cast<VTab*>(cur->pVtab);
  const JoinedSpan& r = c->rows[c->next];
  if (col == 0) return sqlite3_result_int64(ctx, r.ts), SQLITE_OK;
  if (col == 1) return sqlite3_result_int64(ctx, r.dur), SQLITE_OK;
  if (col < tab->left_first) return sqlite3_result_int64(ctx, r.partition), SQLITE_OK;
  const bool left = col < tab->right_first;
  const int64_t row = left ? r.left_row : r.right_row;
  if (row < 0) return sqlite3_result_null(ctx), SQLITE_OK;
  const size_t width = (left ? tab->left : tab->right).cols.size();
  const size_t k = static_cast<size_t>(col - (left ? tab->left_first : tab->right_first));
  const SideData& side = left ? c->left : c->right;
  ResultCell(ctx, side.cells[static_cast<size_t>(row) * width + k], side.strings);
  return SQLITE_OK;
}

int Rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  *out = static_cast<sqlite3_int64>(static_cast<Cursor*>(cur)->next);
  return SQLITE_OK;
}

sqlite3_module MakeModule() {
  sqlite3_module m{};
  m.xCreate = Create;
  m.xConnect = Create;
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
const SpanJoinKind kKinds[] = {SpanJoinKind::kInner, SpanJoinKind::kLeft, SpanJoinKind::kOuter};

}  // namespace

Status RegisterSpanJoin(sqlite3* db) {
  const char* names[] = {"span_join", "span_left_join", "span_outer_join"};
  for (int i = 0; i < 3; ++i) {
    if (sqlite3_create_module_v2(db, names[i], &kModule, const_cast<SpanJoinKind*>(&kKinds[i]),
                                 nullptr) != SQLITE_OK)
      return ErrorStatus(std::string("cannot register ") + names[i] + ": " + sqlite3_errmsg(db));
  }
  return Status::Ok();
}

}  // namespace fathom::psql
