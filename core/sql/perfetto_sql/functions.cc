#include "core/sql/perfetto_sql/functions.h"

#include <sqlite3.h>

#include "core/sql/perfetto_sql/table_function.h"
#include "core/sql/perfetto_sql/tokenizer.h"

namespace fathom::psql {
namespace {

// The SQLite storage class an argument of `type` must have (NULL always
// may), and the name upstream's errors give the type; 0 for no check.
int ExpectedClass(const std::string& type, std::string* name) {
  std::string base = type.substr(0, type.find('('));
  if (base == "BOOL") return *name = "BOOL", SQLITE_INTEGER;
  if (base == "INT" || base == "LONG" || base == "UINT" || base == "TIMESTAMP" ||
      base == "DURATION" || base == "ID" || base == "JOINID" || base == "ARGSETID")
    return *name = "LONG", SQLITE_INTEGER;
  if (base == "DOUBLE" || base == "FLOAT") return *name = "DOUBLE", SQLITE_FLOAT;
  if (base == "STRING") return *name = "STRING", SQLITE_TEXT;
  if (base == "BYTES") return *name = "BYTES", SQLITE_BLOB;
  return 0;
}

const char* ClassName(int c) {
  switch (c) {
    case SQLITE_INTEGER:
      return "BOOL/INT/UINT/LONG";
    case SQLITE_FLOAT:
      return "FLOAT/DOUBLE";
    case SQLITE_TEXT:
      return "STRING";
    case SQLITE_BLOB:
      return "BYTES";
  }
  return "NULL";
}

void ResultMemo(sqlite3_context* ctx, const MemoValue& v) {
  switch (v.type) {
    case SQLITE_INTEGER:
      return sqlite3_result_int64(ctx, v.i);
    case SQLITE_FLOAT:
      return sqlite3_result_double(ctx, v.d);
    case SQLITE_TEXT:
      return sqlite3_result_text(ctx, v.s.data(), static_cast<int>(v.s.size()), SQLITE_TRANSIENT);
    case SQLITE_BLOB:
      return sqlite3_result_blob(ctx, v.s.data(), static_cast<int>(v.s.size()), SQLITE_TRANSIENT);
    default:
      return sqlite3_result_null(ctx);
  }
}

void CallScalar(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto* f = static_cast<FunctionImpl*>(sqlite3_user_data(ctx));
  const std::string& name = f->def().name;
  const bool memo = f->memoized() && argc == 1 && sqlite3_value_type(argv[0]) == SQLITE_INTEGER;
  if (memo) {
    if (const MemoValue* v = f->Memoized(sqlite3_value_int64(argv[0]))) return ResultMemo(ctx, *v);
  }
  Result<sqlite3_stmt*> stmt = f->Acquire();
  if (!stmt.ok()) return sqlite3_result_error(ctx, stmt.status().message().c_str(), -1);
  std::string error;
  sqlite3_stmt* s = *stmt;
  if (!f->Bind(s, argc, argv, &error)) {
    f->Release(s);
    return sqlite3_result_error(ctx, error.c_str(), -1);
  }
  const int columns = sqlite3_column_count(s);
  int rc = columns == 1 ? sqlite3_step(s) : SQLITE_DONE;
  if (columns != 1) {
    error = name + ": SQL definition should only return one column: returned " +
            std::to_string(columns) + " columns";
  } else if (rc == SQLITE_ROW) {
    sqlite3_result_value(ctx, sqlite3_column_value(s, 0));
    if (memo) f->Remember(sqlite3_value_int64(argv[0]), sqlite3_column_value(s, 0));
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
      error = name +
              ": multiple values were returned when executing function body. Executed SQL was " +
              f->body();
    else if (rc != SQLITE_DONE)
      error = name + ": " + sqlite3_errmsg(f->db());
  } else if (rc == SQLITE_DONE) {
    sqlite3_result_null(ctx);
    if (memo) f->Remember(sqlite3_value_int64(argv[0]), nullptr);
  } else {
    error = name + ": " + sqlite3_errmsg(f->db());
  }
  f->Release(s);
  if (!error.empty()) sqlite3_result_error(ctx, error.c_str(), -1);
}

// A variadic function that DELEGATES TO another: each call forwards all its
// arguments, through a statement prepared for that many.
void CallVariadicDelegate(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto* f = static_cast<FunctionImpl*>(sqlite3_user_data(ctx));
  std::string sql = "SELECT " + f->def().delegate + "(";
  for (int i = 0; i < argc; ++i) sql += i ? ", ?" : "?";
  sql += ")";
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(f->db(), sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
    const std::string msg = f->def().name + ": " + sqlite3_errmsg(f->db());
    sqlite3_finalize(s);
    return sqlite3_result_error(ctx, msg.c_str(), -1);
  }
  for (int i = 0; i < argc; ++i) sqlite3_bind_value(s, i + 1, argv[i]);
  if (sqlite3_step(s) == SQLITE_ROW) {
    sqlite3_result_value(ctx, sqlite3_column_value(s, 0));
  } else {
    const std::string msg = f->def().name + ": " + sqlite3_errmsg(f->db());
    sqlite3_result_error(ctx, msg.c_str(), -1);
  }
  sqlite3_finalize(s);
}

}  // namespace

FunctionImpl::FunctionImpl(sqlite3* db, CreateFunction def, std::string body)
    : db_(db), def_(std::move(def)), body_(std::move(body)) {}

Status FunctionImpl::Memoize() {
  if (def_.args.size() != 1 || def_.returns_table)
    return ErrorStatus("EXPERIMENTAL_MEMOIZE: Function " + def_.name +
                       " must have exactly one argument and return a value");
  memoize_ = true;
  return Status::Ok();
}

const MemoValue* FunctionImpl::Memoized(int64_t arg) const {
  auto it = memo_.find(arg);
  return it == memo_.end() ? nullptr : &it->second;
}

void FunctionImpl::Remember(int64_t arg, sqlite3_value* value) {
  MemoValue v;
  if (value) {
    v.type = sqlite3_value_type(value);
    if (v.type == SQLITE_INTEGER) v.i = sqlite3_value_int64(value);
    if (v.type == SQLITE_FLOAT) v.d = sqlite3_value_double(value);
    if (v.type == SQLITE_TEXT || v.type == SQLITE_BLOB) {
      const void* p = v.type == SQLITE_TEXT ? static_cast<const void*>(sqlite3_value_text(value))
                                            : sqlite3_value_blob(value);
      if (p)
        v.s.assign(static_cast<const char*>(p), static_cast<size_t>(sqlite3_value_bytes(value)));
    }
  }
  memo_[arg] = std::move(v);
}

FunctionImpl::~FunctionImpl() {
  for (sqlite3_stmt* s : pool_) sqlite3_finalize(s);
}

std::string FunctionImpl::Prototype() const {
  std::string out = def_.name + "(";
  for (size_t i = 0; i < def_.args.size(); ++i) {
    std::string shown;
    if (!ExpectedClass(def_.args[i].type, &shown)) shown = def_.args[i].type;
    out += (i ? ", " : "") + def_.args[i].name + " " + shown;
  }
  return out + ")";
}

Result<sqlite3_stmt*> FunctionImpl::Acquire() {
  if (!pool_.empty()) {
    sqlite3_stmt* s = pool_.back();
    pool_.pop_back();
    return s;
  }
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db_, body_.c_str(), static_cast<int>(body_.size()), &s, nullptr) !=
      SQLITE_OK) {
    std::string msg = def_.name + ": " + sqlite3_errmsg(db_);
    sqlite3_finalize(s);
    return ErrorStatus(msg);
  }
  if (!s) return ErrorStatus(def_.name + ": the function body is empty");
  return s;
}

