#include "core/sql/table_vtab.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/sql/table_eq_index.h"

namespace fathom {
namespace {

struct VTab : sqlite3_vtab {
  TraceStorage* storage = nullptr;  // the trace's tables; null for run-time tables
  const StringPool* strings;        // the pool the table's string ids are in
  Table* table;
  std::shared_ptr<const void> keep_alive;    // a run-time table's rows
  std::shared_ptr<const void> keep_strings;  // and its strings
  void* registry = nullptr;                  // the RuntimeTableRegistry it is in
  int rowid_base = 0;                        // 1 for run-time tables, as SQLite's own
  std::vector<const ColumnBase*> columns;    // visible columns, in SQL order
  std::shared_ptr<EqIndexCache> indexes;     // shared by the table's connections
};

enum Op : int { kEq, kLt, kLe, kGt, kGe, kIsNull, kIsNotNull, kGlob };

struct Constraint {
  int column;
  Op op;
};

struct Filter {
  const ColumnBase* column;
  Op op;
  bool is_double;
  int64_t i;
  double d;
  StringId s;
  // kGlob: the pattern, and whether each string seen so far matches it. A
  // column holds far fewer distinct strings than rows (slice names), so the
  // pattern runs once per string, not once per row as SQLite's GLOB would.
  std::string pattern;
  const StringPool* strings = nullptr;
  mutable std::unordered_map<StringId, bool> matches;
  bool Globs(StringId id) const;
};

bool Filter::Globs(StringId id) const {
  auto [it, added] = matches.try_emplace(id, false);
  if (added)
    it->second = sqlite3_strglob(pattern.c_str(), std::string(strings->Get(id)).c_str()) == 0;
  return it->second;
}

struct Cursor : sqlite3_vtab_cursor {
  uint32_t row = 0;
  uint32_t end = 0;
  std::vector<Filter> filters;
  bool empty = false;
  // With an equality index: the rows are index->rows()[pos, pos_end) that
  // fall in [lo, hi) (the sorted columns' range); row is the current one.
  const EqIndex* index = nullptr;
  size_t pos = 0, pos_end = 0;
  uint32_t lo = 0, hi = 0;
};

const char* SqlTypeName(SqlType t) {
  switch (t) {
    case SqlType::kInt:
      return "BIGINT";
    case SqlType::kDouble:
      return "DOUBLE";
    case SqlType::kString:
      return "TEXT";
  }
  return "";
}

int MapOp(unsigned char op, Op* out) {
  switch (op) {
    case SQLITE_INDEX_CONSTRAINT_EQ:
      *out = kEq;
      return 1;
    case SQLITE_INDEX_CONSTRAINT_LT:
      *out = kLt;
      return 1;
    case SQLITE_INDEX_CONSTRAINT_LE:
      *out = kLe;
      return 1;
    case SQLITE_INDEX_CONSTRAINT_GT:
      *out = kGt;
      return 1;
    case SQLITE_INDEX_CONSTRAINT_GE:
      *out = kGe;
      return 1;
    case SQLITE_INDEX_CONSTRAINT_ISNULL:
      *out = kIsNull;
      return 1;
    case SQLITE_INDEX_CONSTRAINT_ISNOTNULL:
      *out = kIsNotNull;
      return 1;
    case SQLITE_INDEX_CONSTRAINT_GLOB:
      *out = kGlob;
      return 1;
    default:
      return 0;
  }
}

int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  auto* src = static_cast<VTab*>(aux);
  std::string decl = "CREATE TABLE x(";
  for (size_t i = 0; i < src->columns.size(); ++i) {
    if (i) decl += ", ";
    decl += "\"" + src->columns[i]->name() + "\" " + SqlTypeName(src->columns[i]->type());
  }
  decl += ")";
  int rc = sqlite3_declare_vtab(db, decl.c_str());
  if (rc != SQLITE_OK) return rc;
  auto* v = new VTab();
  v->storage = src->storage;
  v->strings = src->strings;
  v->table = src->table;
  v->columns = src->columns;
  v->indexes = src->indexes;
  *out = v;
  return SQLITE_OK;
}

int Disconnect(sqlite3_vtab* vtab) {
  delete static_cast<VTab*>(vtab);
  return SQLITE_OK;
}

// BestIndex's idxNum flags: the scan reads an arg set column; the scan
// gives its rows in the order of the column numbered idxNum >> kOrderShift
// (ORDER BY or GROUP BY on it), through that column's equality index.
constexpr int kReadsArgSetIds = 1;
constexpr int kOrderedByIndex = 2;
constexpr int kOrderShift = 8;

// Whether the query reads an arg set column (*arg_set_id): its ids are only
// final once the args table has been built (ArgsTable::EnsureMaterialized).
bool UsesArgSetColumn(const VTab* v, sqlite3_uint64 col_used) {
  static constexpr std::string_view kSuffix = "arg_set_id";
  for (size_t i = 0; i < v->columns.size(); ++i) {
    if (!(col_used & (sqlite3_uint64{1} << std::min<size_t>(i, 63)))) continue;
    std::string_view name = v->columns[i]->name();
    if (name.size() >= kSuffix.size() && name.substr(name.size() - kSuffix.size()) == kSuffix)
      return true;
  }
  return false;
}

// Whether ORDER BY `col` can be served from its equality index: integer
// values (a string index is by string id, not text) and no NULL, which the
// index leaves out and SQLite would put first.
bool OrderableByIndex(const ColumnBase* col) {
  return col->type() == SqlType::kInt && !(col->flags() & kNullable) && EqIndex::Supports(col);
}

int BestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  auto* v = static_cast<VTab*>(vtab);
  v->table->PrepareForRead();  // lazily built rows (args) count too
  // Arg set ids are final once the args table is built; that happens when a
  // scan that reads them starts (FilterFn), not here: preparing a statement
  // (a view's creation, a plan never run) must not build it. A run-time
  // table's ids were read from the trace's tables, so final already.
  info->idxNum = v->storage && UsesArgSetColumn(v, info->colUsed) ? kReadsArgSetIds : 0;
  double rows = std::max<double>(1, v->table->row_count());
  // SQLite weighs plans by `cost`, the rows the scan visits, and by `out`,
  // the rows it returns. A scan narrows by sorted columns and by at most one
  // equality index (the narrowest, MaybeUseIndex), then visits every row
  // that is left: filters beyond those make fewer rows, not a cheaper scan.
  // Counting each equality as cutting the visit made `track_id = ? AND name
  // = ?` look almost free per track, and the frame modules' joins ran from
  // every thread track instead of from the few slices of one name.
  double cost = rows, out = rows, narrowest_eq = 1;
  std::string idx;
  int argv = 0;
  bool has_eq = false, narrowed = false;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    Op op;
    if (!c.usable || c.iColumn < 0 || !MapOp(c.op, &op)) continue;
    const ColumnBase* col = v->columns[c.iColumn];
    // GLOB on a stored string column only (the scan tests it; SQLite still
    // does too, as for every constraint here).
    if (op == kGlob && (col->type() != SqlType::kString || col->HasComputedText())) continue;
    has_eq |= op == kEq;
    bool ranged = (col->is_id() || col->sorted()) && op != kGlob;
    narrowed |= ranged && op != kIsNull && op != kIsNotNull;
    if (op == kEq && ranged) {
      cost /= rows;
      out /= rows;
    } else if (op == kEq && EqIndex::Supports(col) && rows > 2) {
      // Repeated values: rows / (2 log2 rows), the estimate upstream's
      // planner makes. A flat tenth made `slice.track_id = ?` look like a
      // tenth of all slices, so SQLite drove thread_slice's join from every
      // slice (two lookups each) instead of from the few hundred thread
      // tracks; and plans closer to upstream's give its row order more often.
      const double kept = 1 / (2 * std::log2(rows));
      narrowest_eq = std::min(narrowest_eq, kept);
      out *= kept;
    } else if (op == kEq) {
      out /= 10;
    } else if (op == kIsNull || op == kIsNotNull) {
      out /= 2;
    } else if (ranged) {
      cost /= 4;
      out /= 4;
    } else {
      out /= 2;
    }
    if (op != kIsNull && op != kIsNotNull) info->aConstraintUsage[i].argvIndex = ++argv;
    info->aConstraintUsage[i].omit = 0;
    idx += std::to_string(c.iColumn) + ":" + std::to_string(op) + ";";
  }
  cost *= narrowest_eq;
  // Rows come back in table order (an index gives them in that order too),
  // so ascending rowid and sorted columns need no sort. Another integer
  // column without NULLs is given in order by its equality index, whose rows
  // are by (value, row): what SQLite's sort gives, at the cost of an index
  // kept for later lookups, where SQLite's sorter writes every row's values
  // out and reads them back (`GROUP BY track_id` over every slice). Not with
  // an equality filter, whose own index then serves the few rows it keeps,
  // nor with a range on a sorted column: the index would be walked whole
  // for the rows of a short time span.
  if (info->nOrderBy == 1 && !info->aOrderBy[0].desc) {
    const int i = info->aOrderBy[0].iColumn;
    if (i < 0 || v->indexes->NonDecreasing(v->columns[i], v->table->row_count())) {
      info->orderByConsumed = 1;
    } else if (!has_eq && !narrowed && OrderableByIndex(v->columns[i])) {
      info->orderByConsumed = 1;
      info->idxNum |= kOrderedByIndex | (i << kOrderShift);
    }
  }
  info->estimatedCost = std::max(1.0, cost);
  info->estimatedRows = static_cast<sqlite3_int64>(std::max(1.0, out));
  info->idxStr = sqlite3_mprintf("%s", idx.c_str());
  info->needToFreeIdxStr = 1;
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

