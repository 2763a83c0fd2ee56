#include "core/sql/sql_engine.h"

#include <sqlite3.h>

#include <cstdlib>
#include <mutex>

#include "core/sql/flamegraph_vtab.h"
#include "core/sql/perfetto_sql/absent_tables.h"
#include "core/sql/perfetto_sql/engine.h"
#include "core/sql/perfetto_sql/prelude.h"
#include "core/sql/perfetto_sql/span_join.h"
#include "core/sql/perfetto_sql/stdlib_objects.h"
#include "core/sql/perfetto_sql/table_info.h"
#include "core/sql/sql_functions.h"
#include "core/sql/sql_views.h"
#include "core/sql/table_vtab.h"

namespace fathom {

QueryIterator::QueryIterator(sqlite3* db, psql::PerfettoSqlEngine* engine, std::string sql)
    : db_(db), engine_(engine), sql_(std::move(sql)), spans_(psql::SplitStatements(sql_)) {}

QueryIterator::~QueryIterator() {
  if (stmt_) sqlite3_finalize(stmt_);
}

void QueryIterator::SetError() {
  status_ = ErrorStatus(std::string("SQL error: ") + sqlite3_errmsg(db_));
  const int off = sqlite3_error_offset(db_);
  error_offset_ = off >= 0 ? static_cast<int>(stmt_start_) + off : -1;
}

bool QueryIterator::PrepareNext() {
  if (stmt_) {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
  }
  if (!engine_ && next_span_ < spans_.size()) {
    status_ = ErrorStatus("SQL error: the database is not open");
    return false;
  }
  while (next_span_ < spans_.size()) {
    const psql::StatementSpan span = spans_[next_span_++];
    stmt_start_ = span.begin;
    long error_offset = -1;
    Status st = engine_->Prepare(sql_, span, &stmt_, &error_offset);
    if (!st.ok()) {
      status_ = ErrorStatus("SQL error: " + st.message());
      error_offset_ = static_cast<int>(error_offset);
      stmt_ = nullptr;
      return false;
    }
    if (!stmt_) continue;  // a PerfettoSQL statement, run already
    return true;
  }
  return false;
}

bool QueryIterator::HasMoreStatements() const { return next_span_ < spans_.size(); }

bool QueryIterator::NextResultSet() {
  if (!status_.ok()) return false;
  while (PrepareNext()) {
    int rc = sqlite3_step(stmt_);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
      SetError();
      return false;
    }
    column_count_ = sqlite3_column_count(stmt_);
    if (column_count_ == 0) continue;  // CREATE, INSERT...: no result set
    first_row_pending_ = rc == SQLITE_ROW;
    row_done_ = rc == SQLITE_DONE;
    return true;
  }
  return false;
}

bool QueryIterator::NextRow() {
  if (!stmt_ || !status_.ok()) return false;
  if (first_row_pending_) {
    first_row_pending_ = false;
    return true;
  }
  if (row_done_) return false;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  row_done_ = true;
  if (rc != SQLITE_DONE) SetError();
  return false;
}

std::string QueryIterator::column_name(int i) const {
  const char* n = sqlite3_column_name(stmt_, i);
  return n ? n : "";
}

SqlValue QueryIterator::Get(int i) const {
  SqlValue v;
  switch (sqlite3_column_type(stmt_, i)) {
    case SQLITE_INTEGER:
      v.type = SqlValue::kInt;
      v.i = sqlite3_column_int64(stmt_, i);
      break;
    case SQLITE_FLOAT:
      v.type = SqlValue::kDouble;
      v.d = sqlite3_column_double(stmt_, i);
      break;
    case SQLITE_TEXT:
      v.type = SqlValue::kString;
      v.s = std::string_view(reinterpret_cast<const char*>(sqlite3_column_text(stmt_, i)),
                             static_cast<size_t>(sqlite3_column_bytes(stmt_, i)));
      break;
    case SQLITE_BLOB:
      v.type = SqlValue::kBlob;
      break;
    default:
      break;
  }
  return v;
}

namespace {

// Process-wide SQLite settings, before the library's first use. Memory
// statistics put a global mutex and counters around every allocation, which
// the sorts and temporary tables of standard-library modules make by the
// million; Fathom never reads those statistics. A library another component
// already initialised keeps its settings (sqlite3_config then refuses).
void ConfigureSqliteOnce() {
  static std::once_flag once;
  std::call_once(once, [] { (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}

}  // namespace

SqlEngine::SqlEngine(TraceStorage* storage) : storage_(storage) {}

SqlEngine::~SqlEngine() {
  perfetto_sql_.reset();
  if (db_) sqlite3_close(db_);
}

Status SqlEngine::Init() {
  ConfigureSqliteOnce();
  // NOMUTEX: only one thread at a time uses a connection (a session's query
  // lane owns it), so SQLite's per-connection mutex is pure cost.
  constexpr int kOpenFlags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(":memory:", &db_, kOpenFlags, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot open SQLite");
  if (Status st = RegisterRuntimeTableModule(db_, &runtime_tables_); !st.ok()) return st;
  perfetto_sql_ = std::make_unique<psql::PerfettoSqlEngine>(db_, &packages_, &runtime_tables_);
  // The standard library from the environment; one that is not a folder is
  // ignored here (INCLUDE then says how to point Fathom at the library).
  if (const char* stdlib = std::getenv("FATHOM_STDLIB"); stdlib && *stdlib)
    (void)packages_.SetStdlib(stdlib);
  for (Table* t : storage_->AllTables()) {
    // A storage table whose SQL name is a view (kViewedTables) is served
    // under an internal name for that view to read.
    std::string name;
    for (const char* viewed : kViewedTables)
      if (t->name() == viewed) name = std::string("__intrinsic_") + viewed;
    Status st = RegisterTableVtab(db_, storage_, t, name);
    if (!st.ok()) return st;
  }
  Status st = RegisterSqlFunctions(db_, storage_);
  if (!st.ok()) return st;
  st = RegisterFlamegraphFunction(db_, storage_);
  if (!st.ok()) return st;
  char* err = nullptr;
  if (sqlite3_exec(db_, kSqlViews, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = std::string("cannot create views: ") + (err ? err : "");
    sqlite3_free(err);
    return ErrorStatus(msg);
  }
  // The prelude's functions read the views (slice), so they come last.
  st = psql::RegisterPrelude(db_, perfetto_sql_.get());
  if (!st.ok()) return st;
  st = psql::RegisterStdlibObjects(db_, &packages_);
  if (!st.ok()) return st;
  st = psql::RegisterAbsentTables(db_);
  if (!st.ok()) return st;
  st = psql::RegisterTableInfo(db_);
  if (!st.ok()) return st;
  return psql::RegisterSpanJoin(db_);
}

void SqlEngine::Interrupt() {
  if (db_) sqlite3_interrupt(db_);
}

std::unique_ptr<QueryIterator> SqlEngine::Query(std::string sql) {
  return std::make_unique<QueryIterator>(db_, perfetto_sql_.get(), std::move(sql));
}

}  // namespace fathom
