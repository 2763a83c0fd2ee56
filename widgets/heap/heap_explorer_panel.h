// The heap explorer panel (a tab beside the flamegraph): for one Java heap
// dump, the class histogram (by class or package) over the selected class's
// instances, the dominator tree, duplicates, bitmaps and the leak filter,
// with an object inspector (fields, referrers, path from a GC root) on the
// right. The dump is analysed once on the session's query lane (core/heap),
// then, for an HPROF file, its contents are read again there (duplicates,
// bitmaps, Activity leaks); both show their progress and stop on Cancel.
// Short questions (instances, an object's details, a bitmap's pixels) run on
// the view lane, so they do not wait behind the contents pass. Tables read
// the immutable analysis, so nothing blocks the UI thread.
#pragma once

#include <QDateTime>
#include <QWidget>
#include <atomic>
#include <memory>
#include <vector>

#include "core/heap/heap_analysis.h"
#include "core/heap/heap_contents.h"
#include "widgets/common/trace_session.h"
#include "widgets/heap/heap_models.h"

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QTimer;
class QTableView;
class QTreeView;
class QSortFilterProxyModel;

namespace fathom::gui {

class BitmapPreview;
class BitmapsModel;
class DeltaModel;
class DominatorModel;

class HeapExplorerPanel : public QWidget {
  Q_OBJECT
 public:
  explicit HeapExplorerPanel(TraceSession* session, QWidget* parent = nullptr);

  // Loads the dump list, then analyses the first dump (after a trace loaded).
  void refresh();
  void showDump(int index);
  void setGrouping(heap::Grouping grouping);
  // Compares the shown dump with dumps()[index] as the baseline (Changes
  // tab); -1 ends the comparison.
  void compareWith(int index);
  // Shows the instances of histogram row `row` (in the model's order).
  void selectHistogramRow(int row);
  // Shows an object (local index) in the inspector.
  void inspect(uint32_t object);
  // Shows bitmap row `row` (in the model's order) as an image, or why not.
  void showBitmap(int row);
  // Stops the running analysis or contents pass; the views say so, and
  // the button beside the progress bar starts it again.
  void cancelAnalysis();

  enum class Phase { kIdle, kAnalysing, kContents, kCancelled };
  Phase phase() const { return phase_; }
  // For tests and scripting.
  bool isBusy() const { return pending_ > 0; }
  const std::vector<heap::HeapDumpId>& dumps() const { return dumps_; }
  HeapDumpViewPtr dumpView() const { return view_; }
  QTableView* histogramView() const { return histogram_view_; }
  QTableView* instancesView() const { return instances_view_; }
  QTreeView* dominatorView() const { return dominator_view_; }
  QTableView* duplicatesView() const { return duplicates_view_; }
  QTableView* leaksView() const { return leaks_view_; }
  QTableView* bitmapsView() const { return bitmaps_view_; }
  BitmapsModel* bitmapsModel() const { return bitmaps_; }
  BitmapPreview* bitmapPreview() const { return bitmap_preview_; }
  QPushButton* cancelButton() const { return cancel_button_; }
  QProgressBar* progressBar() const { return progress_; }
  QString statusText() const;
  QTabWidget* views() const { return tabs_; }
  QTabWidget* inspectorTabs() const { return inspector_tabs_; }
  HistogramModel* histogramModel() const { return histogram_; }
  ObjectListModel* instancesModel() const { return instances_; }
  ObjectListModel* fieldsModel() const { return fields_; }
  ObjectListModel* referrersModel() const { return referrers_; }
  ObjectListModel* pathModel() const { return path_; }
  ObjectListModel* leaksModel() const { return leaks_; }
  DuplicatesModel* duplicatesModel() const { return duplicates_; }
  DominatorModel* dominatorModel() const { return dominators_; }
  DeltaModel* deltaModel() const { return deltas_; }
  uint32_t inspected() const { return inspected_; }
  // Why duplicates and Activity leaks could not be found (empty when the
  // dump's contents were read).
  QString contentsNote() const { return contents_note_; }

