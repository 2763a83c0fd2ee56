// CREATE PERFETTO FUNCTION in SQLite: a scalar function runs its SELECT with
// each argument bound to `$name` and returns the one value of its one row
// (NULL without rows); a table function (RETURNS TABLE(...)) is an eponymous
// virtual table whose hidden columns are the arguments, so `FROM f(1, 2)`
// runs the SELECT and yields its rows. Argument types are checked as
// upstream does (a STRING passed as LONG is an error; NULL always passes).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/sql/perfetto_sql/statement.h"

struct sqlite3;
struct sqlite3_stmt;
struct sqlite3_value;

namespace fathom::psql {

// One defined function; owned by the engine for as long as the database
// lives (SQLite holds a pointer to it), replaced ones included.
// A copied result value of a memoized function.
struct MemoValue {
  int type = 5;  // SQLITE_NULL
  int64_t i = 0;
  double d = 0;
  std::string s;
};

class FunctionImpl {
 public:
  FunctionImpl(sqlite3* db, CreateFunction def, std::string body);
  ~FunctionImpl();
  FunctionImpl(const FunctionImpl&) = delete;
  FunctionImpl& operator=(const FunctionImpl&) = delete;

  // Makes the function callable: registers it with SQLite.
  Status Register();

  const CreateFunction& def() const { return def_; }
  const std::string& body() const { return body_; }
  sqlite3* db() const { return db_; }
  // "f(x LONG, y STRING)", for error messages.
  std::string Prototype() const;

  // A prepared body to bind and step (from a pool: bodies may recurse); give
  // it back with Release.
  Result<sqlite3_stmt*> Acquire();
  void Release(sqlite3_stmt* stmt);
  // Caches results by the one integer argument (EXPERIMENTAL_MEMOIZE); an
  // error when the function does not take exactly one argument.
  Status Memoize();
  // The cached result for `arg`, or null; Remember stores one.
  const struct MemoValue* Memoized(int64_t arg) const;
  void Remember(int64_t arg, sqlite3_value* value);
  bool memoized() const { return memoize_; }

  // Binds argv[i] to `$<arg i>` after checking its type; false with *error set.
  bool Bind(sqlite3_stmt* stmt, int argc, sqlite3_value** argv, std::string* error) const;

 private:
  Status CheckTableColumns();

  sqlite3* db_;
  CreateFunction def_;
  std::string body_;  // macros expanded
  std::vector<sqlite3_stmt*> pool_;
  bool memoize_ = false;
  std::map<int64_t, MemoValue> memo_;
};

}  // namespace fathom::psql
