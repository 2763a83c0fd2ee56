// Callers or callees of the selected function as a flat table (function,
// library, value, percent of the whole profile), sorted heaviest first.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "widgets/flamegraph/flame_tree.h"

namespace fathom::gui {

class CallerModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kFunction, kLibrary, kValue, kPercent, kColumnCount };
  // Role returning the value as a double (for sorting proxies and tests).
  static constexpr int kValueRole = Qt::UserRole + 1;

  explicit CallerModel(QObject* parent = nullptr);
  void setRows(std::vector<CallerRow> rows, double wholeTotal, FlameTree::Unit unit);
  const CallerRow& row(int i) const { return rows_[size_t(i)]; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  std::vector<CallerRow> rows_;
  double whole_ = 0;
  FlameTree::Unit unit_ = FlameTree::Unit::kBytes;
};

}  // namespace fathom::gui