bool PassesFilters(const Cursor* c, uint32_t row) {
  for (const Filter& f : c->filters) {
    const ColumnBase* col = f.column;
    if (f.op == kIsNull) {
      if (!col->IsNull(row)) return false;
      continue;
    }
    if (col->IsNull(row)) return false;
    if (f.op == kIsNotNull) continue;
    if (f.op == kGlob) {
      if (!f.Globs(col->GetStringId(row))) return false;
      continue;
    }
    if (col->type() == SqlType::kString) {
      if (col->GetStringId(row) != f.s) return false;  // only kEq reaches here
      continue;
    }
    int cmp;
    if (f.is_double || col->type() == SqlType::kDouble) {
      double a = col->GetDouble(row), b = f.is_double ? f.d : static_cast<double>(f.i);
      cmp = a < b ? -1 : (a > b ? 1 : 0);
    } else {
      int64_t a = col->GetInt(row);
      cmp = a < f.i ? -1 : (a > f.i ? 1 : 0);
    }
    switch (f.op) {
      case kEq:
        if (cmp != 0) return false;
        break;
      case kLt:
        if (cmp >= 0) return false;
        break;
      case kLe:
        if (cmp > 0) return false;
        break;
      case kGt:
        if (cmp <= 0) return false;
        break;
      case kGe:
        if (cmp < 0) return false;
        break;
      default:
        break;
    }
  }
  return true;
}