 signals:
  void dumpShown();      // the analysis and the views are ready
  void contentsShown();  // duplicates, bitmaps and leaks are ready (or say why not)
  void bitmapShown();
  void analysisCancelled();
  void objectInspected(quint32 object);
  void hasDumpsChanged(bool any);

 private:
  void buildUi();
  void wire();
  QTableView* makeTable(QAbstractItemModel* model, QSortFilterProxyModel** proxy);
  void loadHistogram();
  void loadSideViews();
  void loadDeltas();
  void showCopies(int row);
  void setStatus(const QString& text);
  void setPhase(Phase phase);
  void updateProgress();
  // Why the dump's file cannot be read again for its contents, or empty.
  QString fileProblem() const;
  // Runs `work` on the query lane and `done` here, counting it as pending.
  template <typename R>
  void run(std::function<R(Core&)> work, std::function<void(R)> done);
  // The same on the view lane (short reads that must not wait).
  template <typename R>
  void runView(std::function<R(Core&)> work, std::function<void(R)> done);

  TraceSession* session_;
  std::vector<heap::HeapDumpId> dumps_;
  HeapDumpViewPtr view_;
  std::shared_ptr<const heap::HeapAnalysis> baseline_;  // the Changes tab's, or null
  heap::Grouping grouping_ = heap::Grouping::kClass;
  uint32_t inspected_ = heap::kNoObject;
  int pending_ = 0;
  QString contents_note_;
  int generation_ = 0;  // bumped per dump: late answers for another dump are dropped
  Phase phase_ = Phase::kIdle;
  int shown_index_ = -1;
  // Shared with the running job: set to stop it; its step and percent.
  std::shared_ptr<std::atomic<bool>> cancel_;
  std::shared_ptr<std::atomic<int>> step_, percent_;
  std::shared_ptr<const heap::HeapContents> contents_;
  // The file as it was when loaded: a later change means its contents no
  // longer match the tables.
  qint64 file_size_ = -1;
  QDateTime file_time_;

  QComboBox* dump_combo_ = nullptr;
  QComboBox* group_combo_ = nullptr;
  QComboBox* compare_combo_ = nullptr;  // item 0: no comparison; item i: dumps_[i - 1]
  QLabel* status_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_button_ = nullptr;
  QTimer* progress_timer_ = nullptr;
  QTableView* bitmaps_view_ = nullptr;
  BitmapsModel* bitmaps_ = nullptr;
  BitmapPreview* bitmap_preview_ = nullptr;
  QLabel* inspector_title_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  QTabWidget* inspector_tabs_ = nullptr;
  QTableView* histogram_view_ = nullptr;
  QTableView* instances_view_ = nullptr;
  QTreeView* dominator_view_ = nullptr;
  QTableView* duplicates_view_ = nullptr;
  QTableView* copies_view_ = nullptr;
  QTableView* leaks_view_ = nullptr;
  QSortFilterProxyModel* histogram_proxy_ = nullptr;
  QSortFilterProxyModel* duplicates_proxy_ = nullptr;
  HistogramModel* histogram_ = nullptr;
  ObjectListModel* instances_ = nullptr;
  ObjectListModel* fields_ = nullptr;
  ObjectListModel* referrers_ = nullptr;
  ObjectListModel* path_ = nullptr;
  ObjectListModel* copies_ = nullptr;
  ObjectListModel* leaks_ = nullptr;
  DuplicatesModel* duplicates_ = nullptr;
  DominatorModel* dominators_ = nullptr;
  DeltaModel* deltas_ = nullptr;
};

// Jobs post their result to the GUI thread; pending_ counts them for isBusy().
template <typename R>
void HeapExplorerPanel::run(std::function<R(Core&)> work, std::function<void(R)> done) {
  ++pending_;
  session_->query<R>(std::move(work), this, [this, done = std::move(done)](R r) {
    --pending_;
    done(std::move(r));
  });
}

template <typename R>
void HeapExplorerPanel::runView(std::function<R(Core&)> work, std::function<void(R)> done) {
  ++pending_;
  session_->view<R>(std::move(work), this, [this, done = std::move(done)](R r) {
    --pending_;
    done(std::move(r));
  });
}

}  // namespace fathom::gui
