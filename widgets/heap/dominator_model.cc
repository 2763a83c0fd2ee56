#include "widgets/heap/dominator_model.h"

#include "widgets/common/format.h"

namespace fathom::gui {

std::vector<uint32_t> SiblingPositions(const heap::HeapAnalysis& a) {
  std::vector<uint32_t> pos(a.size(), 0);
  for (uint32_t p = 0; p <= a.size(); ++p) {
    auto kids = a.Children(p == a.size() ? heap::kVirtualRoot : p);
    for (uint32_t k = 0; k < kids.size(); ++k) pos[kids[k]] = k;
  }
  return pos;
}

void DominatorModel::setDump(HeapDumpViewPtr view,
                             std::shared_ptr<const std::vector<uint32_t>> pos_in_parent) {
  beginResetModel();
  view_ = std::move(view);
  pos_ = std::move(pos_in_parent);
  endResetModel();
}

uint32_t DominatorModel::objectAt(const QModelIndex& index) const {
  return index.isValid() ? uint32_t(index.internalId()) : heap::kVirtualRoot;
}

QModelIndex DominatorModel::indexOf(uint32_t object) const {
  if (!view_ || object >= view_->analysis->size() || !view_->analysis->reachable(object)) return {};
  return createIndex(int((*pos_)[object]), 0, quintptr(object));
}

QModelIndex DominatorModel::index(int row, int column, const QModelIndex& parent) const {
  if (!view_ || row < 0 || column < 0 || column >= kColumns) return {};
  auto kids = view_->analysis->Children(objectAt(parent));
  if (size_t(row) >= kids.size()) return {};
  return createIndex(row, column, quintptr(kids[size_t(row)]));
}

QModelIndex DominatorModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || !view_) return {};
  const uint32_t up = view_->analysis->idom[uint32_t(child.internalId())];
  if (up >= view_->analysis->size()) return {};  // the virtual root
  return createIndex(int((*pos_)[up]), 0, quintptr(up));
}

int DominatorModel::rowCount(const QModelIndex& parent) const {
  if (!view_ || (parent.isValid() && parent.column() != 0)) return 0;
  return int(view_->analysis->Children(objectAt(parent)).size());
}

bool DominatorModel::hasChildren(const QModelIndex& parent) const { return rowCount(parent) > 0; }

QVariant DominatorModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !view_) return {};
  const uint32_t v = objectAt(index);
  const heap::HeapAnalysis& a = *view_->analysis;
  if (role == kObjectRole) return QVariant::fromValue<quint32>(v);
  const bool text = role == Qt::DisplayRole;
  if (role == Qt::TextAlignmentRole && index.column() != kObject)
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (!text && role != Qt::ToolTipRole) return {};
  switch (index.column()) {
    case kObject:
      return a.is_root[v] ? view_->label(v) + tr("  [GC root]") : view_->label(v);
    case kRetained:
      return text ? formatBytes(double(a.retained_size[v])) : formatCount(a.retained_size[v]);
    case kShare:
      return a.total_reachable_size ? QString::number(100.0 * double(a.retained_size[v]) /
                                                          double(a.total_reachable_size),
                                                      'f', 2) +
                                          QLatin1Char('%')
                                    : QString();
    case kCount:
      return formatCount(a.retained_count[v]);
    case kShallow:
      return formatBytes(double(a.self_size[v]));
  }
  return {};
}

QVariant DominatorModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kObject:
      return tr("Object");
    case kRetained:
      return tr("Retained size");
    case kShare:
      return tr("Of heap");
    case kCount:
      return tr("Objects retained");
    case kShallow:
      return tr("Shallow size");
  }
  return {};
}

}  // namespace fathom::gui
