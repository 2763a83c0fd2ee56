// The heap explorer's widgets and their layout (the logic is in
// heap_explorer_panel.cc).
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QTreeView>
#include <QVBoxLayout>

#include "widgets/heap/bitmap_view.h"
#include "widgets/heap/delta_model.h"
#include "widgets/heap/dominator_model.h"
#include "widgets/heap/heap_explorer_panel.h"

namespace fathom::gui {
namespace {

// Sorting by number, not by the formatted text ("9 KiB" < "10 B" otherwise).
QSortFilterProxyModel* sortedProxy(QAbstractItemModel* model, QObject* parent) {
  auto* proxy = new QSortFilterProxyModel(parent);
  proxy->setSourceModel(model);
  proxy->setSortRole(kSortRole);
  return proxy;
}

QWidget* titled(const QString& title, QWidget* body) {
  auto* box = new QWidget;
  auto* l = new QVBoxLayout(box);
  l->setContentsMargins(0, 0, 0, 0);
  l->setSpacing(2);
  auto* label = new QLabel(QStringLiteral("<b>%1</b>").arg(title));
  label->setContentsMargins(4, 2, 0, 0);
  l->addWidget(label);
  l->addWidget(body);
  return box;
}

}  // namespace

QTableView* HeapExplorerPanel::makeTable(QAbstractItemModel* model, QSortFilterProxyModel** proxy) {
  auto* view = new QTableView;
  QAbstractItemModel* shown = model;
  if (proxy) {
    *proxy = sortedProxy(model, this);
    shown = *proxy;
    view->setSortingEnabled(true);
  }
  view->setModel(shown);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view->setWordWrap(false);
  view->setTextElideMode(Qt::ElideMiddle);  // class names differ at their ends
  view->verticalHeader()->hide();
  view->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  view->horizontalHeader()->setStretchLastSection(false);
  view->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  for (int c = 1; c < shown->columnCount(); ++c)
    view->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
  return view;
}

void HeapExplorerPanel::buildUi() {
  histogram_ = new HistogramModel(this);
  instances_ = new ObjectListModel(QString(), this);
  fields_ = new ObjectListModel(tr("Field"), this);
  referrers_ = new ObjectListModel(tr("Field"), this);
  path_ = new ObjectListModel(tr("Through field"), this);
  copies_ = new ObjectListModel(QString(), this);
  leaks_ = new ObjectListModel(tr("Why"), this);
  duplicates_ = new DuplicatesModel(this);
  dominators_ = new DominatorModel(this);
  deltas_ = new DeltaModel(this);

  dump_combo_ = new QComboBox;
  dump_combo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  group_combo_ = new QComboBox;
  group_combo_->addItems({tr("By class"), tr("By package")});
  compare_combo_ = new QComboBox;
  compare_combo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  compare_combo_->setToolTip(tr("Another dump of this trace as the baseline (Changes tab)"));
  status_ = new QLabel;
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  status_->setMinimumWidth(80);
  // A long message (a moved file's path) wraps instead of widening the panel.
  status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  status_->setWordWrap(true);
  progress_ = new QProgressBar;
  progress_->setMaximumWidth(160);
  progress_->setVisible(false);
  cancel_button_ = new QPushButton(tr("Cancel"));
  cancel_button_->setToolTip(tr("Stop analysing this dump (the window stays usable meanwhile)"));
  cancel_button_->setVisible(false);
  progress_timer_ = new QTimer(this);
  progress_timer_->setInterval(100);
  connect(progress_timer_, &QTimer::timeout, this, &HeapExplorerPanel::updateProgress);
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(4, 2, 4, 0);
  bar->addWidget(new QLabel(tr("Heap dump:")));
  bar->addWidget(dump_combo_);
  bar->addWidget(group_combo_);
  bar->addWidget(new QLabel(tr("Compare with:")));
  bar->addWidget(compare_combo_);
  bar->addWidget(progress_);
  bar->addWidget(cancel_button_);
  bar->addWidget(status_, 1);

  histogram_view_ = makeTable(histogram_, &histogram_proxy_);
  histogram_view_->sortByColumn(HistogramModel::kRetained, Qt::DescendingOrder);
  instances_view_ = makeTable(instances_, nullptr);
  instances_view_->hideColumn(ObjectListModel::kText);
  instances_view_->horizontalHeader()->setSectionResizeMode(ObjectListModel::kObject,
                                                            QHeaderView::Stretch);
  auto* classes = new QSplitter(Qt::Vertical);
  classes->addWidget(histogram_view_);
  classes->addWidget(titled(tr("Instances (largest retained first)"), instances_view_));
  classes->setStretchFactor(0, 3);
  classes->setStretchFactor(1, 2);

  dominator_view_ = new QTreeView;
  dominator_view_->setModel(dominators_);
  dominator_view_->setUniformRowHeights(true);
  dominator_view_->setTextElideMode(Qt::ElideMiddle);  // lazy children: no per-row measuring
  dominator_view_->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  dominator_view_->header()->setStretchLastSection(false);
  for (int c = 1; c < DominatorModel::kColumns; ++c)
    dominator_view_->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);

