#include "widgets/heap/heap_explorer_panel.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTreeView>
#include <optional>

#include "core/heap/heap_diff.h"
#include "core/heap/heap_duplicates.h"
#include "core/import/hprof/hprof_contents.h"
#include "core/storage/trace_storage.h"
#include "widgets/common/format.h"
#include "widgets/heap/bitmap_view.h"
#include "widgets/heap/delta_model.h"
#include "widgets/heap/dominator_model.h"

namespace fathom::gui {
namespace {

// The analysis with what the views need besides it, all made on the worker.
struct Prepared {
  HeapDumpViewPtr view;
  std::shared_ptr<const std::vector<uint32_t>> positions;
  QString error;
};

Prepared prepare(Core& c, heap::HeapDumpId id, const std::atomic<bool>* cancel,
                 std::atomic<int>* step) {
  Prepared p;
  auto analysis = heap::AnalyzeHeapDump(c.storage(), id, cancel, step);
  if (!analysis.ok()) {
    p.error = QString::fromStdString(analysis.status().message());
    return p;
  }
  auto view = std::make_shared<HeapDumpView>();
  view->analysis = *analysis;
  const uint32_t classes = c.storage().profile.heap_graph_class.row_count();
  view->class_names.reserve(classes);
  for (uint32_t k = 0; k < classes; ++k)
    view->class_names.push_back(QString::fromStdString(heap::ClassName(c.storage(), k)));
  p.positions = std::make_shared<const std::vector<uint32_t>>(SiblingPositions(**analysis));
  p.view = std::move(view);
  return p;
}

std::vector<ObjectListModel::Row> rowsOf(const std::vector<heap::RefRow>& refs) {
  std::vector<ObjectListModel::Row> out;
  out.reserve(refs.size());
  for (const heap::RefRow& r : refs) out.push_back({QString::fromStdString(r.field), r.other});
  return out;
}

}  // namespace

HeapExplorerPanel::HeapExplorerPanel(TraceSession* session, QWidget* parent)
    : QWidget(parent), session_(session) {
  buildUi();
  wire();
  connect(session_, &TraceSession::loaded, this, &HeapExplorerPanel::refresh);
  if (session_->isLoaded()) refresh();
}

void HeapExplorerPanel::wire() {
  connect(dump_combo_, &QComboBox::activated, this, &HeapExplorerPanel::showDump);
  connect(compare_combo_, &QComboBox::activated, this, [this](int i) { compareWith(i - 1); });
  connect(group_combo_, &QComboBox::activated, this, [this](int i) {
    setGrouping(i == 1 ? heap::Grouping::kPackage : heap::Grouping::kClass);
  });
  connect(histogram_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& now) {
            if (now.isValid()) selectHistogramRow(histogram_proxy_->mapToSource(now).row());
          });
  // Any object row anywhere opens in the inspector.
  auto follow = [this](QAbstractItemView* v) {
    connect(v->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& now) {
              QVariant o = now.siblingAtColumn(0).data(kObjectRole);
              if (o.isValid() && o.toUInt() != heap::kNoObject) inspect(o.toUInt());
            });
  };
  follow(instances_view_);
  follow(dominator_view_);
  follow(copies_view_);
  follow(leaks_view_);
  // In the inspector, a double click walks to the other object.
  for (int t = 0; t < inspector_tabs_->count(); ++t) {
    auto* v = static_cast<QTableView*>(inspector_tabs_->widget(t));
    connect(v, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex& i) {
      QVariant o = i.siblingAtColumn(0).data(kObjectRole);
      if (o.isValid() && o.toUInt() != heap::kNoObject) inspect(o.toUInt());
    });
  }
  connect(duplicates_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& now) {
            if (now.isValid()) showCopies(duplicates_proxy_->mapToSource(now).row());
          });
  connect(bitmaps_view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& now) {
            if (!now.isValid()) return;
            auto* proxy = static_cast<QSortFilterProxyModel*>(bitmaps_view_->model());
            showBitmap(proxy->mapToSource(now).row());
            QVariant o = now.siblingAtColumn(0).data(kObjectRole);
            if (o.isValid()) inspect(o.toUInt());
          });
  connect(cancel_button_, &QPushButton::clicked, this, [this] {
    if (phase_ == Phase::kCancelled)
      showDump(shown_index_ >= 0 ? shown_index_ : 0);
    else
      cancelAnalysis();
  });
}

void HeapExplorerPanel::setStatus(const QString& text) {
  status_->setText(text);
  status_->setToolTip(text);
}

