// The SQL front end: one in-memory SQLite database whose tables are the
// trace's column tables (virtual tables), plus upstream-compatible views and
// functions (EXTRACT_ARG, ...).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "core/sql/perfetto_sql/packages.h"
#include "core/sql/perfetto_sql/statement.h"
#include "core/sql/table_vtab.h"
#include "core/storage/trace_storage.h"

struct sqlite3;
struct sqlite3_stmt;

namespace fathom {

namespace psql {
class PerfettoSqlEngine;
}

struct SqlValue {
  enum Type { kNull, kInt, kDouble, kString, kBlob } type = kNull;
  int64_t i = 0;
  double d = 0;
  std::string_view s;  // valid until the iterator moves
};

// Walks the result sets of one or more SQL statements, row by row. The text
// is PerfettoSQL: statements are split by core/sql/perfetto_sql, which runs
// its own (INCLUDE PERFETTO MODULE, CREATE PERFETTO ...) and expands macros
// in the rest before SQLite prepares them.
class QueryIterator {
 public:
  QueryIterator(sqlite3* db, psql::PerfettoSqlEngine* engine, std::string sql);
  ~QueryIterator();
  QueryIterator(const QueryIterator&) = delete;
  QueryIterator& operator=(const QueryIterator&) = delete;

  // Moves to the next statement that returns columns (running statements
  // without result columns, e.g. CREATE VIEW, along the way). False at the
  // end or on error (see status()).
  bool NextResultSet();
  // Moves to the next row of the current result set.
  bool NextRow();
  // True when SQL text other than whitespace, comments and ';' follows the current statement.
  // Viewers that show one result set show the last statement's, as Perfetto does.
  bool HasMoreStatements() const;

  int column_count() const { return column_count_; }
  std::string column_name(int i) const;
  SqlValue Get(int i) const;
  const Status& status() const { return status_; }
  // Byte offset into the whole SQL text of the token an error points at, as
  // SQLite reports it (sqlite3_error_offset); -1 when unknown.
  int error_offset() const { return error_offset_; }

 private:
  void SetError();
  bool PrepareNext();
  sqlite3* db_;
  psql::PerfettoSqlEngine* engine_;
  std::string sql_;
  std::vector<psql::StatementSpan> spans_;
  size_t next_span_ = 0;
  sqlite3_stmt* stmt_ = nullptr;
  int column_count_ = 0;
  bool first_row_pending_ = false;
  bool row_done_ = true;
  size_t stmt_start_ = 0;  // offset of the current statement in sql_
  int error_offset_ = -1;
  Status status_;
};

class SqlEngine {
 public:
  explicit SqlEngine(TraceStorage* storage);
  ~SqlEngine();
  SqlEngine(const SqlEngine&) = delete;
  SqlEngine& operator=(const SqlEngine&) = delete;

  Status Init();
  std::unique_ptr<QueryIterator> Query(std::string sql);
  sqlite3* db() { return db_; }
  // Where INCLUDE PERFETTO MODULE looks (starts with $FATHOM_STDLIB as the
  // standard library when that names a folder).
  psql::SqlPackages& sql_packages() { return packages_; }
  psql::PerfettoSqlEngine& perfetto_sql() { return *perfetto_sql_; }
  // Makes the statement running on this connection stop soon with an
  // "interrupted" error (sqlite3_interrupt). Safe from any thread; a no-op
  // when nothing runs.
  void Interrupt();

 private:
  TraceStorage* storage_;
  sqlite3* db_ = nullptr;
  psql::SqlPackages packages_;
  // PERFETTO TABLEs' rows; outlives the connection (closed in ~SqlEngine).
  RuntimeTableRegistry runtime_tables_;
  // Destroyed before db_ closes: it finalizes the statements its functions keep.
  std::unique_ptr<psql::PerfettoSqlEngine> perfetto_sql_;
};

}  // namespace fathom
