// The android_logs panel under the timeline: a table of log lines (time,
// pid/tid, process/thread, priority in colour, tag, message) that follows the
// timeline's selection and filters by minimum priority, tag and text.
#pragma once

#include <QWidget>

#include "widgets/common/trace_session.h"
#include "widgets/logs/log_model.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QTableView;
class QStackedWidget;

namespace fathom::gui {

class LogPanel : public QWidget {
  Q_OBJECT
 public:
  explicit LogPanel(TraceSession* session, QWidget* parent = nullptr);
  // Shows only the log lines in [t0, t1) (t0 == t1: all).
  void setTimeRange(qint64 t0, qint64 t1);
  void setMinPriority(int prio);
  void setTagFilter(const QString& tag);
  void setTextFilter(const QString& text);

  LogModel* model() const { return model_; }
  QTableView* view() const { return view_; }
  bool isLoaded() const { return loaded_; }

 signals:
  // The log rows arrived from the query lane (also when there are none).
  void logsLoaded(int rows);
  // A log line was double-clicked: the timeline may move its cursor there.
  void timestampActivated(qint64 ts);

 private:
  void load();
  void applyFilter();
  void updateSummary();

  TraceSession* session_;
  LogModel* model_;
  QTableView* view_;
  QComboBox* prio_;
  QComboBox* tag_;
  QLineEdit* text_;
  QLabel* summary_;
  QLabel* empty_;
  QStackedWidget* stack_;
  qint64 t0_ = 0, t1_ = 0;
  bool loaded_ = false;
};

}  // namespace fathom::gui
