#include "widgets/logs/log_panel.h"

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

#include "widgets/common/format.h"

namespace fathom::gui {

LogPanel::LogPanel(TraceSession* session, QWidget* parent)
    : QWidget(parent), session_(session), model_(new LogModel(this)) {
  prio_ = new QComboBox;
  const char* kPrio[] = {"Verbose", "Debug", "Info", "Warn", "Error", "Fatal"};
  prio_->addItem(tr("All"), 0);
  for (int p = 2; p <= 7; ++p) prio_->addItem(tr(kPrio[p - 2]), p);
  prio_->setToolTip(tr("Minimum priority"));
  tag_ = new QComboBox;
  tag_->setEditable(true);
  tag_->setInsertPolicy(QComboBox::NoInsert);
  tag_->setMinimumContentsLength(16);
  tag_->setToolTip(tr("Only this tag"));
  text_ = new QLineEdit;
  text_->setPlaceholderText(tr("Search tag or message"));
  text_->setClearButtonEnabled(true);
  summary_ = new QLabel;
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(4, 4, 4, 0);
  bar->addWidget(new QLabel(tr("Priority ≥")));
  bar->addWidget(prio_);
  bar->addWidget(new QLabel(tr("Tag")));
  bar->addWidget(tag_);
  bar->addWidget(text_, 1);
  bar->addWidget(summary_);

  view_ = new QTableView;
  view_->setModel(model_);
  view_->setAlternatingRowColors(true);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setWordWrap(false);
  view_->verticalHeader()->hide();
  view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 4);
  view_->horizontalHeader()->setStretchLastSection(true);
  view_->horizontalHeader()->setHighlightSections(false);
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  view_->setFont(mono);
  const int cw = view_->fontMetrics().horizontalAdvance(QLatin1Char('0'));
  const int widths[] = {16, 7, 7, 22, 16, 5, 18};
  for (int c = 0; c < 7; ++c) view_->setColumnWidth(c, widths[c] * cw + 12);

  empty_ = new QLabel(tr("Loading logs…"));
  empty_->setAlignment(Qt::AlignCenter);
  empty_->setWordWrap(true);
  stack_ = new QStackedWidget;
  stack_->addWidget(empty_);
  stack_->addWidget(view_);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(bar);
  layout->addWidget(stack_, 1);

  connect(prio_, &QComboBox::currentIndexChanged, this, [this] { applyFilter(); });
  connect(tag_, &QComboBox::currentTextChanged, this, [this] { applyFilter(); });
  connect(text_, &QLineEdit::textChanged, this, [this] { applyFilter(); });
  connect(view_, &QTableView::doubleClicked, this,
          [this](const QModelIndex& i) { emit timestampActivated(model_->timestamp(i.row())); });

  if (session_->isLoaded()) load();
  connect(session_, &TraceSession::loaded, this, &LogPanel::load);
}

void LogPanel::load() {
  session_->query<LogRows>(ReadLogs, this, [this](LogRows rows) {
    const QString error = rows.error;
    const int n = rows.size();
    model_->setRows(std::move(rows), session_->traceStart());
    loaded_ = true;
    const QSignalBlocker block(tag_);
    tag_->clear();
    tag_->addItem(QString());
    tag_->addItems(model_->tags());
    tag_->lineEdit()->setPlaceholderText(tr("any"));
    if (!error.isEmpty()) {
      empty_->setText(tr("Cannot read the logs: %1").arg(error));
    } else if (n == 0) {
      empty_->setText(
          tr("This trace has no Android log lines.\nRecord with the android.log "
             "data source to see logcat here, in step with the timeline."));
    }
    stack_->setCurrentWidget(n > 0 ? static_cast<QWidget*>(view_) : empty_);
    applyFilter();
    emit logsLoaded(n);
  });
}

void LogPanel::setTimeRange(qint64 t0, qint64 t1) {
  t0_ = t0;
  t1_ = t1;
  applyFilter();
}

void LogPanel::setMinPriority(int prio) {
  const int i = prio_->findData(prio);
  prio_->setCurrentIndex(i < 0 ? 0 : i);
}

void LogPanel::setTagFilter(const QString& tag) { tag_->setCurrentText(tag); }
void LogPanel::setTextFilter(const QString& text) { text_->setText(text); }

void LogPanel::applyFilter() {
  LogFilter f;
  f.t0 = t0_;
  f.t1 = t1_;
  f.min_prio = prio_->currentData().toInt();
  f.tag = tag_->currentText().trimmed();
  f.text = text_->text().trimmed();
  model_->setFilter(f);
  updateSummary();
}

void LogPanel::updateSummary() {
  QString s =
      tr("%1 of %2 lines").arg(formatCount(model_->rowCount()), formatCount(model_->totalRows()));
  if (t1_ > t0_) s += tr(" in %1 selection").arg(formatDuration(t1_ - t0_));
  summary_->setText(s);
}

}  // namespace fathom::gui