void HeapExplorerPanel::refresh() {
  const QFileInfo file(session_->path());
  file_size_ = file.exists() ? file.size() : -1;
  file_time_ = file.lastModified();
  run<std::vector<heap::HeapDumpId>>(
      [](Core& c) { return heap::ListHeapDumps(c.storage()); },
      [this](std::vector<heap::HeapDumpId> dumps) {
        dumps_ = std::move(dumps);
        dump_combo_->clear();
        compare_combo_->clear();
        compare_combo_->addItem(tr("(nothing)"));
        for (const auto& d : dumps_) {
          dump_combo_->addItem(tr("upid %1 at %2").arg(d.upid).arg(d.ts));
          compare_combo_->addItem(tr("upid %1 at %2").arg(d.upid).arg(d.ts));
        }
        compare_combo_->setEnabled(dumps_.size() > 1);
        emit hasDumpsChanged(!dumps_.empty());
        if (dumps_.empty())
          setStatus(tr("No Java heap dump in this trace."));
        else
          showDump(0);
      });
}

void HeapExplorerPanel::showDump(int index) {
  if (index < 0 || size_t(index) >= dumps_.size()) return;
  dump_combo_->setCurrentIndex(index);
  shown_index_ = index;
  const int gen = ++generation_;
  if (cancel_) cancel_->store(true);  // a previous dump's jobs stop
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  step_ = std::make_shared<std::atomic<int>>(0);
  percent_ = std::make_shared<std::atomic<int>>(0);
  contents_ = nullptr;
  setPhase(Phase::kAnalysing);
  run<Prepared>([id = dumps_[size_t(index)], cancel = cancel_,
                 step = step_](Core& c) { return prepare(c, id, cancel.get(), step.get()); },
                [this, gen](Prepared p) {
                  if (gen != generation_ || phase_ == Phase::kCancelled) return;
                  if (!p.view) {
                    setPhase(Phase::kIdle);
                    setStatus(tr("Cannot analyse this dump: %1").arg(p.error));
                    return;
                  }
                  view_ = p.view;
                  const auto& a = *view_->analysis;
                  setStatus(tr("%1 reachable objects, %2; %3 unreachable")
                                .arg(formatCount(a.reachable_count))
                                .arg(formatBytes(double(a.total_reachable_size)))
                                .arg(formatCount(int64_t(a.size()) - a.reachable_count)));
                  dominators_->setDump(view_, p.positions);
                  instances_->setRows(view_, {});
                  loadHistogram();
                  loadSideViews();
                  loadDeltas();
                });
}

void HeapExplorerPanel::cancelAnalysis() {
  if (phase_ != Phase::kAnalysing && phase_ != Phase::kContents) return;
  if (cancel_) cancel_->store(true);
  const bool contents = phase_ == Phase::kContents;
  setPhase(Phase::kCancelled);
  if (contents) {
    // The analysis stands; only what needs the file's contents is missing.
    setStatus(
        tr("Cancelled reading the dump's contents: no duplicates, bitmap pixels or "
           "Activity leaks."));
  } else {
    view_ = nullptr;
    histogram_->setRows({}, false);
    instances_->setRows(nullptr, {});
    dominators_->setDump(nullptr, nullptr);
    duplicates_->setRows(nullptr, {});
    bitmaps_->setRows(nullptr, {});
    leaks_->setRows(nullptr, {});
    copies_->setRows(nullptr, {});
    for (ObjectListModel* m : {fields_, referrers_, path_}) m->setRows(nullptr, {});
    inspector_title_->setText(tr("Select an object"));
    inspected_ = heap::kNoObject;
    bitmap_preview_->showNote(QString());
    tabs_->setTabText(3, tr("Bitmaps"));
    tabs_->setTabText(4, tr("Leaks"));
    setStatus(tr("Analysis cancelled."));
  }
  emit analysisCancelled();
}

void HeapExplorerPanel::setGrouping(heap::Grouping grouping) {
  grouping_ = grouping;
  group_combo_->setCurrentIndex(grouping == heap::Grouping::kPackage ? 1 : 0);
  instances_->setRows(view_, {});  // they were the old grouping's row's
  loadHistogram();
  loadDeltas();
}

