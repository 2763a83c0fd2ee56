// Table models of the heap explorer. Each holds rows computed on a worker
// (class names resolved there too), so data() only indexes arrays.
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <memory>
#include <vector>

#include "core/heap/heap_duplicates.h"
#include "core/heap/heap_queries.h"

namespace fathom::gui {

// One analysed dump as the views read it: the core's arrays and the class
// names (per heap_graph_class row).
struct HeapDumpView {
  std::shared_ptr<const heap::HeapAnalysis> analysis;
  std::vector<QString> class_names;
  QString label(uint32_t v) const;  // "com.example.Foo @123"
  QString className(uint32_t v) const;
};
using HeapDumpViewPtr = std::shared_ptr<const HeapDumpView>;

// The role that sorts a cell by its number rather than its text.
inline constexpr int kSortRole = Qt::UserRole + 1;
// The role that gives a row's object (local index) as quint32, if any.
inline constexpr int kObjectRole = Qt::UserRole + 2;

class HistogramModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kName, kCount, kShallow, kRetained, kColumns };
  using QAbstractTableModel::QAbstractTableModel;
  void setRows(std::vector<heap::HistogramRow> rows, bool by_package);
  const heap::HistogramRow* rowAt(int r) const;
  int rowCount(const QModelIndex& p = {}) const override {
    return p.isValid() ? 0 : int(rows_.size());
  }
  int columnCount(const QModelIndex& p = {}) const override { return p.isValid() ? 0 : kColumns; }
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  std::vector<heap::HistogramRow> rows_;
  bool by_package_ = false;
};

// A list of objects with an optional leading text column (a field name, a
// leak reason): instances, fields, referrers, path steps, copies, leaks.
class ObjectListModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  struct Row {
    QString text;
    uint32_t object = heap::kNoObject;
  };
  enum Column { kText, kObject, kShallow, kRetained, kDepth, kColumns };
  ObjectListModel(QString text_header, QObject* parent = nullptr)
      : QAbstractTableModel(parent), text_header_(std::move(text_header)) {}
  void setRows(HeapDumpViewPtr view, std::vector<Row> rows);
  uint32_t objectAt(int r) const;
  int rowCount(const QModelIndex& p = {}) const override {
    return p.isValid() ? 0 : int(rows_.size());
  }
  int columnCount(const QModelIndex& p = {}) const override { return p.isValid() ? 0 : kColumns; }
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  QString text_header_;
  HeapDumpViewPtr view_;
  std::vector<Row> rows_;
};

class DuplicatesModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kKind, kText, kClass, kCopies, kEach, kWasted, kColumns };
  using QAbstractTableModel::QAbstractTableModel;
  void setRows(HeapDumpViewPtr view, std::vector<heap::DuplicateGroup> rows);
  const heap::DuplicateGroup* rowAt(int r) const;
  int rowCount(const QModelIndex& p = {}) const override {
    return p.isValid() ? 0 : int(rows_.size());
  }
  int columnCount(const QModelIndex& p = {}) const override { return p.isValid() ? 0 : kColumns; }
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  HeapDumpViewPtr view_;
  std::vector<heap::DuplicateGroup> rows_;
};

}  // namespace fathom::gui
