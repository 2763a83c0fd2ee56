#include "widgets/query/result_actions.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeySequence>
#include <QMenu>
#include <QShortcut>
#include <QTableView>
#include <algorithm>
#include <numeric>
#include <set>

#include "widgets/query/query_result_model.h"

namespace fathom::gui {
namespace {

// Column index by name, case-insensitive; -1 when absent.
int columnOf(const QStringList& columns, const char* name) {
  for (int i = 0; i < columns.size(); ++i)
    if (columns[i].compare(QLatin1String(name), Qt::CaseInsensitive) == 0) return i;
  return -1;
}

QString cellText(const QVariant& v) { return v.isNull() ? QString() : v.toString(); }

}  // namespace

RowTarget rowTarget(const QStringList& columns, const std::function<QVariant(int)>& value) {
  auto get = [&](const char* name) -> qint64 {
    const int c = columnOf(columns, name);
    if (c < 0) return -1;
    const QVariant v = value(c);
    bool ok = false;
    const qint64 n = v.isNull() ? -1 : v.toLongLong(&ok);
    return ok ? n : -1;
  };
  RowTarget t;
  t.id = get("id");
  t.ts = get("ts");
  t.dur = get("dur");
  t.track_id = get("track_id");
  t.cpu = get("cpu");
  t.utid = get("utid");
  t.upid = get("upid");
  using K = RowTarget::Kind;
  if (const qint64 slice = get("slice_id"); slice >= 0) {
    t.id = slice;
    t.kind = K::kSlice;
  } else if (t.id >= 0 && t.ts >= 0 && t.track_id >= 0) {
    t.kind = K::kSlice;
  } else if (t.id >= 0 && t.ts >= 0 && t.utid >= 0 && columnOf(columns, "state") >= 0) {
    t.kind = K::kThreadState;
  } else if (t.id >= 0 && t.ts >= 0 && t.cpu >= 0 && t.utid >= 0) {
    t.kind = K::kSched;
  } else if (t.utid >= 0) {
    t.kind = K::kThread;
  } else if (t.upid >= 0) {
    t.kind = K::kProcess;
  } else if (t.ts >= 0) {
    t.kind = K::kTime;
  }
  return t;
}

QString resultText(const QueryResultModel& model, const QVector<int>& rows,
                   const QVector<int>& cols, bool header) {
  QStringList lines;
  if (header) {
    QStringList names;
    for (int c : cols) names << model.columnNames().value(c);
    lines << names.join(QLatin1Char('\t'));
  }
  for (int r : rows) {
    QStringList cells;
    for (int c : cols) cells << cellText(model.value(r, c));
    lines << cells.join(QLatin1Char('\t'));
  }
  return lines.join(QLatin1Char('\n'));
}

namespace {

QVector<int> allColumns(const QueryResultModel& m) {
  QVector<int> cols(m.columnCount());
  std::iota(cols.begin(), cols.end(), 0);
  return cols;
}

// The selected cells as a block: rows and columns that hold any of them.
QString selectionText(QTableView* view, QueryResultModel* model) {
  std::set<int> rows, cols;
  for (const QModelIndex& i : view->selectionModel()->selectedIndexes()) {
    rows.insert(i.row());
    cols.insert(i.column());
  }
  if (rows.size() == 1 && cols.size() == 1)
    return cellText(model->value(*rows.begin(), *cols.begin()));
  return resultText(*model, QVector<int>(rows.begin(), rows.end()),
                    QVector<int>(cols.begin(), cols.end()), false);
}

void copy(const QString& text) { QApplication::clipboard()->setText(text); }

void showMenu(QTableView* view, QueryResultModel* model, const QPoint& pos,
              const std::function<void(const RowTarget&)>& reveal) {
  const QModelIndex at = view->indexAt(pos);
  if (!at.isValid()) return;
  const int row = at.row(), col = at.column();
  QMenu menu(view);
  const RowTarget target =
      rowTarget(model->columnNames(), [&](int c) { return model->value(row, c); });
  if (target.kind != RowTarget::Kind::kNone && reveal) {
    menu.addAction(QObject::tr("Show on timeline"), view, [reveal, target] { reveal(target); });
    menu.addSeparator();
  }
  menu.addAction(QObject::tr("Copy cell"), view,
                 [model, row, col] { copy(cellText(model->value(row, col))); });
  menu.addAction(QObject::tr("Copy row"), view,
                 [model, row] { copy(resultText(*model, {row}, allColumns(*model), false)); });
  menu.addAction(QObject::tr("Copy row with header"), view,
                 [model, row] { copy(resultText(*model, {row}, allColumns(*model), true)); });
  menu.addAction(QObject::tr("Copy column"), view, [model, col] {
    QVector<int> rows(model->rowCount());
    std::iota(rows.begin(), rows.end(), 0);
    copy(resultText(*model, rows, {col}, true));
  });
  menu.addAction(QObject::tr("Copy all rows shown"), view, [model] {
    QVector<int> rows(model->rowCount());
    std::iota(rows.begin(), rows.end(), 0);
    copy(resultText(*model, rows, allColumns(*model), true));
  });
  menu.exec(view->viewport()->mapToGlobal(pos));
}

}  // namespace

void installResultActions(QTableView* view, QueryResultModel* model,
                          std::function<void(const RowTarget&)> reveal) {
  view->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(
      view, &QWidget::customContextMenuRequested, view,
      [view, model, reveal](const QPoint& pos) { showMenu(view, model, pos, reveal); });
  QObject::connect(
      view, &QAbstractItemView::doubleClicked, view, [model, reveal](const QModelIndex& i) {
        if (!reveal || !i.isValid()) return;
        const RowTarget t =
            rowTarget(model->columnNames(), [&](int c) { return model->value(i.row(), c); });
        if (t.kind != RowTarget::Kind::kNone) reveal(t);
      });
  auto* shortcut =
      new QShortcut(QKeySequence::Copy, view, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
  QObject::connect(shortcut, &QShortcut::activated, view,
                   [view, model] { copy(selectionText(view, model)); });
}

}  // namespace fathom::gui
