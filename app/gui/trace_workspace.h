// Everything shown for one open trace: the timeline with the flamegraph and
// log panels under it, and the query page. Wires the widgets together: a
// diamond click opens its flamegraph, a time selection filters the logs and
// feeds the CPU-sample flamegraph.
#pragma once

#include <QWidget>

class QSplitter;
class QTabWidget;

namespace fathom::gui {

class TraceSession;
class TimelineView;
class FlamegraphPanel;
class LogPanel;
class QueryPage;

class TraceWorkspace : public QWidget {
  Q_OBJECT
 public:
  enum class View { kTimeline, kFlamegraph, kQuery, kLogs };

  TraceWorkspace(TraceSession* session, QWidget* parent = nullptr);
  void setView(View view);

  TimelineView* timeline() const { return timeline_; }
  FlamegraphPanel* flamegraph() const { return flamegraph_; }
  LogPanel* logs() const { return logs_; }
  QueryPage* query() const { return query_; }

 private:
  TraceSession* session_;
  QTabWidget* pages_ = nullptr;   // Timeline | Query
  QSplitter* split_ = nullptr;    // timeline above, panels below
  QTabWidget* panels_ = nullptr;  // Flamegraph | Logs
  TimelineView* timeline_ = nullptr;
  FlamegraphPanel* flamegraph_ = nullptr;
  LogPanel* logs_ = nullptr;
  QueryPage* query_ = nullptr;
};

}  // namespace fathom::gui
