#include "core/sql/sql_engine.h"

#include <sqlite3.h>

#include "core/sql/flamegraph_vtab.h"
#include "core/sql/sql_functions.h"
#include "core/sql/sql_views.h"
#include "core/sql/table_vtab.h"

namespace fathom {

QueryIterator::QueryIterator(sqlite3* db, std::string sql) : db_(db), sql_(std::move(sql)) {}

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
  while (offset_ < sql_.size()) {
    const char* start = sql_.c_str() + offset_;
    const char* tail = nullptr;
    stmt_start_ = offset_;
    int rc = sqlite3_prepare_v2(db_, start, static_cast<int>(sql_.size() - offset_), &stmt_, &tail);
    offset_ = static_cast<size_t>(tail - sql_.c_str());
    if (rc != SQLITE_OK) {
      SetError();
      stmt_ = nullptr;
      return false;
    }
    if (!stmt_) continue;  // whitespace or comment only
    return true;
  }
  return false;
}

bool QueryIterator::HasMoreStatements() const {
  size_t i = offset_;
  while (i < sql_.size()) {
    const char c = sql_[i];
    if (c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      ++i;
    } else if (sql_.compare(i, 2, "--") == 0) {
      i = sql_.find('\n', i);
      if (i == std::string::npos) return false;
    } else if (sql_.compare(i, 2, "/*") == 0) {
      i = sql_.find("*/", i + 2);
      if (i == std::string::npos) return false;
      i += 2;
    } else {
      return true;
    }
  }
  return false;
}

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

SqlEngine::SqlEngine(TraceStorage* storage) : storage_(storage) {}

SqlEngine::~SqlEngine() {
  if (db_) sqlite3_close(db_);
}

Status SqlEngine::Init() {
  if (sqlite3_open(":memory:", &db_) != SQLITE_OK) return ErrorStatus("cannot open SQLite");
  for (Table* t : storage_->AllTables()) {
    Status st = RegisterTableVtab(db_, storage_, t);
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
  return Status::Ok();
}

void SqlEngine::Interrupt() {
  if (db_) sqlite3_interrupt(db_);
}

std::unique_ptr<QueryIterator> SqlEngine::Query(std::string sql) {
  return std::make_unique<QueryIterator>(db_, std::move(sql));
}

}  // namespace fathom
