#include "widgets/query/query_results_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include "widgets/common/format.h"
#include "widgets/query/query_result_model.h"

namespace fathom::gui {

QueryResultsPanel::QueryResultsPanel(TraceSession* session, QWidget* parent)
    : QWidget(parent), model_(new QueryResultModel(session, this)) {
  view_ = new QTableView(this);
  view_->setModel(model_);
  installResultActions(view_, model_, [this](const RowTarget& t) { emit revealRequested(t); });
  view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 4);
  status_ = new QLabel(tr("Type ':' and SQL in the search box (e.g. :select * from process)"));
  status_->setTextFormat(Qt::PlainText);
  auto* edit = new QToolButton(this);
  edit->setText(tr("Edit in Query page"));
  edit->setAutoRaise(true);
  connect(edit, &QToolButton::clicked, this, [this] {
    if (!model_->sql().isEmpty()) emit editRequested(model_->sql());
  });
  auto* top = new QHBoxLayout;
  top->setContentsMargins(4, 0, 0, 0);
  top->addWidget(status_, 1);
  top->addWidget(edit);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(top);
  layout->addWidget(view_, 1);
  connect(model_, &QueryResultModel::stateChanged, this, &QueryResultsPanel::updateStatus);
  connect(model_, &QueryResultModel::rowsFetched, this, &QueryResultsPanel::updateStatus);
}

void QueryResultsPanel::run(const QString& sql) {
  fitted_ = false;
  model_->run(sql);
}

void QueryResultsPanel::fitColumns() {
  // Once per query, from the rows fetched so far; a long text column stays readable but
  // never pushes the others out of the panel.
  if (fitted_) return;
  fitted_ = true;
  view_->resizeColumnsToContents();
  const int cap = std::max(120, view_->viewport()->width() / 2);
  for (int c = 0; c < model_->columnCount(); ++c)
    if (view_->columnWidth(c) > cap) view_->setColumnWidth(c, cap);
}

QString QueryResultsPanel::statusText() const { return status_->text(); }

void QueryResultsPanel::updateStatus() {
  using S = QueryResultModel::State;
  QString sql = model_->sql().simplified();
  if (sql.size() > 80) sql = sql.left(79) + QStringLiteral("…");
  const QString rows = formatCount(model_->rowCount());
  switch (model_->state()) {
    case S::kIdle:
      break;
    case S::kRunning:
      status_->setText(tr("%1 — running… %2 rows").arg(sql, rows));
      break;
    case S::kDone:
      fitColumns();
      status_->setText(tr("%1 — %2 %3 in %4")
                           .arg(sql, rows, model_->rowCount() == 1 ? tr("row") : tr("rows"),
                                formatDuration(model_->elapsedNs())));
      break;
    case S::kError:
      status_->setText(tr("%1 — error: %2").arg(sql, model_->errorMessage()));
      break;
    case S::kCancelled:
      status_->setText(tr("%1 — cancelled").arg(sql));
      break;
  }
}

}  // namespace fathom::gui
