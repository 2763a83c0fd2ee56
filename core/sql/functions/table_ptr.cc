#include "core/sql/functions/table_ptr.h"

#include <bit>
#include <memory>

namespace fathom {
namespace {

constexpr const char* kPtrType = kPtrTableType;
// Generic columns c0..c63, then the hidden argument.
constexpr int kColumns = 64;
constexpr int kPtrColumn = kColumns;
constexpr const char* kBindName = "__intrinsic_table_ptr_bind";

// What a pointer value holds: shared, so a table scan keeps the rows alive
// without copying them, whatever SQLite does with the value afterwards.
struct Held {
  std::shared_ptr<const PtrTable> table;
};

void DeleteHeld(void* p) { delete static_cast<Held*>(p); }

const Held* HeldOf(sqlite3_value* v) {
  return static_cast<const Held*>(sqlite3_value_pointer(v, kPtrType));
}

// Outside a table scan (a bind SQLite did not hand to the table) it is true.
void BindFn(sqlite3_context* ctx, int, sqlite3_value**) { sqlite3_result_int(ctx, 1); }

struct VTab : sqlite3_vtab {};

struct Cursor : sqlite3_vtab_cursor {
  std::shared_ptr<const PtrTable> table;
  std::vector<int> source;  // per generic column: the table's column, or -1
  size_t row = 0;
};

int Connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char**) {
  std::string decl = "CREATE TABLE x(";
  for (int i = 0; i < kColumns; ++i) decl += "c" + std::to_string(i) + ", ";
  decl += "ptr HIDDEN)";
  if (sqlite3_declare_vtab(db, decl.c_str()) != SQLITE_OK) return SQLITE_ERROR;
  *out = new VTab();
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* v) {
  delete static_cast<VTab*>(v);
  return SQLITE_OK;
}

// argv[0] is the pointer; each bind constraint adds its name, and idxStr
// lists the generic column each name is for.
int BestIndex(sqlite3_vtab*, sqlite3_index_info* info) {
  bool have_ptr = false;
  int next_arg = 2;
  std::string cols;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable) continue;
    if (c.iColumn == kPtrColumn && c.op == SQLITE_INDEX_CONSTRAINT_EQ) {
      info->aConstraintUsage[i].argvIndex = 1;
      info->aConstraintUsage[i].omit = 1;
      have_ptr = true;
    } else if (c.op == SQLITE_INDEX_CONSTRAINT_FUNCTION && c.iColumn >= 0 && c.iColumn < kColumns) {
      info->aConstraintUsage[i].argvIndex = next_arg++;
      info->aConstraintUsage[i].omit = 1;
      cols += std::to_string(c.iColumn) + ",";
    }
  }
  if (!have_ptr) return SQLITE_CONSTRAINT;
  info->idxStr = sqlite3_mprintf("%s", cols.c_str());
  info->needToFreeIdxStr = 1;
  info->estimatedCost = 1000;
  return SQLITE_OK;
}

int FindFunction(sqlite3_vtab*, int argc, const char* name,
                 void (**fn)(sqlite3_context*, int, sqlite3_value**), void**) {
  if (argc != 2 || sqlite3_stricmp(name, kBindName) != 0) return 0;
  *fn = BindFn;
  return SQLITE_INDEX_CONSTRAINT_FUNCTION;
}

int Open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  *out = new Cursor();
  return SQLITE_OK;
}

int Close(sqlite3_vtab_cursor* c) {
  delete static_cast<Cursor*>(c);
  return SQLITE_OK;
}

int Fail(sqlite3_vtab_cursor* cur, const std::string& msg) {
  sqlite3_free(cur->pVtab->zErrMsg);
  cur->pVtab->zErrMsg = sqlite3_mprintf("%s", msg.c_str());
  return SQLITE_ERROR;
}

int Filter(sqlite3_vtab_cursor* cur, int, const char* idx, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  c->row = 0;
  c->table.reset();
  const Held* held = argc >= 1 ? HeldOf(argv[0]) : nullptr;
  if (!held) return Fail(cur, "__intrinsic_table_ptr: the argument is not a table pointer");
  c->table = held->table;
  const PtrTable* t = c->table.get();
  c->source.assign(kColumns, -1);
  std::string list = idx ? idx : "";
  int arg = 1;
  for (size_t b = 0; b < list.size() && arg < argc; ++arg) {
    const size_t comma = list.find(',', b);
    const int col = std::stoi(list.substr(b, comma - b));
    b = comma + 1;
    const char* want = reinterpret_cast<const char*>(sqlite3_value_text(argv[arg]));
    for (size_t k = 0; want && k < t->names.size(); ++k)
      if (t->names[k] == want) c->source[static_cast<size_t>(col)] = static_cast<int>(k);
  }
  return SQLITE_OK;
}

int Next(sqlite3_vtab_cursor* cur) {
  ++static_cast<Cursor*>(cur)->row;
  return SQLITE_OK;
}

int Eof(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  return !c->table || c->row >= c->table->RowCount();
}

int Column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  const int src = col < kColumns ? c->source[static_cast<size_t>(col)] : -1;
  if (src < 0) {
    sqlite3_result_null(ctx);
  } else if (!c->table->columns.empty()) {
    c->table->columns[static_cast<size_t>(src)].Result(ctx, c->row);
  } else {
    c->table->rows[c->row][static_cast<size_t>(src)].Result(ctx);
  }
  return SQLITE_OK;
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
  m.xFindFunction = FindFunction;
  return m;
}

const sqlite3_module kModule = MakeModule();

}  // namespace

