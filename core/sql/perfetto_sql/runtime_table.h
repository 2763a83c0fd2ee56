// CREATE PERFETTO TABLE's results held in columns, as upstream holds them,
// rather than in a SQLite b-tree. Served by the same virtual table code as
// the trace's own tables (core/sql/table_vtab.h), a column that comes out
// sorted (timestamps, ids) answers ORDER BY and range filters without a sort,
// and equality joins use the lazily built equality index. The standard
// library's modules build such tables of millions of rows and then read them
// back in ts order (the interval macros), so the sort avoided is most of the
// cost of reading them.
#pragma once

#include <sqlite3.h>

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/base/string_pool.h"
#include "core/storage/column.h"

namespace fathom::psql {

// A column declared in CREATE PERFETTO TABLE's schema: its name and type
// as written (LONG, DOUBLE, STRING, TIMESTAMP, JOINID(x.id)...).
struct DeclaredColumn {
  std::string name;
  std::string type;
};

// A finished table: its rows and the column declaration SQLite is given
// for it.
struct RuntimeTable {
  std::unique_ptr<Table> table;
  std::string declaration;  // CREATE TABLE x(...) for sqlite3_declare_vtab
};

// What building from a statement gave.
struct RuntimeTableResult {
  // Set when every column holds one kind of value (NULLs aside).
  std::unique_ptr<RuntimeTable> table;
  // Not columns: a column holds blobs, which upstream's tables cannot hold
  // (its shell aborts); the caller keeps such tables in SQLite. Not an error.
  bool unsupported = false;
  // A declared column holds a value of another type, or a column's values
  // clash (text and numbers): upstream's message.
  Status error = Status::Ok();
};

// Steps `stmt` (prepared, not yet stepped; finalised by the caller) to its
// end; text goes in `strings` (the run-time tables' pool: the trace's pool is
// read by other threads and never grows after the load). `what` and `name`
// make the type error's text: "CREATE PERFETTO TABLE(name): column 'c'
// declared as LONG in the schema, but STRING found".
RuntimeTableResult BuildRuntimeTable(sqlite3_stmt* stmt, StringPool* strings,
                                     const std::string& what, const std::string& name,
                                     const std::vector<DeclaredColumn>& declared);

// The SQLite storage class a declared type allows ("integer", "real",
// "text", "blob") and its name in errors; null for untyped declarations.
const char* DeclaredClass(const std::string& type, const char** sqlite_type);

}  // namespace fathom::psql
