#include "widgets/logs/log_model.h"

#include <QBrush>
#include <QColor>
#include <QSet>
#include <algorithm>

#include "widgets/common/format.h"
#include "widgets/common/theme.h"

namespace fathom::gui {

LogRows ReadLogs(Core& core) {
  LogRows r;
  auto it = core.tp.Query(
      "select l.ts, p.pid, t.tid, p.name, t.name, l.prio, l.tag, l.msg from android_logs l "
      "left join thread t using(utid) left join process p using(upid) order by l.ts, l.id");
  if (!it->NextResultSet()) {
    r.error = QString::fromStdString(it->status().message());
    return r;
  }
  auto str = [&](int c) {
    const SqlValue v = it->Get(c);
    return v.type == SqlValue::kString ? QString::fromUtf8(v.s.data(), qsizetype(v.s.size()))
                                       : QString();
  };
  while (it->NextRow()) {
    r.ts << it->Get(0).i;
    r.pid << (it->Get(1).type == SqlValue::kNull ? -1 : it->Get(1).i);
    r.tid << (it->Get(2).type == SqlValue::kNull ? -1 : it->Get(2).i);
    r.process << str(3);
    r.thread << str(4);
    r.prio << qint32(it->Get(5).i);
    r.tag << str(6);
    r.msg << str(7);
  }
  if (!it->status().ok()) r.error = QString::fromStdString(it->status().message());
  return r;
}

LogModel::LogModel(QObject* parent) : QAbstractTableModel(parent) {}

void LogModel::setRows(LogRows rows, qint64 trace_start) {
  beginResetModel();
  rows_ = std::move(rows);
  trace_start_ = trace_start;
  refilter();
  endResetModel();
}

void LogModel::setFilter(const LogFilter& filter) {
  beginResetModel();
  filter_ = filter;
  refilter();
  endResetModel();
}

void LogModel::refilter() {
  visible_.clear();
  int begin = 0, end = rows_.size();
  if (filter_.t1 > filter_.t0) {
    // Rows are sorted by ts: the time range is two binary searches.
    begin = int(std::lower_bound(rows_.ts.begin(), rows_.ts.end(), filter_.t0) - rows_.ts.begin());
    end = int(std::lower_bound(rows_.ts.begin(), rows_.ts.end(), filter_.t1) - rows_.ts.begin());
  }
  for (int i = begin; i < end; ++i) {
    if (rows_.prio[i] < filter_.min_prio) continue;
    if (!filter_.tag.isEmpty() && rows_.tag[i] != filter_.tag) continue;
    if (!filter_.text.isEmpty() && !rows_.msg[i].contains(filter_.text, Qt::CaseInsensitive) &&
        !rows_.tag[i].contains(filter_.text, Qt::CaseInsensitive))
      continue;
    visible_ << i;
  }
}

QStringList LogModel::tags() const {
  QStringList out = QSet<QString>(rows_.tag.begin(), rows_.tag.end()).values();
  out.removeAll(QString());
  out.sort(Qt::CaseInsensitive);
  return out;
}

qint64 LogModel::timestamp(int row) const {
  const int i = sourceRow(row);
  return i < 0 ? 0 : rows_.ts[i];
}

QString LogModel::prioLetter(int prio) {
  static const char* kLetters = "??VDIWEF";
  return prio >= 0 && prio <= 7 ? QString(QLatin1Char(kLetters[prio])) : QString::number(prio);
}

QColor LogModel::prioColor(int prio) {
  switch (prio) {
    case 2:
      return QColor(0x9e, 0x9e, 0x9e);  // verbose: grey
    case 3:
      return QColor(0x42, 0x85, 0xf4);  // debug: blue
    case 4:
      return QColor(0x34, 0xa8, 0x53);  // info: green
    case 5:
      return QColor(0xf2, 0x99, 0x00);  // warn: amber
    case 6:
      return QColor(0xdb, 0x44, 0x37);  // error: red
    case 7:
      return QColor(0x8e, 0x24, 0xaa);  // fatal/assert: purple
    default:
      return QColor(0x75, 0x75, 0x75);
  }
}

int LogModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : int(visible_.size());
}

int LogModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumns;
}

QVariant LogModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= visible_.size()) return {};
  const int i = visible_[index.row()];
  const int prio = rows_.prio[i];
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case kTime:
          return formatTimestamp(rows_.ts[i] - trace_start_, 1000);
        case kPid:
          return rows_.pid[i] < 0 ? QString() : QString::number(rows_.pid[i]);
        case kTid:
          return rows_.tid[i] < 0 ? QString() : QString::number(rows_.tid[i]);
        case kProcess:
          return rows_.process[i];
        case kThread:
          return rows_.thread[i];
        case kPrio:
          return prioLetter(prio);
        case kTag:
          return rows_.tag[i];
        case kMessage: {
          QString m = rows_.msg[i];
          return m.replace(QLatin1Char('\n'), QChar(0x21B5));
        }
      }
      return {};
    case Qt::UserRole:  // raw values for sorting, copying and tests
      switch (index.column()) {
        case kTime:
          return rows_.ts[i];
        case kPid:
          return rows_.pid[i];
        case kTid:
          return rows_.tid[i];
        case kPrio:
          return prio;
        default:
          return data(index, Qt::DisplayRole);
      }
    case Qt::ToolTipRole:
      if (index.column() == kMessage && rows_.msg[i].size() > 60) return rows_.msg[i];
      return {};
    case Qt::BackgroundRole:
      if (index.column() == kPrio) return QBrush(prioColor(prio));
      return {};
    case Qt::ForegroundRole:
      if (index.column() == kPrio) return QBrush(textColorOn(prioColor(prio)));
      if (prio >= 5 && (index.column() == kMessage || index.column() == kTag))
        return QBrush(prioColor(prio));
      return {};
    case Qt::TextAlignmentRole:
      if (index.column() == kPid || index.column() == kTid)
        return int(Qt::AlignRight | Qt::AlignVCenter);
      if (index.column() == kPrio) return int(Qt::AlignCenter);
      return {};
    default:
      return {};
  }
}

QVariant LogModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole || o != Qt::Horizontal) return {};
  static const char* kNames[] = {"Time",   "PID",  "TID", "Process",
                                 "Thread", "Prio", "Tag", "Message"};
  return section >= 0 && section < kColumns ? tr(kNames[section]) : QVariant();
}

}  // namespace fathom::gui