void FunctionImpl::Release(sqlite3_stmt* stmt) {
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  pool_.push_back(stmt);
}

bool FunctionImpl::Bind(sqlite3_stmt* s, int argc, sqlite3_value** argv, std::string* error) const {
  for (int i = 0; i < argc && i < static_cast<int>(def_.args.size()); ++i) {
    std::string expected;
    const int want = ExpectedClass(def_.args[i].type, &expected);
    const int have = sqlite3_value_type(argv[i]);
    if (want && have != SQLITE_NULL && have != want) {
      const unsigned char* text = sqlite3_value_text(argv[i]);
      *error = def_.name + "[arg=" + (text ? reinterpret_cast<const char*>(text) : "") +
               "]: argument " + std::to_string(i) + " does not have expected type: expected " +
               expected + ", actual " + ClassName(have);
      return false;
    }
  }
  // Parameters are matched by name, ignoring case, so a body may write $X for x.
  for (int p = 1; p <= sqlite3_bind_parameter_count(s); ++p) {
    const char* pname = sqlite3_bind_parameter_name(s, p);
    if (!pname || pname[0] != '$') continue;
    for (int i = 0; i < argc && i < static_cast<int>(def_.args.size()); ++i) {
      if (EqualsNoCase(pname + 1, def_.args[i].name)) {
        sqlite3_bind_value(s, p, argv[i]);
        break;
      }
    }
  }
  return true;
}

Status FunctionImpl::CheckTableColumns() {
  Result<sqlite3_stmt*> s = Acquire();
  if (!s.ok()) return s.status();
  const int n = sqlite3_column_count(*s);
  Status st = Status::Ok();
  if (n != static_cast<int>(def_.return_columns.size())) {
    st = ErrorStatus(def_.name + ": the body returns " + std::to_string(n) +
                     " columns, RETURNS TABLE declares " +
                     std::to_string(def_.return_columns.size()));
  }
  for (int i = 0; st.ok() && i < n; ++i) {
    const char* col = sqlite3_column_name(*s, i);
    if (!EqualsNoCase(col ? col : "", def_.return_columns[static_cast<size_t>(i)].name))
      st = ErrorStatus(def_.name + ": column " + (col ? col : "") + " at index " +
                       std::to_string(i) + " does not match return value name " +
                       def_.return_columns[static_cast<size_t>(i)].name + ".");
  }
  Release(*s);
  return st;
}

Status FunctionImpl::Register() {
  const int nargs = static_cast<int>(def_.args.size());
  if (def_.returns_table) {
    Status st = CheckTableColumns();
    if (!st.ok()) return st;
    return RegisterTableFunction(this);
  }
  const bool variadic = !def_.args.empty() && def_.args.back().variadic;
  if (variadic && def_.delegate.empty())
    return ErrorStatus(def_.name + ": a variadic argument needs DELEGATES TO");
  int rc = sqlite3_create_function_v2(db_, def_.name.c_str(), variadic ? -1 : nargs, SQLITE_UTF8,
                                      this, variadic ? CallVariadicDelegate : CallScalar, nullptr,
                                      nullptr, nullptr);
  if (rc != SQLITE_OK) return ErrorStatus(def_.name + ": " + sqlite3_errmsg(db_));
  return Status::Ok();
}

}  // namespace fathom::psql