  duplicates_view_ = makeTable(duplicates_, &duplicates_proxy_);
  // The contents (a string's text) is what tells groups apart: it gets the width.
  duplicates_view_->horizontalHeader()->setSectionResizeMode(DuplicatesModel::kKind,
                                                             QHeaderView::ResizeToContents);
  duplicates_view_->horizontalHeader()->setSectionResizeMode(DuplicatesModel::kText,
                                                             QHeaderView::Stretch);
  duplicates_view_->setTextElideMode(Qt::ElideRight);  // a text's start tells most
  duplicates_view_->sortByColumn(DuplicatesModel::kWasted, Qt::DescendingOrder);
  copies_view_ = makeTable(copies_, nullptr);
  copies_view_->hideColumn(ObjectListModel::kText);
  copies_view_->horizontalHeader()->setSectionResizeMode(ObjectListModel::kObject,
                                                         QHeaderView::Stretch);
  auto* dups = new QSplitter(Qt::Vertical);
  dups->addWidget(duplicates_view_);
  dups->addWidget(titled(tr("Copies"), copies_view_));

  bitmaps_ = new BitmapsModel(this);
  QSortFilterProxyModel* bitmaps_proxy = nullptr;
  bitmaps_view_ = makeTable(bitmaps_, &bitmaps_proxy);
  bitmaps_view_->sortByColumn(BitmapsModel::kRetained, Qt::DescendingOrder);
  bitmap_preview_ = new BitmapPreview;
  // The image below the list, so it gets the tab's whole width.
  auto* bitmaps = new QSplitter(Qt::Vertical);
  bitmaps->addWidget(bitmaps_view_);
  bitmaps->addWidget(bitmap_preview_);
  bitmaps->setStretchFactor(0, 2);
  bitmaps->setStretchFactor(1, 3);

  leaks_view_ = makeTable(leaks_, nullptr);
  leaks_view_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  leaks_view_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);

  tabs_ = new QTabWidget;
  tabs_->setDocumentMode(true);
  tabs_->addTab(classes, tr("Classes"));
  tabs_->addTab(dominator_view_, tr("Dominator tree"));
  tabs_->addTab(dups, tr("Duplicates"));
  tabs_->addTab(bitmaps, tr("Bitmaps"));
  tabs_->addTab(leaks_view_, tr("Leaks"));
  QSortFilterProxyModel* delta_proxy = nullptr;
  QTableView* changes = makeTable(deltas_, &delta_proxy);
  changes->sortByColumn(DeltaModel::kRetainedDelta, Qt::DescendingOrder);
  tabs_->addTab(changes, tr("Changes"));

  inspector_title_ = new QLabel(tr("Select an object"));
  inspector_title_->setContentsMargins(4, 2, 4, 2);
  inspector_title_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  inspector_title_->setWordWrap(true);
  inspector_tabs_ = new QTabWidget;
  inspector_tabs_->setDocumentMode(true);
  for (auto [model, title] :
       {std::pair{fields_, tr("Fields")}, std::pair{referrers_, tr("Referrers")},
        std::pair{path_, tr("Path from GC root")}}) {
    QTableView* t = makeTable(model, nullptr);
    // Field names and object labels are both long: they share the width.
    t->horizontalHeader()->setSectionResizeMode(ObjectListModel::kObject, QHeaderView::Stretch);
    t->hideColumn(ObjectListModel::kDepth);
    t->hideColumn(ObjectListModel::kShallow);
    inspector_tabs_->addTab(t, title);
  }
  auto* inspector = new QWidget;
  auto* il = new QVBoxLayout(inspector);
  il->setContentsMargins(0, 0, 0, 0);
  il->setSpacing(0);
  il->addWidget(inspector_title_);
  il->addWidget(inspector_tabs_, 1);

  auto* split = new QSplitter(Qt::Horizontal);
  split->addWidget(tabs_);
  split->addWidget(inspector);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  // The inspector's tables need room for a field name and an object label.
  split->setSizes({600, 420});

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(bar);
  layout->addWidget(split, 1);
}

}  // namespace fathom::gui
