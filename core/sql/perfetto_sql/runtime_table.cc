#include "core/sql/perfetto_sql/runtime_table.h"

#include <bit>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "core/sql/perfetto_sql/tokenizer.h"

namespace fathom::psql {
namespace {

const char* TypeofName(int type) {
  switch (type) {
    case SQLITE_INTEGER:
      return "LONG";
    case SQLITE_FLOAT:
      return "DOUBLE";
    case SQLITE_TEXT:
      return "STRING";
    default:
      return "BYTES";
  }
}

// The table the columns register with; the rows are counted once at the end.
class ColumnTable final : public Table {
 public:
  using Table::Table;
  void SetRowCount(uint32_t rows) {
    ResetRowCount();
    for (uint32_t r = 0; r < rows; ++r) CommitRow();
  }
  std::vector<std::unique_ptr<ColumnBase>> owned;
};

// One result column while the statement runs: each value as 8 bytes (an
// integer, a double's bits or a StringId) and its SQLite type.
struct Collected {
  std::string name;
  std::vector<int64_t> values;
  // A type byte per row only once a second type appears (most columns hold
  // one): until then every row is `uniform`.
  std::vector<uint8_t> types;
  uint8_t uniform = SQLITE_NULL;
  bool mixed = false;
  unsigned seen = 0;  // bit (1 << SQLite type) per type seen
  // The declaration's rules, when the column is declared with a type.
  const char* declared_name = nullptr;  // LONG, DOUBLE, STRING, BYTES
  int allowed = 0;                      // bits of the types it may hold
  bool is_double = false;               // DOUBLE: integers become doubles
  size_t first_bad = SIZE_MAX;          // first row of a type not allowed
  // As upstream infers a column's type: from its first value, integers and
  // doubles making doubles; text with numbers is an error.
  int inferred = SQLITE_NULL;
  int mix_inferred = SQLITE_NULL, mix_received = SQLITE_NULL;  // the first clash

  void Add(sqlite3_value* v, StringPool* strings) {
    int type = sqlite3_value_type(v);
    int64_t bits = 0;
    if (type == SQLITE_INTEGER && is_double) {
      type = SQLITE_FLOAT;
      bits = std::bit_cast<int64_t>(static_cast<double>(sqlite3_value_int64(v)));
    } else if (type == SQLITE_INTEGER) {
      bits = sqlite3_value_int64(v);
    } else if (type == SQLITE_FLOAT) {
      bits = std::bit_cast<int64_t>(sqlite3_value_double(v));
    } else if (type == SQLITE_TEXT) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(v));
      bits = strings->Intern(std::string_view(text, static_cast<size_t>(sqlite3_value_bytes(v))));
    }
    if (declared_name && type != SQLITE_NULL && !(allowed & (1 << type)) && first_bad == SIZE_MAX)
      first_bad = values.size();
    if (type != inferred) Infer(type);
    PushType(static_cast<uint8_t>(type));
    values.push_back(bits);
  }

  void PushType(uint8_t type) {
    seen |= 1u << type;
    if (mixed) return types.push_back(type);
    if (values.empty()) uniform = type;
    if (type == uniform) return;
    types.assign(values.size(), uniform);
    types.push_back(type);
    mixed = true;
  }
  uint8_t TypeAt(size_t row) const { return mixed ? types[row] : uniform; }

  void Infer(int type) {
    if (type == SQLITE_NULL || type == SQLITE_BLOB || type == inferred) return;
    const bool numbers = (type == SQLITE_INTEGER || type == SQLITE_FLOAT) &&
                         (inferred == SQLITE_INTEGER || inferred == SQLITE_FLOAT);
    if (inferred == SQLITE_NULL || numbers) {
      inferred = inferred == SQLITE_NULL ? type : SQLITE_FLOAT;
    } else if (mix_received == SQLITE_NULL) {
      mix_inferred = inferred;
      mix_received = type;
    }
  }

  // Integers among doubles become doubles, as in upstream's tables.
  void PromoteToDouble() {
    for (size_t r = 0; r < values.size(); ++r) {
      if (TypeAt(r) != SQLITE_INTEGER) continue;
      values[r] = std::bit_cast<int64_t>(static_cast<double>(values[r]));
      if (mixed) types[r] = SQLITE_FLOAT;
    }
    if (!mixed && uniform == SQLITE_INTEGER) uniform = SQLITE_FLOAT;
  }
};

constexpr unsigned kNullBit = 1u << SQLITE_NULL;

bool NonDecreasing(const std::vector<int64_t>& v, bool as_double) {
  for (size_t i = 1; i < v.size(); ++i) {
    if (as_double ? std::bit_cast<double>(v[i]) < std::bit_cast<double>(v[i - 1]) : v[i] < v[i - 1])
      return false;
  }
  return true;
}

template <typename T>
void MakeNumeric(ColumnTable* t, const Collected& c) {
  const bool nulls = c.seen & kNullBit;
  const bool sorted = !nulls && NonDecreasing(c.values, std::is_floating_point_v<T>);
  auto col = std::make_unique<NumericColumn<T>>(
      t, c.name, (nulls ? kNullable : kNoFlags) | (sorted ? kSorted : kNoFlags));
  col->Reserve(c.values.size());
  for (size_t r = 0; r < c.values.size(); ++r) {
    if (c.TypeAt(r) == SQLITE_NULL)
      col->AppendNull();
    else if constexpr (std::is_floating_point_v<T>)
      col->Append(std::bit_cast<double>(c.values[r]));
    else
      col->Append(c.values[r]);
  }
  t->owned.push_back(std::move(col));
}

