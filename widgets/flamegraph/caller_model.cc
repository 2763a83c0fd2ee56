#include "widgets/flamegraph/caller_model.h"

#include "widgets/common/format.h"

namespace fathom::gui {

CallerModel::CallerModel(QObject* parent) : QAbstractTableModel(parent) {}

void CallerModel::setRows(std::vector<CallerRow> rows, double wholeTotal, FlameTree::Unit unit) {
  beginResetModel();
  rows_ = std::move(rows);
  whole_ = wholeTotal;
  unit_ = unit;
  endResetModel();
}

int CallerModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(rows_.size());
}

int CallerModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant CallerModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= int(rows_.size())) return {};
  const CallerRow& r = rows_[size_t(index.row())];
  const double pct = whole_ != 0 ? 100.0 * r.value / whole_ : 0;
  if (role == kValueRole) return index.column() == kPercent ? pct : r.value;
  if (role == Qt::TextAlignmentRole)
    return index.column() >= kValue ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
  if (role == Qt::ToolTipRole) return r.name + QLatin1Char('\n') + r.library;
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kFunction:
      return r.name;
    case kLibrary:
      return r.library.section(QLatin1Char('/'), -1);
    case kValue:
      return unit_ == FlameTree::Unit::kBytes ? formatBytes(r.value)
                                              : formatCount(int64_t(r.value));
    case kPercent:
      return QString::number(pct, 'f', 1) + QStringLiteral(" %");
  }
  return {};
}

QVariant CallerModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kFunction:
      return tr("Function");
    case kLibrary:
      return tr("Library");
    case kValue:
      return tr("Total");
    case kPercent:
      return tr("%");
  }
  return {};
}

}  // namespace fathom::gui
