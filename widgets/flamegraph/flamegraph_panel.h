// The flamegraph panel: a toolbar (profile, view, bottom-up, orientation,
// colour, compare, export), search / focus / hide fields, the canvas and a
// side table of callers and callees of the selected frame. Trees are built
// and transformed on the session's query lane; this class only holds results.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>
#include <vector>

#include "widgets/common/trace_session.h"
#include "widgets/flamegraph/flame_source.h"
#include "widgets/flamegraph/flame_tree.h"

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
class QScrollArea;

namespace fathom::gui {

class CallerModel;
class CallerTables;
class FlameView;
class SymbolsController;

class FlamegraphPanel : public QWidget {
  Q_OBJECT
 public:
  explicit FlamegraphPanel(TraceSession* session, QWidget* parent = nullptr);
  ~FlamegraphPanel() override;
  // Opens the dump (upid, ts); kind as TimelineView::heapProfileActivated.
  void showHeapProfile(qint64 upid, qint64 ts, const QString& kind);
  // CPU samples in [t0, t1) on `cpus` (empty: all), or of `utids` when given (any CPU).
  void showCpuSamples(qint64 t0, qint64 t1, const QList<int>& cpus, const QList<int>& utids = {});

  // Everything below is also for tests and scripting.
  void showSource(const FlameSource& source);
  // The largest dump, else the CPU samples of the whole trace.
  void openDefault();
  // One of ViewsOf(source().kind); others are ignored.
  void setView(FlamegraphView view);
  FlamegraphView flamegraphView() const { return view_kind_; }
  void setBottomUp(bool on);
  // Folds directly recursive frames (f -> f -> f) into one.
  void setCollapseRecursion(bool on);
  // Frames below `percent` of the total (|cumulative|) fold into their parent's self value,
  // so the total is unchanged and a graph of 100 k frames stays readable. 0 shows all.
  void setMinShare(double percent);
  double minShare() const { return min_share_; }
  void setIcicle(bool on);
  void setSearch(const QString& regex);
  double matchedShare() const { return matched_share_; }
  void setFocusRegex(const QString& regex);
  void setHideRegex(const QString& regex);
  // Diff against another dump of the same kind; nullopt ends the diff.
  void compareWith(std::optional<FlameSource> base);

  void zoomToNode(int node);
  void resetZoom();
  bool back();
  bool forward();
  void selectNode(int node);

  // The tree on screen (after bottom-up / focus / hide / diff), or null, and
  // the core tree it was drawn from (node i + 1 on screen = core node i).
  const FlameTree* tree() const { return shown_.get(); }
  const Flamegraph* coreTree() const { return shown_core_.get(); }
  // The last build or filter error ("bad regex ..."), empty when fine.
  QString lastError() const { return last_error_; }
  int zoomNode() const;
  int selectedNode() const;
  const FlameSource& source() const { return source_; }
  const std::vector<DumpInfo>& dumps() const { return dumps_; }
  bool hasCpuSamples() const;
  bool isBusy() const { return pending_ > 0; }
  // The frames from `node` up to the root, one per line (leaf first).
  QString stackText(int node) const;
  // Writes the tree on screen: "svg", "folded", "pprof", "speedscope", "json"
  // (the core's exporters, on the query lane) or "png" (the canvas).
  // exportFinished() follows.
  void exportTo(const QString& path, const QString& format);

  // Symbolize… / Deobfuscate… (also the Trace menu's): options dialog, then
  // the core on the query lane, the trace reloaded and this graph re-queried.
  void symbolize();
  void deobfuscate();
  SymbolsController* symbolsController() const { return symbols_; }

  FlameView* view() const { return view_; }
  CallerModel* callersModel() const { return callers_; }
  CallerModel* calleesModel() const { return callees_; }
  CallerTables* callerTables() const { return caller_tables_; }

 signals:
  // A new tree is on screen (after any rebuild).
  void treeReady();
  void exportFinished(const QString& path, bool ok, const QString& error);

 private:
  struct Built;
  void buildUi();
  void onLoaded();
  void onReloaded(bool ok);
  void rebuild();
  void applyBuilt(std::shared_ptr<Built> built, quint64 generation);
  void runSearch();
  void updateHistoryActions();
  void pushZoom(int node);
  void applyZoomPath(const QStringList& path);
  QStringList namesTo(int node) const;
  void refillProfileCombo();
  void refillViewCombo();
  void scrollToRoot();
  void showNodeInfo(int node);
  void contextMenu(int node, const QPoint& globalPos);
  void exportWithDialog(const QString& format);
  void setRegexField(QLineEdit* field, const QString& text);

  TraceSession* session_;
  FlameSource source_;
  bool has_source_ = false;
  FlamegraphView view_kind_ = FlamegraphView::kUnreleasedSize;
  bool bottom_up_ = false;
  bool collapse_recursion_ = false;
  double min_share_ = 0;  // percent of the total
  QString search_, focus_, hide_;
  std::optional<FlameSource> compare_;
  std::vector<DumpInfo> dumps_;
  bool dumps_loaded_ = false;

  // Raw top-down trees, cached so toggles do not rebuild from the core.
  std::shared_ptr<const Flamegraph> raw_, raw_base_, shown_core_, calls_core_;
  FlameSource raw_source_, raw_base_source_;
  FlamegraphView raw_view_ = FlamegraphView::kSamples;
  std::shared_ptr<const FlameTree> shown_;
  QString last_error_;
  quint64 select_generation_ = 0;
  quint64 generation_ = 0, search_generation_ = 0;
  int pending_ = 0;
  double matched_share_ = 0;

  std::vector<QStringList> history_;  // zoom paths by name (ids change on rebuild)
  int history_pos_ = -1;

  FlameView* view_ = nullptr;
  QScrollArea* scroll_ = nullptr;
  QComboBox* profile_combo_ = nullptr;
  QComboBox* view_combo_ = nullptr;
  QComboBox* color_combo_ = nullptr;
  QComboBox* compare_combo_ = nullptr;
  QLineEdit* search_edit_ = nullptr;
  QLineEdit* focus_edit_ = nullptr;
  QLineEdit* hide_edit_ = nullptr;
  QLabel* matched_label_ = nullptr;
  QLabel* status_ = nullptr;
  QAction* back_ = nullptr;
  QAction* forward_ = nullptr;
  QAction* bottom_up_action_ = nullptr;
  QAction* flame_action_ = nullptr;
  QAction* recursion_action_ = nullptr;
  QComboBox* min_share_combo_ = nullptr;
  CallerModel* callers_ = nullptr;
  CallerModel* callees_ = nullptr;
  CallerTables* caller_tables_ = nullptr;
  SymbolsController* symbols_ = nullptr;
  bool filling_ = false;  // combos being refilled: ignore their signals
};

}  // namespace fathom::gui