void SkipFiltered(Cursor* c) {
  if (!c->index) {
    while (c->row < c->end && !PassesFilters(c, c->row)) ++c->row;
    return;
  }
  const std::vector<uint32_t>& rows = c->index->rows();
  for (; c->pos < c->pos_end; ++c->pos) {
    const uint32_t r = rows[c->pos];
    if (r >= c->lo && r < c->hi && PassesFilters(c, r)) break;
  }
  c->row = c->pos < c->pos_end ? rows[c->pos] : c->end;
}

// Serves the rows through an equality index when one of the filters is an
// equality on an indexable column and its rows are fewer than the range's.
// The filters all still apply, so the rows are the scan's, in its order.
void MaybeUseIndex(VTab* v, Cursor* c) {
  constexpr uint32_t kScanIsFine = 64;
  if (c->end - c->row <= kScanIsFine) return;
  // The narrowest of the equality filters' indexes: `track_id = ? AND name =
  // ?` walks the few slices of that name, not every slice of the track.
  for (const Filter& f : c->filters) {
    if (f.op != kEq || f.is_double || !EqIndex::Supports(f.column)) continue;
    const EqIndex* index = v->indexes->Get(f.column, v->table->row_count());
    const int64_t key = f.column->type() == SqlType::kString ? static_cast<int64_t>(f.s) : f.i;
    size_t b, e;
    index->Find(key, &b, &e);
    if (e - b >= (c->index ? c->pos_end - c->pos : c->end - c->row)) continue;
    c->index = index;
    c->pos = b;
    c->pos_end = e;
    c->lo = c->row;
    c->hi = c->end;
  }
}

