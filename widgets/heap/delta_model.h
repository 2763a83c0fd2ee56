// The class histogram change between two dumps of one trace (Changes tab):
// count, shallow and retained size in the baseline, in the shown dump, and
// the differences. Rows come from core/heap/heap_diff.h, made on a worker.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "core/heap/heap_diff.h"

namespace fathom::gui {

class DeltaModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kName, kCountDelta, kRetainedDelta, kShallowDelta, kCount, kRetained, kColumns };
  using QAbstractTableModel::QAbstractTableModel;
  void setRows(std::vector<heap::HistogramDelta> rows, bool by_package);
  const heap::HistogramDelta* rowAt(int r) const;
  int rowCount(const QModelIndex& p = {}) const override {
    return p.isValid() ? 0 : int(rows_.size());
  }
  int columnCount(const QModelIndex& p = {}) const override { return p.isValid() ? 0 : kColumns; }
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  std::vector<heap::HistogramDelta> rows_;
  bool by_package_ = false;
};

}  // namespace fathom::gui
