// Rows of a query result in compact pages, with a memory budget: pages past
// the budget are written once to a temporary spill file and read back when a
// view scrolls to them. So a million-row result costs a few MB of RAM (one
// small record per page) however long it is.
//
// A page blob is [uint32 rows][uint32 row offsets...][cells]; a cell is a
// tag byte (CellType) then int64 / double / uint32 length + UTF-8 bytes.
// Blobs never change once built, so spilling needs no write-back.
// Thread-safe: the UI reads cells while a CSV export reads whole pages.
#pragma once

#include <QByteArray>
#include <QMutex>
#include <QTemporaryFile>
#include <QVariant>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/sql/sql_engine.h"

namespace fathom::gui {

enum class CellType : uint8_t { kNull = 0, kInt = 1, kDouble = 2, kString = 3, kBlob = 4 };

// Builds one page blob on the worker, row by row from a QueryIterator.
class PageBuilder {
 public:
  PageBuilder();
  void AddRow(const QueryIterator& it, int columns);
  int rows() const { return static_cast<int>(offsets_.size()); }
  size_t bytes() const { return cells_.size(); }
  QByteArray Finish();

 private:
  std::vector<uint32_t> offsets_;
  QByteArray cells_;
};

// A read-only view of one page blob.
class PageView {
 public:
  explicit PageView(const QByteArray& blob) : blob_(blob) {}
  int rows() const;
  // Typed access to cell (row, col) of this page; columns must be the
  // result's column count.
  CellType Cell(int row, int col, int64_t* i, double* d, QByteArray* s) const;

 private:
  const QByteArray& blob_;
};

class ResultStore {
 public:
  explicit ResultStore(qint64 memory_budget);
  ~ResultStore();

  void setColumns(int n) { columns_ = n; }
  int columns() const { return columns_; }
  // Appends a page; may spill older pages to stay inside the budget.
  void append(QByteArray blob, int rows);
  qint64 rows() const;
  // Cell value for display/editing: null QVariant, qlonglong, double,
  // QString, or QByteArray for blobs.
  QVariant value(qint64 row, int col);
  CellType type(qint64 row, int col);
  // Calls fn(page blob) for every page in order (used by the CSV export).
  // Returns false if a spilled page could not be read back.
  bool forEachPage(const std::function<bool(const QByteArray&)>& fn);

  qint64 residentBytes() const;
  qint64 spilledBytes() const;
  void setMemoryBudget(qint64 bytes);

 private:
  struct Page {
    qint64 first_row = 0;
    int rows = 0;
    QByteArray blob;  // empty when not resident
    qint64 spill_offset = -1;
    qint64 size = 0;
    quint64 last_use = 0;
  };
  // Both need mu_ held.
  bool ensureResident(Page& p);
  void evictLocked(const Page* keep);
  int pageOf(qint64 row) const;

  mutable QMutex mu_;
  std::vector<Page> pages_;
  int columns_ = 0;
  qint64 rows_ = 0;
  qint64 resident_ = 0;
  qint64 spilled_ = 0;
  qint64 budget_;
  quint64 clock_ = 0;
  std::unique_ptr<QTemporaryFile> spill_;
};

}  // namespace fathom::gui