// Serves every row of the range in `col`'s order: all of its index.
void UseIndexInOrder(VTab* v, Cursor* c, const ColumnBase* col) {
  c->index = v->indexes->Get(col, v->table->row_count());
  c->pos = 0;
  c->pos_end = c->index->rows().size();
  c->lo = c->row;
  c->hi = c->end;
}

double dv_or(int64_t iv, double dv, bool is_double) {
  return is_double ? dv : static_cast<double>(iv);
}

// Narrows [lo, hi) on a non-decreasing column for `col op value`.
void NarrowSorted(const ColumnBase* col, Op op, bool is_double, int64_t iv, double dv, uint32_t* lo,
                  uint32_t* hi) {
  // Compare as integers when both sides are integers (ns timestamps exceed
  // double precision), else as doubles.
  bool int_cmp = !is_double && col->type() == SqlType::kInt;
  auto less_than = [&](uint32_t r) {  // value(r) < v
    return int_cmp ? col->GetInt(r) < iv : col->GetDouble(r) < dv_or(iv, dv, is_double);
  };
  auto less_equal = [&](uint32_t r) {  // value(r) <= v
    return int_cmp ? col->GetInt(r) <= iv : col->GetDouble(r) <= dv_or(iv, dv, is_double);
  };
  auto lower = [&]() {  // first row with value >= v
    uint32_t a = *lo, b = *hi;
    while (a < b) {
      uint32_t m = a + (b - a) / 2;
      if (less_than(m))
        a = m + 1;
      else
        b = m;
    }
    return a;
  };
  auto upper = [&]() {  // first row with value > v
    uint32_t a = *lo, b = *hi;
    while (a < b) {
      uint32_t m = a + (b - a) / 2;
      if (less_equal(m))
        a = m + 1;
      else
        b = m;
    }
    return a;
  };
  if (col->is_id() && !is_double) {
    // ids are the row numbers themselves.
    int64_t l = *lo, h = *hi;
    switch (op) {
      case kEq:
        l = std::max<int64_t>(l, iv);
        h = std::min<int64_t>(h, iv + 1);
        break;
      case kLt:
        h = std::min<int64_t>(h, iv);
        break;
      case kLe:
        h = std::min<int64_t>(h, iv + 1);
        break;
      case kGt:
        l = std::max<int64_t>(l, iv + 1);
        break;
      case kGe:
        l = std::max<int64_t>(l, iv);
        break;
      default:
        break;
    }
    l = std::clamp<int64_t>(l, 0, *hi);
    h = std::clamp<int64_t>(h, l, *hi);
    *lo = static_cast<uint32_t>(l);
    *hi = static_cast<uint32_t>(h);
    return;
  }
  uint32_t nl = *lo, nh = *hi;
  switch (op) {
    case kEq:
      nl = lower();
      nh = upper();
      break;
    case kLt:
      nh = lower();
      break;
    case kLe:
      nh = upper();
      break;
    case kGt:
      nl = upper();
      break;
    case kGe:
      nl = lower();
      break;
    default:
      break;
  }
  *lo = nl;
  *hi = std::max(nl, nh);
}

