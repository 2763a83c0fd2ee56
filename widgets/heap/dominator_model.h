// The dominator tree of a dump as a lazy tree model: an index's internal id
// is its object (local index); children come straight from the analysis'
// CSR lists (largest retained size first), so expanding a node with a
// million children costs nothing until rows are painted.
#pragma once

#include <QAbstractItemModel>
#include <vector>

#include "widgets/heap/heap_models.h"

namespace fathom::gui {

class DominatorModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum Column { kObject, kRetained, kShare, kCount, kShallow, kColumns };
  using QAbstractItemModel::QAbstractItemModel;
  // pos_in_parent: per object, its row among its dominator-tree siblings
  // (computed with the view, on the worker).
  void setDump(HeapDumpViewPtr view, std::shared_ptr<const std::vector<uint32_t>> pos_in_parent);
  uint32_t objectAt(const QModelIndex& index) const;
  // The index of an object (its ancestors are not expanded by this).
  QModelIndex indexOf(uint32_t object) const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex&) const override { return kColumns; }
  bool hasChildren(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  HeapDumpViewPtr view_;
  std::shared_ptr<const std::vector<uint32_t>> pos_;
};

// Per object, its position among its dominator-tree siblings.
std::vector<uint32_t> SiblingPositions(const heap::HeapAnalysis& a);

}  // namespace fathom::gui
