// Runs PerfettoSQL over one SQLite connection: INCLUDE PERFETTO MODULE (each
// module once, from SqlPackages), CREATE PERFETTO TABLE/VIEW/FUNCTION/MACRO/
// INDEX, and macro expansion of every other statement before SQLite prepares
// it. Errors name the text (the query, or a module's file), line and column;
// one in an included module also says where it was included from.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "core/sql/perfetto_sql/macros.h"
#include "core/sql/perfetto_sql/packages.h"
#include "core/sql/perfetto_sql/statement.h"

struct sqlite3;
struct sqlite3_stmt;

namespace fathom {
class RuntimeTableRegistry;
}

namespace fathom::psql {

class FunctionImpl;

// 1-based line and column of byte `offset` in `text`.
void LineColumn(std::string_view text, size_t offset, int* line, int* column);

class PerfettoSqlEngine {
 public:
  // `packages` may change between queries; it must outlive the engine.
  // PERFETTO TABLEs are made in `runtime_tables` (registered as a module on
  // `db`) when given, else as SQLite tables.
  PerfettoSqlEngine(sqlite3* db, const SqlPackages* packages,
                    RuntimeTableRegistry* runtime_tables = nullptr);
  ~PerfettoSqlEngine();
  PerfettoSqlEngine(const PerfettoSqlEngine&) = delete;
  PerfettoSqlEngine& operator=(const PerfettoSqlEngine&) = delete;

  // Runs the statement `span` of the query `text` if it is PerfettoSQL
  // (*stmt stays null), otherwise prepares it, macros expanded, into *stmt
  // for the caller to step and finalize. On error *error_offset is the byte
  // in `text` the error is about (-1: unknown).
  Status Prepare(std::string_view text, StatementSpan span, sqlite3_stmt** stmt,
                 long* error_offset);

  // Includes a module (or a.b.* modules) as INCLUDE PERFETTO MODULE does.
  Status Include(const std::string& key);

  const MacroTable& macros() const { return macros_; }
  // Modules included so far.
  const std::set<std::string>& included() const { return included_; }

 private:
  // Where a text comes from, for error messages.
  struct Source {
    std::string name;  // a module file's path; "" for the query
    std::string_view text;
  };
  Status PrepareIn(const Source& src, StatementSpan span, sqlite3_stmt** stmt, long* error_offset);
  Status RunModule(const ModuleFile& file);
  Status Execute(const Statement& s, std::string_view stmt_text);
  Status CreateTableOrViewImpl(const CreateTableOrView& s, const std::string& body);
  // A PERFETTO TABLE in columns, from stepping `body` (prepared, not run);
  // *unsupported when its values do not fit columns (then nothing was made
  // and CreateSqliteTable makes it).
  Status CreateColumnTable(const CreateTableOrView& s, sqlite3_stmt* body,
                           const std::string& what, bool* unsupported);
  Status CreateSqliteTable(const CreateTableOrView& s, const std::string& body,
                           const std::string& what, const std::vector<std::string>& names);
  Status CreateFunctionImpl(const CreateFunction& s, const std::string& body);
  Status CreateMacroImpl(const CreateMacro& s);
  Status CreateIndexImpl(const CreateIndex& s);
  Status DropIndexImpl(const DropIndex& s);
  Status IndexColumnTable(const CreateIndex& s);
  Status Exec(const std::string& sql);
  // "table", "view" or "" for what sqlite_master knows of `name`.
  std::string ObjectType(const std::string& name);

  sqlite3* db_;
  const SqlPackages* packages_;
  RuntimeTableRegistry* runtime_tables_;
  std::map<std::string, std::string> column_table_indexes_;  // index -> table, lower-case index
  MacroTable macros_;
  std::set<std::string> included_;
  std::set<std::string> function_names_;
  std::vector<std::unique_ptr<FunctionImpl>> functions_;  // never freed before the connection
};

}  // namespace fathom::psql
