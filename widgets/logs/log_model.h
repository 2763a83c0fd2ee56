// The trace's android_logs rows as a table, with the filters the log panel
// offers (time range, minimum priority, tag, text). All rows are read once on
// the query lane into columns; filtering keeps a list of visible row numbers,
// so it never touches SQL and answers in milliseconds for 100k lines.
#pragma once

#include <QAbstractTableModel>
#include <QStringList>
#include <QVector>

#include "widgets/common/trace_session.h"

namespace fathom::gui {

// android_logs columns in the order the SQL below returns them.
struct LogRows {
  QVector<qint64> ts;
  QVector<qint64> pid, tid;
  QVector<qint32> prio;
  QStringList process, thread, tag, msg;
  QString error;
  int size() const { return int(ts.size()); }
};

// Reads every log line (ordered by ts); run on the query lane.
LogRows ReadLogs(Core& core);

struct LogFilter {
  qint64 t0 = 0, t1 = 0;  // [t0, t1); t0 == t1: no time filter
  int min_prio = 0;       // Android priority: 2 V, 3 D, 4 I, 5 W, 6 E, 7 F
  QString tag;            // exact tag, empty: any
  QString text;           // case-insensitive substring of tag or message
};

class LogModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kTime, kPid, kTid, kProcess, kThread, kPrio, kTag, kMessage, kColumns };

  explicit LogModel(QObject* parent = nullptr);

  void setRows(LogRows rows, qint64 trace_start);
  void setFilter(const LogFilter& filter);
  const LogFilter& filter() const { return filter_; }
  int totalRows() const { return rows_.size(); }
  QStringList tags() const;  // distinct, sorted
  // Row number in the unfiltered set for a visible row.
  int sourceRow(int row) const { return visible_.value(row, -1); }
  qint64 timestamp(int row) const;

  static QString prioLetter(int prio);
  static QColor prioColor(int prio);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  void refilter();
  LogRows rows_;
  qint64 trace_start_ = 0;
  LogFilter filter_;
  QVector<int> visible_;
};

}  // namespace fathom::gui
