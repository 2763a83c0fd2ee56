// The timeline page: a toolbar (history, fit, track filter, track list), the
// painted canvas (timeline_canvas.h) and a details panel that shows the clicked
// event or the aggregates of an area selection. Keyboard: W/S zoom, A/D pan by
// physical key position (so AZERTY's Z/Q/S/D work the same), F fits the
// selection, Alt+Left/Right go back/forward through the visited ranges.
#pragma once

#include <QList>
#include <QWidget>

#include "widgets/common/trace_session.h"
#include "widgets/timeline/timeline_data.h"
#include "widgets/timeline/track_model.h"

class QLineEdit;
class QScrollBar;
class QStandardItemModel;
class QTreeView;
class QAction;
class QToolBar;

namespace fathom::gui {

class TimelineCanvas;

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(TraceSession* session, QWidget* parent = nullptr);
  // Shows [t0, t1) (trace-clock ns) / selects it (as a drag would).
  void setVisibleRange(qint64 t0, qint64 t1);
  void setSelection(qint64 t0, qint64 t1);

  // For tests and the bench.
  TrackListModel* trackModel() const { return model_; }
  TimelineCanvas* canvas() const { return canvas_; }
  QStandardItemModel* detailsModel() const { return details_model_; }
  const SelectionStats& selectionStats() const { return stats_; }
  // Selects [t0, t1) over the given tracks (layout indexes) as a drag would.
  void selectArea(qint64 t0, qint64 t1, const QVector<int>& tracks);
  // Shows the details of `row` of `track` (as a click would).
  // `state`: `row` is a thread_state row on a slice track's state strip.
  void showDetails(int track, quint32 row, qint64 ts, bool state = false);
  // Expands, scrolls and pans to slice row `slice` of slice track `track_id`, and selects it.
  void goToSlice(quint32 track_id, quint32 slice);
  // Reveals an event found by a search: expands its group, scrolls its track into view, zooms
  // so it is visible and reasonably wide, centres it, highlights it and shows its details.
  // kind: kSlices (ref = track_id) or kCpuSched (ref = cpu); row: its table row.
  void revealEvent(TrackKind kind, quint32 ref, quint32 row, qint64 ts, qint64 dur);
  // Expands and scrolls to a thread's tracks, or a process's group.
  void revealThread(quint32 utid);
  void revealProcess(qint64 upid);
  // Centres [ts, ts + dur] (zooming as revealEvent does) and selects it.
  void revealTime(qint64 ts, qint64 dur);
  // Scrolls the outlined event's track back into view (after the canvas got shorter, e.g.
  // when a panel opened below it).
  void keepHighlightInView();
  // Start times of search matches, drawn as ticks under the ruler (sorted; empty: none).
  void setSearchMarks(QVector<qint64> ts);
  // The toolbar (the workspace adds the omnibox to it).
  QToolBar* toolBar() const { return bar_; }
  // The details / aggregates tree. Shown under the canvas until a host takes it (the
  // workspace puts it into its bottom panel); the view keeps filling it.
  QWidget* takeDetailsPanel();
  bool isBusy() const;
  void goBack();
  void goForward();
  void fitSelection();
  void showWholeTrace();

 signals:
  // A heap-dump diamond was clicked. kind: "native" or "graph" (Java heap graph).
  void heapProfileActivated(qint64 upid, qint64 ts, const QString& kind);
  // A CPU sample was clicked: the flamegraph shows that sample's stack (utid's samples at ts).
  void cpuSampleActivated(qint64 utid, qint64 ts);
  // The time selection changed (t0 == t1: cleared); cpus: CPU tracks inside it.
  // cpus: the selected CPU tracks; utids: the threads of selected thread tracks.
  void selectionChanged(qint64 t0, qint64 t1, const QList<int>& cpus, const QList<int>& utids);
  // The track layout was built (after load) / stats or details arrived.
  void tracksReady();
  void selectionStatsReady();
  void detailsReady();

 protected:
  void keyPressEvent(QKeyEvent* e) override;

 private:
  void onLoaded();
  void attachSummaries();  // computes the process summaries, then adds them to the layout
  void pushHistory();
  void navigate(qint64 t0, qint64 t1, bool record);
  void showStats(const SelectionStats& stats);
  int trackIndexOf(TrackKind kind, quint32 ref) const;  // -1 when not laid out
  void centreOn(int track, qint64 ts, qint64 dur);
  void scrollTrackIntoView(int track);

  TraceSession* session_;
  TrackListModel* model_;
  TimelineCanvas* canvas_;
  QScrollBar* vscroll_;
  QToolBar* bar_;
  QLineEdit* filter_;
  QTreeView* details_;
  QStandardItemModel* details_model_;
  QAction* back_;
  QAction* forward_;
  SelectionStats stats_;
  QList<QPair<qint64, qint64>> history_;
  int history_pos_ = -1;
  int pending_ = 0;             // query-lane jobs in flight
  int layout_generation_ = 0;   // which layout a summaries job was started for
  qint64 start_ = 0, end_ = 0;  // navigable range: the trace plus its markers
};

}  // namespace fathom::gui
