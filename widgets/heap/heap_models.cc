#include "widgets/heap/heap_models.h"

#include <QColor>

#include "widgets/common/format.h"

namespace fathom::gui {
namespace {

QVariant Number(int64_t v, int role, bool bytes) {
  if (role == kSortRole) return QVariant::fromValue<qlonglong>(v);
  if (role == Qt::DisplayRole) return bytes ? formatBytes(double(v)) : formatCount(v);
  if (role == Qt::ToolTipRole) return bytes ? formatCount(v) + QStringLiteral(" B") : QVariant();
  if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

}  // namespace

QString HeapDumpView::className(uint32_t v) const {
  const auto& a = *analysis;
  if (v >= a.size()) return QStringLiteral("(outside the dump)");
  return a.cls[v] < class_names.size() ? class_names[a.cls[v]] : QStringLiteral("[unknown class]");
}

QString HeapDumpView::label(uint32_t v) const {
  if (v >= analysis->size()) return className(v);
  return className(v) + QStringLiteral(" @") + QString::number(analysis->rows[v]);
}

// ---- HistogramModel

void HistogramModel::setRows(std::vector<heap::HistogramRow> rows, bool by_package) {
  beginResetModel();
  rows_ = std::move(rows);
  by_package_ = by_package;
  endResetModel();
}

const heap::HistogramRow* HistogramModel::rowAt(int r) const {
  return r >= 0 && r < int(rows_.size()) ? &rows_[size_t(r)] : nullptr;
}

QVariant HistogramModel::data(const QModelIndex& index, int role) const {
  const heap::HistogramRow* r = rowAt(index.row());
  if (!r) return {};
  switch (index.column()) {
    case kName:
      if (role == Qt::DisplayRole || role == kSortRole || role == Qt::ToolTipRole)
        return QString::fromStdString(r->name);
      return {};
    case kCount:
      if (role == Qt::ToolTipRole && r->unreachable_count)
        return tr("%1 reachable, %2 unreachable")
            .arg(formatCount(r->count), formatCount(r->unreachable_count));
      return Number(r->count, role, false);
    case kShallow:
      return Number(r->shallow_size, role, true);
    case kRetained:
      return Number(r->retained_size, role, true);
  }
  return {};
}

QVariant HistogramModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kName:
      return by_package_ ? tr("Package") : tr("Class");
    case kCount:
      return tr("Count");
    case kShallow:
      return tr("Shallow size");
    case kRetained:
      return tr("Retained size");
  }
  return {};
}

// ---- ObjectListModel

void ObjectListModel::setRows(HeapDumpViewPtr view, std::vector<Row> rows) {
  beginResetModel();
  view_ = std::move(view);
  rows_ = std::move(rows);
  endResetModel();
}

uint32_t ObjectListModel::objectAt(int r) const {
  return r >= 0 && r < int(rows_.size()) ? rows_[size_t(r)].object : heap::kNoObject;
}

QVariant ObjectListModel::data(const QModelIndex& index, int role) const {
  if (index.row() < 0 || index.row() >= int(rows_.size()) || !view_) return {};
  const Row& r = rows_[size_t(index.row())];
  if (role == kObjectRole) return QVariant::fromValue<quint32>(r.object);
  const heap::HeapAnalysis& a = *view_->analysis;
  const bool inside = r.object < a.size();
  switch (index.column()) {
    case kText:
      return role == Qt::DisplayRole || role == kSortRole || role == Qt::ToolTipRole ? r.text
                                                                                     : QVariant();
    case kObject:
      if (role == Qt::DisplayRole || role == kSortRole || role == Qt::ToolTipRole)
        return view_->label(r.object);
      if (role == Qt::ForegroundRole && inside && !a.reachable(r.object))
        return QColor(Qt::gray);  // garbage: no path from a root
      return {};
    case kShallow:
      return inside ? Number(a.self_size[r.object], role, true) : QVariant();
    case kRetained:
      return inside ? Number(a.retained_size[r.object], role, true) : QVariant();
    case kDepth:
      return inside && a.reachable(r.object) ? Number(a.depth[r.object], role, false) : QVariant();
  }
  return {};
}

QVariant ObjectListModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kText:
      return text_header_;
    case kObject:
      return tr("Object");
    case kShallow:
      return tr("Shallow");
    case kRetained:
      return tr("Retained");
    case kDepth:
      return tr("Dominator depth");
  }
  return {};
}

// ---- DuplicatesModel

void DuplicatesModel::setRows(HeapDumpViewPtr view, std::vector<heap::DuplicateGroup> rows) {
  beginResetModel();
  view_ = std::move(view);
  rows_ = std::move(rows);
  endResetModel();
}

const heap::DuplicateGroup* DuplicatesModel::rowAt(int r) const {
  return r >= 0 && r < int(rows_.size()) ? &rows_[size_t(r)] : nullptr;
}

QVariant DuplicatesModel::data(const QModelIndex& index, int role) const {
  const heap::DuplicateGroup* g = rowAt(index.row());
  if (!g || !view_) return {};
  auto text = [&](const QString& s) {
    return role == Qt::DisplayRole || role == kSortRole ? QVariant(s) : QVariant();
  };
  switch (index.column()) {
    case kKind:
      return text(g->kind == heap::DuplicateKind::kString   ? tr("String")
                  : g->kind == heap::DuplicateKind::kBitmap ? tr("Bitmap")
                                                            : tr("Array"));
    case kText:
      // Quoted so leading or trailing spaces show; tooltip with the whole text.
      if (g->kind == heap::DuplicateKind::kString &&
          (role == Qt::DisplayRole || role == Qt::ToolTipRole))
        return QStringLiteral("\u201C%1\u201D").arg(QString::fromStdString(g->text));
      return text(QString::fromStdString(g->text));
    case kClass:
      return text(g->cls < view_->class_names.size() ? view_->class_names[g->cls] : QString());
    case kCopies:
      return Number(int64_t(g->objects.size()), role, false);
    case kEach:
      return Number(g->bytes_each, role, true);
    case kWasted:
      return Number(g->wasted, role, true);
  }
  return {};
}

QVariant DuplicatesModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kKind:
      return tr("Kind");
    case kText:
      return tr("Contents");
    case kClass:
      return tr("Class");
    case kCopies:
      return tr("Copies");
    case kEach:
      return tr("Size of one");
    case kWasted:
      return tr("Wasted");
  }
  return {};
}

}  // namespace fathom::gui