void MakeString(ColumnTable* t, const Collected& c) {
  auto col = std::make_unique<StringColumn>(t, c.name);
  for (size_t r = 0; r < c.values.size(); ++r)
    col->Append(c.TypeAt(r) == SQLITE_NULL ? kNullStringId : static_cast<StringId>(c.values[r]));
  t->owned.push_back(std::move(col));
}

// Turns the collected values into a column of one kind; false when they are
// not of one kind.
bool MakeColumn(ColumnTable* t, Collected& c) {
  const unsigned kinds = c.seen & ~kNullBit;
  constexpr unsigned kNumbers = (1u << SQLITE_INTEGER) | (1u << SQLITE_FLOAT);
  if (kinds == 0 || kinds == (1u << SQLITE_INTEGER)) {
    MakeNumeric<int64_t>(t, c);
  } else if ((kinds & ~kNumbers) == 0) {
    c.PromoteToDouble();
    MakeNumeric<double>(t, c);
  } else if (kinds == (1u << SQLITE_TEXT)) {
    MakeString(t, c);
  } else {
    return false;
  }
  return true;
}

std::string QuoteIdent(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Applies the declared schema's types to the result's columns.
void Declare(std::vector<Collected>* cols, const std::vector<DeclaredColumn>& declared) {
  for (Collected& c : *cols) {
    for (const DeclaredColumn& d : declared) {
      if (!EqualsNoCase(d.name, c.name)) continue;
      const char* want = nullptr;
      c.declared_name = DeclaredClass(d.type, &want);
      if (!c.declared_name) continue;
      const std::string_view w = want;
      // A LONG column may hold doubles (upstream allows it).
      if (w == "integer") c.allowed = (1 << SQLITE_INTEGER) | (1 << SQLITE_FLOAT);
      if (w == "real") c.allowed = 1 << SQLITE_FLOAT, c.is_double = true;
      if (w == "text") c.allowed = 1 << SQLITE_TEXT;
      if (w == "blob") c.allowed = 1 << SQLITE_BLOB;
    }
  }
}

}  // namespace

const char* DeclaredClass(const std::string& type, const char** sqlite_type) {
  std::string base = type.substr(0, type.find('('));
  if (base == "DOUBLE" || base == "FLOAT") return *sqlite_type = "real", "DOUBLE";
  if (base == "STRING") return *sqlite_type = "text", "STRING";
  if (base == "BYTES") return *sqlite_type = "blob", "BYTES";
  if (base == "INT" || base == "LONG" || base == "UINT" || base == "BOOL" || base == "TIMESTAMP" ||
      base == "DURATION" || base == "ID" || base == "JOINID" || base == "ARGSETID")
    return *sqlite_type = "integer", "LONG";
  return *sqlite_type = nullptr, nullptr;
}

RuntimeTableResult BuildRuntimeTable(sqlite3_stmt* stmt, StringPool* strings,
                                     const std::string& what, const std::string& name,
                                     const std::vector<DeclaredColumn>& declared) {
  RuntimeTableResult result;
  const int n = sqlite3_column_count(stmt);
  std::vector<Collected> cols(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) cols[static_cast<size_t>(i)].name = sqlite3_column_name(stmt, i);
  Declare(&cols, declared);
  int rc;
  uint32_t rows = 0;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    for (int i = 0; i < n; ++i)
      cols[static_cast<size_t>(i)].Add(sqlite3_column_value(stmt, i), strings);
    ++rows;
  }
  if (rc != SQLITE_DONE) {
    result.error = ErrorStatus(sqlite3_errmsg(sqlite3_db_handle(stmt)));
    return result;
  }
  // Blobs: upstream's tables cannot hold them; SQLite's can.
  for (const Collected& c : cols) {
    if (c.seen & (1u << SQLITE_BLOB)) {
      result.unsupported = true;
      return result;
    }
  }
  // Upstream's checks: the declared columns in declaration order, each at
  // its first value of another type; then a column whose values clash.
  for (const DeclaredColumn& d : declared) {
    for (const Collected& c : cols) {
      if (!EqualsNoCase(d.name, c.name) || c.first_bad == SIZE_MAX) continue;
      result.error = ErrorStatus(what + "(" + name + "): column '" + d.name + "' declared as " +
                                 c.declared_name + " in the schema, but " +
                                 TypeofName(c.TypeAt(c.first_bad)) + " found");
      return result;
    }
  }
  for (const Collected& c : cols) {
    if (c.mix_received == SQLITE_NULL) continue;
    result.error =
        ErrorStatus(what + "(" + name + "): column '" + c.name + "' was inferred to be " +
                    TypeofName(c.mix_inferred) + ", but later received a value of type " +
                    TypeofName(c.mix_received));
    return result;
  }
  auto table = std::make_unique<ColumnTable>(name);
  std::string decl = "CREATE TABLE x(";
  for (size_t i = 0; i < cols.size(); ++i) {
    if (!MakeColumn(table.get(), cols[i])) {
      result.unsupported = true;
      return result;
    }
    // The declared types SQLite would see on a table of its own: only a
    // DOUBLE column has an affinity (REAL); the others compare as stored.
    decl += (i ? ", " : "") + QuoteIdent(cols[i].name) + (cols[i].is_double ? " REAL" : "");
    std::vector<int64_t>().swap(cols[i].values);  // free as we go: tables run to millions
    std::vector<uint8_t>().swap(cols[i].types);
  }
  table->SetRowCount(rows);
  result.table = std::make_unique<RuntimeTable>();
  result.table->declaration = decl + ")";
  result.table->table = std::move(table);
  return result;
}

}  // namespace fathom::psql