SqlCell SqlCell::Of(sqlite3_value* v) {
  SqlCell c;
  c.type = sqlite3_value_type(v);
  if (c.type == SQLITE_INTEGER) c.i = sqlite3_value_int64(v);
  if (c.type == SQLITE_FLOAT) c.d = sqlite3_value_double(v);
  if (c.type == SQLITE_TEXT || c.type == SQLITE_BLOB) {
    const void* p = c.type == SQLITE_TEXT ? static_cast<const void*>(sqlite3_value_text(v))
                                          : sqlite3_value_blob(v);
    if (p) c.s.assign(static_cast<const char*>(p), static_cast<size_t>(sqlite3_value_bytes(v)));
  }
  return c;
}

void SqlCell::Result(sqlite3_context* ctx) const {
  switch (type) {
    case SQLITE_INTEGER:
      return sqlite3_result_int64(ctx, i);
    case SQLITE_FLOAT:
      return sqlite3_result_double(ctx, d);
    case SQLITE_TEXT:
      return sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    case SQLITE_BLOB:
      return sqlite3_result_blob(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    default:
      return sqlite3_result_null(ctx);
  }
}

bool SqlCell::operator<(const SqlCell& o) const {
  // The order of std::tie(type, i, d, s), without touching the strings of
  // numbers (partition keys are mostly integers, compared millions of times).
  if (type != o.type) return type < o.type;
  if (i != o.i) return i < o.i;
  if (d < o.d || o.d < d) return d < o.d;
  return (type == SQLITE_TEXT || type == SQLITE_BLOB) && s < o.s;
}

void PtrColumn::MarkType(int type) {
  if (types_.empty() && type == SQLITE_INTEGER) return;
  if (types_.empty()) types_.assign(values_.size(), SQLITE_INTEGER);
  types_.push_back(static_cast<uint8_t>(type));
}

void PtrColumn::AppendInt(int64_t v) {
  if (cells_mode_) return cells_.push_back(SqlCell::Int(v));
  MarkType(SQLITE_INTEGER);
  values_.push_back(v);
}

void PtrColumn::AppendInts(const int64_t* v, size_t n) {
  if (cells_mode_ || !types_.empty()) {
    for (size_t i = 0; i < n; ++i) AppendInt(v[i]);
    return;
  }
  values_.insert(values_.end(), v, v + n);
}

void PtrColumn::AppendDouble(double d) {
  if (cells_mode_) {
    SqlCell c;
    c.type = SQLITE_FLOAT;
    c.d = d;
    return cells_.push_back(std::move(c));
  }
  MarkType(SQLITE_FLOAT);
  values_.push_back(std::bit_cast<int64_t>(d));
}

void PtrColumn::AppendNull() {
  if (cells_mode_) return cells_.push_back(SqlCell());
  MarkType(SQLITE_NULL);
  values_.push_back(0);
}

void PtrColumn::Append(const SqlCell& c) {
  switch (c.type) {
    case SQLITE_INTEGER:
      return AppendInt(c.i);
    case SQLITE_FLOAT:
      return AppendDouble(c.d);
    case SQLITE_NULL:
      return AppendNull();
    default:
      ToCells();
      cells_.push_back(c);
  }
}

int PtrColumn::TypeAt(size_t row) const {
  if (cells_mode_) return cells_[row].type;
  return types_.empty() ? SQLITE_INTEGER : types_[row];
}

SqlCell PtrColumn::At(size_t row) const {
  if (cells_mode_) return cells_[row];
  SqlCell c;
  c.type = TypeAt(row);
  if (c.type == SQLITE_INTEGER) c.i = values_[row];
  if (c.type == SQLITE_FLOAT) c.d = std::bit_cast<double>(values_[row]);
  return c;
}

void PtrColumn::Result(sqlite3_context* ctx, size_t row) const {
  if (cells_mode_) return cells_[row].Result(ctx);
  switch (TypeAt(row)) {
    case SQLITE_INTEGER:
      return sqlite3_result_int64(ctx, values_[row]);
    case SQLITE_FLOAT:
      return sqlite3_result_double(ctx, std::bit_cast<double>(values_[row]));
    default:
      return sqlite3_result_null(ctx);
  }
}

void PtrColumn::ToCells() {
  if (cells_mode_) return;
  cells_.reserve(values_.size());
  for (size_t r = 0; r < values_.size(); ++r) cells_.push_back(At(r));
  values_ = {};
  types_ = {};
  cells_mode_ = true;
}

const PtrTable* PtrTableOf(sqlite3_value* v) {
  const Held* held = HeldOf(v);
  return held ? held->table.get() : nullptr;
}

void ResultPtrTable(sqlite3_context* ctx, std::unique_ptr<PtrTable> table) {
  sqlite3_result_pointer(ctx, new Held{std::move(table)}, kPtrType, DeleteHeld);
}

int BindPtrTable(sqlite3_stmt* stmt, int param, const PtrTable* table) {
  // Not owned: the caller keeps `table` alive while the statement runs.
  auto* held = new Held{std::shared_ptr<const PtrTable>(table, [](const PtrTable*) {})};
  return sqlite3_bind_pointer(stmt, param, held, kPtrType, DeleteHeld);
}

Status RegisterTablePtr(sqlite3* db) {
  if (sqlite3_create_module_v2(db, "__intrinsic_table_ptr", &kModule, nullptr, nullptr) !=
      SQLITE_OK)
    return ErrorStatus(std::string("cannot register __intrinsic_table_ptr: ") + sqlite3_errmsg(db));
  if (sqlite3_create_function_v2(db, kBindName, 2, SQLITE_UTF8, nullptr, BindFn, nullptr, nullptr,
                                 nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register __intrinsic_table_ptr_bind");
  return Status::Ok();
}

}  // namespace fathom