void HeapExplorerPanel::compareWith(int index) {
  compare_combo_->setCurrentIndex(index + 1);
  baseline_ = nullptr;
  deltas_->setRows({}, grouping_ == heap::Grouping::kPackage);
  if (index < 0 || size_t(index) >= dumps_.size()) {
    tabs_->setTabText(5, tr("Changes"));
    return;
  }
  const int gen = generation_;
  run<std::shared_ptr<const heap::HeapAnalysis>>(
      [id = dumps_[size_t(index)]](Core& c) -> std::shared_ptr<const heap::HeapAnalysis> {
        auto a = heap::AnalyzeHeapDump(c.storage(), id, nullptr);
        return a.ok() ? *a : nullptr;
      },
      [this, gen](std::shared_ptr<const heap::HeapAnalysis> a) {
        if (gen != generation_ || !a) return;
        baseline_ = std::move(a);
        tabs_->setTabText(5, tr("Changes since %1").arg(baseline_->dump.ts));
        loadDeltas();
      });
}

void HeapExplorerPanel::loadDeltas() {
  if (!baseline_ || !view_) return;
  const int gen = generation_;
  run<std::vector<heap::HistogramDelta>>(
      [base = baseline_, view = view_, g = grouping_](Core& c) {
        return heap::CompareHistograms(c.storage(), *base, *view->analysis, g);
      },
      [this, gen](std::vector<heap::HistogramDelta> rows) {
        if (gen != generation_) return;
        deltas_->setRows(std::move(rows), grouping_ == heap::Grouping::kPackage);
      });
}

void HeapExplorerPanel::loadHistogram() {
  if (!view_) return;
  const int gen = generation_;
  run<std::vector<heap::HistogramRow>>(
      [view = view_, g = grouping_](Core& c) {
        return heap::ClassHistogram(c.storage(), *view->analysis, g);
      },
      [this, gen](std::vector<heap::HistogramRow> rows) {
        if (gen != generation_) return;
        histogram_->setRows(std::move(rows), grouping_ == heap::Grouping::kPackage);
        histogram_view_->sortByColumn(histogram_view_->horizontalHeader()->sortIndicatorSection(),
                                      histogram_view_->horizontalHeader()->sortIndicatorOrder());
        emit dumpShown();
      });
}

void HeapExplorerPanel::selectHistogramRow(int row) {
  const heap::HistogramRow* r = histogram_->rowAt(row);
  if (!r || !view_) return;
  const int gen = generation_;
  runView<std::vector<uint32_t>>([view = view_, classes = r->classes](
                                     Core&) { return heap::Instances(*view->analysis, classes); },
                                 [this, gen](std::vector<uint32_t> objects) {
                                   if (gen != generation_) return;
                                   std::vector<ObjectListModel::Row> rows;
                                   rows.reserve(objects.size());
                                   for (uint32_t v : objects) rows.push_back({QString(), v});
                                   instances_->setRows(view_, std::move(rows));
                                 });
}

void HeapExplorerPanel::showCopies(int row) {
  const heap::DuplicateGroup* g = duplicates_->rowAt(row);
  if (!g) return;
  std::vector<ObjectListModel::Row> rows;
  for (uint32_t v : g->objects) rows.push_back({QString(), v});
  copies_->setRows(view_, std::move(rows));
}

void HeapExplorerPanel::inspect(uint32_t object) {
  if (!view_ || object >= view_->analysis->size()) return;
  const int gen = generation_;
  runView<heap::ObjectDetails>(
      [view = view_, object](Core& c) {
        return heap::DescribeObject(c.storage(), *view->analysis, object);
      },
      [this, gen](heap::ObjectDetails d) {
        if (gen != generation_) return;
        inspected_ = d.object;
        QString title = QStringLiteral("<b>%1</b>").arg(view_->label(d.object).toHtmlEscaped());
        if (!d.root_type.empty())
          title += tr(" — GC root (%1)").arg(QString::fromStdString(d.root_type));
        if (!d.heap.empty()) title += tr(" — heap %1").arg(QString::fromStdString(d.heap));
        if (d.path.empty()) title += tr(" — unreachable");
        inspector_title_->setText(title);
        fields_->setRows(view_, rowsOf(d.fields));
        referrers_->setRows(view_, rowsOf(d.referrers));
        std::vector<ObjectListModel::Row> path = rowsOf(d.path);
        if (!path.empty()) {  // the first step is the root itself
          const auto& objects = view_->analysis;
          path[0].text = objects->is_root[path[0].object] ? tr("(GC root)") : QString();
        }
        path_->setRows(view_, std::move(path));
        emit objectInspected(d.object);
      });
}

}  // namespace fathom::gui
