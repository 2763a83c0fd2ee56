// Everything shown for one open trace: the timeline (with the omnibox in its
// toolbar) above one bottom panel of tabs (Details, Flamegraph, Logs, Query
// results), and the query page. Wires the widgets together: a search match is
// revealed on the timeline, ':' SQL runs into the Query results tab, a diamond click opens its
// flamegraph, a time selection filters the logs and feeds the CPU-sample
// flamegraph, a click shows its details below.
#pragma once

#include <QWidget>

class QSplitter;
class QTabWidget;

namespace fathom::gui {

class TraceSession;
class TimelineView;
class FlamegraphPanel;
class HeapExplorerPanel;
class LogPanel;
class QueryPage;
class SearchBox;
class BottomPanel;
class QueryResultsPanel;
struct RowTarget;

class TraceWorkspace : public QWidget {
  Q_OBJECT
 public:
  enum class View { kTimeline, kFlamegraph, kQuery, kLogs, kDetails, kHeapExplorer };

  TraceWorkspace(TraceSession* session, QWidget* parent = nullptr);
  void setView(View view);

  TimelineView* timeline() const { return timeline_; }
  FlamegraphPanel* flamegraph() const { return flamegraph_; }
  HeapExplorerPanel* heapExplorer() const { return heap_; }
  LogPanel* logs() const { return logs_; }
  QueryPage* query() const { return query_; }
  SearchBox* search() const { return search_; }
  BottomPanel* bottomPanel() const { return panels_; }
  QWidget* details() const { return details_; }
  QueryResultsPanel* queryResults() const { return results_; }
  // True once the load-time check of what the bottom panel has to show has answered.
  bool panelChecked() const { return panel_checked_; }

 signals:
  void panelCheckDone();
  // A query row was sent to the timeline (tests wait on it).
  void rowRevealed();

 private:
  void buildSearch();
  void revealRow(const RowTarget& target);
  void wirePanels();
  void checkPanelContent();

  TraceSession* session_;
  QTabWidget* pages_ = nullptr;    // Timeline | Query
  QSplitter* split_ = nullptr;     // timeline above, panels below
  BottomPanel* panels_ = nullptr;  // Details | Flamegraph | Heap explorer | Logs | Query results
  TimelineView* timeline_ = nullptr;
  QWidget* details_ = nullptr;
  FlamegraphPanel* flamegraph_ = nullptr;
  HeapExplorerPanel* heap_ = nullptr;
  LogPanel* logs_ = nullptr;
  QueryPage* query_ = nullptr;
  QueryResultsPanel* results_ = nullptr;
  SearchBox* search_ = nullptr;
  bool panel_checked_ = false;
  bool flame_clicked_ = false;  // a heap diamond was clicked; its details are on their way
};

}  // namespace fathom::gui
