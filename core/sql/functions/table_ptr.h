// Tables passed between SQL functions by pointer, as the standard library's
// modules use them: an intrinsic aggregate or scalar function returns a whole
// table as one pointer value (SQLite's pointer passing), and the table
// function __intrinsic_table_ptr(ptr) reads it back as rows. Its columns are
// the generic c0, c1, ...; `WHERE __intrinsic_table_ptr_bind(c3, 'name')`
// says that c3 is the pointed table's column `name` (unbound columns are
// NULL). The bind calls are consumed by the table itself, so they filter
// nothing.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace fathom {

// A copied SQLite value.
struct SqlCell {
  int type = SQLITE_NULL;
  int64_t i = 0;
  double d = 0;
  std::string s;  // text or blob bytes

  static SqlCell Of(sqlite3_value* v);
  static SqlCell Int(int64_t v) {
    SqlCell c;
    c.type = SQLITE_INTEGER;
    c.i = v;
    return c;
  }
  void Result(sqlite3_context* ctx) const;
  bool operator==(const SqlCell& o) const {
    return type == o.type && i == o.i && d == o.d && s == o.s;
  }
  bool operator<(const SqlCell& o) const;
};

// One column of a PtrTable in column form. Integers, doubles and NULLs take
// 8 bytes (plus one type byte once a value is not an integer); the first text
// or blob turns the column into cells. Results of interval intersections and
// counter intervals run to millions of numeric rows, where a vector of cells
// per row cost ~60 bytes a value and an allocation a row.
class PtrColumn {
 public:
  void AppendInt(int64_t v);
  void AppendInts(const int64_t* v, size_t n);
  void AppendDouble(double d);
  void AppendNull();
  void Append(const SqlCell& c);
  size_t size() const { return cells_mode_ ? cells_.size() : values_.size(); }
  int TypeAt(size_t row) const;
  // Only when TypeAt(row) is SQLITE_INTEGER.
  int64_t IntAt(size_t row) const { return cells_mode_ ? cells_[row].i : values_[row]; }
  SqlCell At(size_t row) const;
  void Result(sqlite3_context* ctx, size_t row) const;
  void Reserve(size_t rows) { values_.reserve(rows); }

 private:
  void MarkType(int type);
  void ToCells();
  std::vector<int64_t> values_;  // an integer, or a double's bits
  std::vector<uint8_t> types_;   // per row once any value is not an integer
  std::vector<SqlCell> cells_;
  bool cells_mode_ = false;
};

// A table held by a pointer value: named columns, in row form (`rows` of
// cells) or, when `columns` is not empty, in column form.
struct PtrTable {
  std::vector<std::string> names;
  std::vector<std::vector<SqlCell>> rows;
  std::vector<PtrColumn> columns;

  size_t RowCount() const { return columns.empty() ? rows.size() : columns[0].size(); }
  // Cell (row, col) in either form; NULL past a short row.
  SqlCell CellAt(size_t row, size_t col) const {
    if (!columns.empty()) return columns[col].At(row);
    return col < rows[row].size() ? rows[row][col] : SqlCell();
  }
};

// The SQLite pointer type of a PtrTable value.
inline constexpr const char* kPtrTableType = "fathom.table";

// The table a SQL value points at, or null.
const PtrTable* PtrTableOf(sqlite3_value* v);

// Returns `table` from a SQL function as a pointer value.
void ResultPtrTable(sqlite3_context* ctx, std::unique_ptr<PtrTable> table);

// Binds `table` (not owned; it must outlive the statement's run) to a
// parameter as a pointer value; returns SQLite's code.
int BindPtrTable(sqlite3_stmt* stmt, int param, const PtrTable* table);

// Registers __intrinsic_table_ptr and __intrinsic_table_ptr_bind.
Status RegisterTablePtr(sqlite3* db);

}  // namespace fathom
