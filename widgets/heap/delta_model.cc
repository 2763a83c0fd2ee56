#include "widgets/heap/delta_model.h"

#include <QColor>

#include "widgets/common/format.h"
#include "widgets/heap/heap_models.h"

namespace fathom::gui {
namespace {

QString signedText(int64_t v, bool bytes) {
  const QString mag = bytes ? formatBytes(double(v < 0 ? -v : v)) : formatCount(v < 0 ? -v : v);
  return v > 0 ? QStringLiteral("+") + mag : v < 0 ? QStringLiteral("−") + mag : mag;
}

}  // namespace

void DeltaModel::setRows(std::vector<heap::HistogramDelta> rows, bool by_package) {
  beginResetModel();
  rows_ = std::move(rows);
  by_package_ = by_package;
  endResetModel();
}

const heap::HistogramDelta* DeltaModel::rowAt(int r) const {
  return r >= 0 && r < int(rows_.size()) ? &rows_[size_t(r)] : nullptr;
}

QVariant DeltaModel::data(const QModelIndex& index, int role) const {
  const heap::HistogramDelta* d = rowAt(index.row());
  if (!d) return {};
  const int c = index.column();
  if (c == kName)
    return role == Qt::DisplayRole || role == kSortRole ? QString::fromStdString(d->name)
                                                        : QVariant();
  const int64_t v = c == kCountDelta      ? d->count_delta()
                    : c == kRetainedDelta ? d->retained_delta()
                    : c == kShallowDelta  ? d->shallow_delta()
                    : c == kCount         ? d->count[1]
                                          : d->retained_size[1];
  const bool bytes = c != kCountDelta && c != kCount;
  switch (role) {
    case kSortRole:
      return QVariant::fromValue<qlonglong>(v);
    case Qt::DisplayRole:
      return c == kCount      ? formatCount(v)
             : c == kRetained ? formatBytes(double(v))
                              : signedText(v, bytes);
    case Qt::TextAlignmentRole:
      return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ForegroundRole:
      // Growth is what a memory engineer hunts: red; shrinking green.
      if (c == kCount || c == kRetained || v == 0) return {};
      return v > 0 ? QColor(0xc6, 0x28, 0x28) : QColor(0x2e, 0x7d, 0x32);
  }
  return {};
}

QVariant DeltaModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kName:
      return by_package_ ? tr("Package") : tr("Class");
    case kCountDelta:
      return tr("Δ Count");
    case kRetainedDelta:
      return tr("Δ Retained");
    case kShallowDelta:
      return tr("Δ Shallow");
    case kCount:
      return tr("Count");
    case kRetained:
      return tr("Retained");
  }
  return {};
}

}  // namespace fathom::gui
