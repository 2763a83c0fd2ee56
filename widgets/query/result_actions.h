// What a query result offers beyond reading it: copy (a cell, a row, a
// column, everything, as tab-separated text) and "show on the timeline" for
// a row that names something the timeline draws. The row is read by its
// column names, as the Perfetto UI does: slice_id (or id with ts and
// track_id) is a slice; id, ts, dur, cpu and utid is a scheduling slice (with
// state: a thread state); utid a thread, upid a process; ts (and dur) a time.
#pragma once

#include <QStringList>
#include <QVariant>
#include <functional>

class QTableView;

namespace fathom::gui {

class QueryResultModel;

struct RowTarget {
  enum class Kind { kNone, kSlice, kSched, kThreadState, kThread, kProcess, kTime };
  Kind kind = Kind::kNone;
  qint64 id = -1, track_id = -1, ts = -1, dur = -1, cpu = -1, utid = -1, upid = -1;
};

// `value(col)` gives the row's value in column `col` of `columns`.
RowTarget rowTarget(const QStringList& columns, const std::function<QVariant(int)>& value);

// Tab-separated text of the given rows (and a header line when asked),
// values as shown, NULL as empty.
QString resultText(const QueryResultModel& model, const QVector<int>& rows,
                   const QVector<int>& cols, bool header);

// Context menu (Copy cell / row / column / all, Show on timeline), Ctrl+C
// (the selected cells) and double-click (show on timeline) for `view`.
// `reveal` is called with the row's target; rows with none only copy.
void installResultActions(QTableView* view, QueryResultModel* model,
                          std::function<void(const RowTarget&)> reveal);

}  // namespace fathom::gui