int FilterFn(sqlite3_vtab_cursor* cur, int idx_num, const char* idx_str, int argc,
             sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  auto* v = static_cast<VTab*>(cur->pVtab);
  if (idx_num & kReadsArgSetIds) v->storage->args.EnsureMaterialized();
  c->filters.clear();
  c->row = 0;
  c->index = nullptr;
  // Before the row count and before strings are looked up: building lazy
  // rows can intern new strings.
  v->table->PrepareForRead();
  c->end = v->table->row_count();
  int arg = 0;
  const char* p = idx_str ? idx_str : "";
  while (*p) {
    int column = atoi(p);
    p = strchr(p, ':') + 1;
    Op op = static_cast<Op>(atoi(p));
    p = strchr(p, ';') + 1;
    const ColumnBase* col = v->columns[column];
    if (op == kIsNull || op == kIsNotNull) {
      c->filters.push_back({col, op, false, 0, 0, 0});
      continue;
    }
    sqlite3_value* val = argv[arg++];
    int vt = sqlite3_value_type(val);
    if (vt == SQLITE_NULL) {  // comparisons with NULL match nothing
      c->end = 0;
      return SQLITE_OK;
    }
    if (col->type() == SqlType::kString) {
      if (op == kGlob && vt == SQLITE_TEXT) {
        Filter f{col, kGlob, false, 0, 0, 0};
        f.pattern = reinterpret_cast<const char*>(sqlite3_value_text(val));
        f.strings = v->strings;
        c->filters.push_back(std::move(f));
        continue;
      }
      if (op != kEq || vt != SQLITE_TEXT || col->HasComputedText()) continue;  // leave to SQLite
      const char* text = reinterpret_cast<const char*>(sqlite3_value_text(val));
      StringId id =
          v->strings->Find(std::string_view(text, static_cast<size_t>(sqlite3_value_bytes(val))));
      if (id == kNullStringId) {
        c->end = 0;
        return SQLITE_OK;
      }
      c->filters.push_back({col, kEq, false, 0, 0, id});
      continue;
    }
    if (vt != SQLITE_INTEGER && vt != SQLITE_FLOAT) continue;  // leave to SQLite
    bool is_double = vt == SQLITE_FLOAT;
    int64_t iv = sqlite3_value_int64(val);
    double dv = sqlite3_value_double(val);
    if (col->is_id() || col->sorted()) {
      if (is_double && col->is_id()) {
        c->filters.push_back({col, op, true, iv, dv, 0});
        continue;
      }
      NarrowSorted(col, op, is_double, iv, dv, &c->row, &c->end);
    } else {
      c->filters.push_back({col, op, is_double, iv, dv, 0});
    }
  }
  if (idx_num & kOrderedByIndex) {
    UseIndexInOrder(v, c, v->columns[static_cast<size_t>(idx_num >> kOrderShift)]);
  } else {
    MaybeUseIndex(v, c);
  }
  SkipFiltered(c);
  return SQLITE_OK;
}

int NextFn(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  if (c->index)
    ++c->pos;
  else
    ++c->row;
  SkipFiltered(c);
  return SQLITE_OK;
}

int EofFn(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  return c->row >= c->end;
}

int ColumnFn(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int i) {
  auto* c = static_cast<Cursor*>(cur);
  auto* v = static_cast<VTab*>(cur->pVtab);
  const ColumnBase* col = v->columns[i];
  uint32_t row = c->row;
  // An integer cell (most cells) is read in one virtual call, NULL included.
  if (col->type() != SqlType::kInt && col->IsNull(row)) {
    sqlite3_result_null(ctx);
    return SQLITE_OK;
  }
  switch (col->type()) {
    case SqlType::kInt: {
      int64_t value;
      if (col->IntAt(row, &value)) {
        sqlite3_result_int64(ctx, value);
      } else {
        sqlite3_result_null(ctx);
      }
      break;
    }
    case SqlType::kDouble:
      sqlite3_result_double(ctx, col->GetDouble(row));
      break;
    case SqlType::kString: {
      if (col->HasComputedText()) {
        std::string text = col->ComputedText(row, *v->strings);
        sqlite3_result_text(ctx, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
        break;
      }
      std::string_view s = v->strings->Get(col->GetStringId(row));
      sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_STATIC);
      break;
    }
  }
  return SQLITE_OK;
}

int RowidFn(sqlite3_vtab_cursor* cur, sqlite_int64* rowid) {
  *rowid = static_cast<Cursor*>(cur)->row + static_cast<VTab*>(cur->pVtab)->rowid_base;
  return SQLITE_OK;
}

sqlite3_module MakeModule() {
  sqlite3_module m{};
  m.iVersion = 1;
  m.xCreate = nullptr;  // eponymous-only: the table exists under the module's name
  m.xConnect = Connect;
  m.xBestIndex = BestIndex;
  m.xDisconnect = Disconnect;
  m.xDestroy = Disconnect;
  m.xOpen = Open;
  m.xClose = Close;
  m.xFilter = FilterFn;
  m.xNext = NextFn;
  m.xEof = EofFn;
  m.xColumn = ColumnFn;
  m.xRowid = RowidFn;
  return m;
}

const sqlite3_module kModule = MakeModule();

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// CREATE VIRTUAL TABLE name USING __fathom_runtime_table: argv[2] is the name.
int ConnectRuntime(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                   char** err) {
  auto* registry = static_cast<RuntimeTableRegistry*>(aux);
  const RuntimeTableRegistry::Entry* e = argc > 2 ? registry->Find(argv[2]) : nullptr;
  if (!e) {
    *err = sqlite3_mprintf("no run-time table %s", argc > 2 ? argv[2] : "");
    return SQLITE_ERROR;
  }
  int rc = sqlite3_declare_vtab(db, e->declaration.c_str());
  if (rc != SQLITE_OK) return rc;
  auto* v = new VTab();
  v->strings = e->strings.get();
  v->table = e->table.get();
  v->keep_alive = e->table;
  v->keep_strings = e->strings;
  v->registry = registry;
  v->rowid_base = 1;
  v->indexes = e->indexes;
  for (const ColumnBase* c : v->table->columns()) v->columns.push_back(c);
  *out = v;
  return SQLITE_OK;
}

// DROP TABLE: the rows go with the last connection.
int DestroyRuntime(sqlite3_vtab* vtab) {
  auto* v = static_cast<VTab*>(vtab);
  auto* registry = static_cast<RuntimeTableRegistry*>(v->registry);
  if (registry) registry->Remove(v->table);
  delete v;
  return SQLITE_OK;
}

sqlite3_module MakeRuntimeModule() {
  sqlite3_module m = MakeModule();
  m.xCreate = ConnectRuntime;
  m.xConnect = ConnectRuntime;
  m.xDestroy = DestroyRuntime;
  return m;
}

const sqlite3_module kRuntimeModule = MakeRuntimeModule();

}  // namespace

void RuntimeTableRegistry::Put(const std::string& name, Entry e) {
  if (!e.indexes) e.indexes = std::make_shared<EqIndexCache>();
  e.strings = strings_;
  entries_[Lower(name)] = std::move(e);
}

const RuntimeTableRegistry::Entry* RuntimeTableRegistry::Find(const std::string& name) const {
  auto it = entries_.find(Lower(name));
  return it == entries_.end() ? nullptr : &it->second;
}

void RuntimeTableRegistry::Remove(const Table* table) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->second.table.get() != table) continue;
    entries_.erase(it);
    return;
  }
}

Status RegisterRuntimeTableModule(sqlite3* db, RuntimeTableRegistry* registry) {
  if (sqlite3_create_module_v2(db, kRuntimeTableModule, &kRuntimeModule, registry, nullptr) !=
      SQLITE_OK)
    return ErrorStatus(std::string("cannot register run-time tables: ") + sqlite3_errmsg(db));
  return Status::Ok();
}

Status RegisterTableVtab(sqlite3* db, TraceStorage* storage, Table* table,
                         const std::string& name) {
  const std::string& sql_name = name.empty() ? table->name() : name;
  auto* aux = new VTab();
  aux->storage = storage;
  aux->strings = &storage->strings;
  aux->table = table;
  aux->indexes = std::make_shared<EqIndexCache>();
  for (const ColumnBase* c : table->columns())
    if (!(c->flags() & kHidden)) aux->columns.push_back(c);
  int rc = sqlite3_create_module_v2(db, sql_name.c_str(), &kModule, aux,
                                    [](void* p) { delete static_cast<VTab*>(p); });
  if (rc != SQLITE_OK)
    return ErrorStatus("cannot register table " + sql_name + ": " + sqlite3_errmsg(db));
  return Status::Ok();
}

}  // namespace fathom
