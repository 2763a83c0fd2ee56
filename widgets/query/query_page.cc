#include "widgets/query/query_page.h"

#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QTableView>
#include <QTextBlock>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include "widgets/common/format.h"
#include "widgets/query/example_queries.h"
#include "widgets/query/query_result_model.h"
#include "widgets/query/sql_editor.h"
#include "widgets/query/sql_highlighter.h"

namespace fathom::gui {
namespace {

const char kHistoryKey[] = "query/history";

QToolButton* Button(const QString& text, const QString& tip) {
  auto* b = new QToolButton;
  b->setText(text);
  b->setToolTip(tip);
  b->setToolButtonStyle(Qt::ToolButtonTextOnly);
  b->setAutoRaise(true);
  return b;
}

QString OneLine(const QString& sql) {
  QString s = sql.simplified();
  return s.size() > 90 ? s.left(90) + QChar(0x2026) : s;
}

}  // namespace

QueryPage::QueryPage(TraceSession* session, QWidget* parent)
    : QWidget(parent), session_(session), model_(new QueryResultModel(session, this)) {
  editor_ = new SqlEditor;
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  editor_->setFont(mono);
  editor_->setTabStopDistance(editor_->fontMetrics().horizontalAdvance(QLatin1Char(' ')) * 2);
  editor_->setLineWrapMode(QPlainTextEdit::NoWrap);
  editor_->setPlaceholderText(tr("select * from sched limit 100   (Ctrl+Enter runs)"));
  highlighter_ = new SqlHighlighter(editor_->document());

  run_ = Button(tr("▶ Run"), tr("Run the statement, or the selection (Ctrl+Enter)"));
  cancel_ = Button(tr("■ Cancel"), tr("Stop the running query (Esc)"));
  export_ = Button(tr("Export CSV…"), tr("Save the whole result as CSV"));
  auto* examples = Button(tr("Examples"), tr("Example queries"));
  examples_ = new QMenu(examples);
  examples->setMenu(examples_);
  examples->setPopupMode(QToolButton::InstantPopup);
  for (const ExampleQuery& e : ExampleQueries()) {
    QAction* a = examples_->addAction(QString::fromUtf8(e.title));
    const QString sql = QString::fromUtf8(e.sql);
    a->setToolTip(sql);
    connect(a, &QAction::triggered, this, [this, sql] {
      setQuery(sql);
      runQuery();
    });
  }
  auto* hist = Button(tr("History"), tr("Queries run before (kept across sessions)"));
  history_menu_ = new QMenu(hist);
  hist->setMenu(history_menu_);
  hist->setPopupMode(QToolButton::InstantPopup);
  connect(history_menu_, &QMenu::aboutToShow, this, &QueryPage::rebuildHistoryMenu);

  status_ = new QLabel;
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* bar = new QHBoxLayout;
  bar->setContentsMargins(4, 2, 4, 2);
  for (QToolButton* w : {run_, cancel_, examples, hist, export_}) bar->addWidget(w);
  bar->addStretch(1);
  bar->addWidget(status_);

  error_ = new QLabel;
  error_->setWordWrap(true);
  error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_->setStyleSheet(
      QStringLiteral("QLabel { color: #b3261e; background: rgba(219,68,55,0.10); border: 1px solid "
                     "rgba(219,68,55,0.45); border-radius: 3px; padding: 6px; }"));
  error_->setFont(mono);
  error_->hide();

  view_ = new QTableView;
  view_->setModel(model_);
  installResultActions(view_, model_, [this](const RowTarget& t) { emit revealRequested(t); });
  view_->setFont(mono);
  view_->setAlternatingRowColors(true);
  view_->setWordWrap(false);
  view_->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
  view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 4);
  view_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  view_->horizontalHeader()->setHighlightSections(false);
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  view_->horizontalHeader()->setStretchLastSection(true);

  auto* results = new QWidget;
  auto* rl = new QVBoxLayout(results);
  rl->setContentsMargins(0, 0, 0, 0);
  rl->setSpacing(2);
  rl->addLayout(bar);
  rl->addWidget(error_);
  rl->addWidget(view_, 1);

  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(editor_);
  split->addWidget(results);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 3);
  split->setChildrenCollapsible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(split);

  for (QKeySequence k :
       {QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)}) {
    auto* sc = new QShortcut(k, this, this, &QueryPage::runQuery);
    sc->setContext(Qt::WidgetWithChildrenShortcut);
  }
  // The editor sees Ctrl+Enter first (a QShortcut needs an active window).
  editor_->installEventFilter(this);
  auto* esc = new QShortcut(QKeySequence(Qt::Key_Escape), this, this, &QueryPage::cancelQuery);
  esc->setContext(Qt::WidgetWithChildrenShortcut);
  connect(run_, &QToolButton::clicked, this, &QueryPage::runQuery);
  connect(cancel_, &QToolButton::clicked, this, &QueryPage::cancelQuery);
  connect(export_, &QToolButton::clicked, this, &QueryPage::chooseExportFile);
  connect(model_, &QueryResultModel::stateChanged, this, [this] {
    // A finished query may have included modules or made tables: complete them too.
    if (model_->state() == QueryResultModel::State::kDone ||
        model_->state() == QueryResultModel::State::kError)
      refreshCompletions();
    updateStatus();
    showError();
    // Size columns to the first page once, then leave them to the user.
    if (model_->state() != QueryResultModel::State::kRunning || model_->rowCount() > 0)
      if (view_->horizontalHeader()->count() && model_->rowCount() <= QueryResultModel::kPageRows)
        view_->resizeColumnsToContents();
  });
  connect(model_, &QueryResultModel::rowsFetched, this, [this](qint64 rows) {
    if (rows == model_->rowCount() && rows <= QueryResultModel::kPageRows) {
      view_->resizeColumnsToContents();
      for (int c = 0; c < model_->columnCount(); ++c)
        view_->setColumnWidth(c, std::min(view_->columnWidth(c), 480));
    }
    updateStatus();
  });
  connect(model_, &QueryResultModel::exportFinished, this,
          [this](const QString& path, const QString& error) {
            status_->setText(error.isEmpty() ? tr("Saved %1").arg(path)
                                             : tr("Export failed: %1").arg(error));
          });
  // While a query runs, tick the elapsed time.
  auto* tick = new QTimer(this);
  tick->setInterval(200);
  connect(tick, &QTimer::timeout, this, [this] {
    if (model_->state() == QueryResultModel::State::kRunning) updateStatus();
  });
  tick->start();

  auto loadTables = [this] {
    session_->query<QStringList>(
        [](Core& core) {
          QStringList names;
          for (Table* t : core.tp.storage().AllTables()) names << QString::fromStdString(t->name());
          auto it = core.tp.Query("select name from sqlite_master where type = 'view'");
          if (it->NextResultSet())
            while (it->NextRow())
              names << QString::fromUtf8(it->Get(0).s.data(), qsizetype(it->Get(0).s.size()));
          return names;
        },
        this, [this](QStringList names) { highlighter_->setTableNames(names); });
  };
  if (session_->isLoaded()) loadTables();
  connect(session_, &TraceSession::loaded, this, loadTables);
  if (session_->isLoaded()) refreshCompletions();
  connect(session_, &TraceSession::loaded, this, &QueryPage::refreshCompletions);
  const QStringList h = history();
  if (!h.isEmpty()) editor_->setPlainText(h.first());
  updateStatus();
}

bool QueryPage::eventFilter(QObject* watched, QEvent* event) {
  if (watched == editor_ && event->type() == QEvent::KeyPress) {
    auto* k = static_cast<QKeyEvent*>(event);
    if ((k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) &&
        (k->modifiers() & Qt::ControlModifier)) {
      runQuery();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

void QueryPage::setQuery(const QString& sql) { editor_->setPlainText(sql); }

void QueryPage::refreshCompletions() {
  if (!session_->isLoaded()) return;  // loaded() calls again
  ++vocabulary_requests_;
  session_->query<SqlVocabulary>([](Core& core) { return readSqlVocabulary(core.tp); }, this,
                                 [this](SqlVocabulary v) {
                                   editor_->setVocabulary(std::move(v));
                                   --vocabulary_requests_;
                                   emit completionsRefreshed();
                                 });
}

QString QueryPage::query() const { return editor_->toPlainText(); }

QPlainTextEdit* QueryPage::editor() const { return editor_; }

void QueryPage::runQuery() {
  QTextCursor c = editor_->textCursor();
  QString sql;
  if (c.hasSelection()) {
    sql = c.selectedText().replace(QChar::ParagraphSeparator, QLatin1Char('\n'));
    sql_offset_ = c.selectionStart();
  } else {
    sql = editor_->toPlainText();
    sql_offset_ = 0;
  }
  if (sql.trimmed().isEmpty()) return;
  editor_->setExtraSelections({});
  addToHistory(sql.trimmed());
  model_->run(sql);
}

void QueryPage::cancelQuery() { model_->cancel(); }

void QueryPage::exportCsv(const QString& path) { model_->exportCsv(path); }

void QueryPage::chooseExportFile() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export CSV"), QStringLiteral("query.csv"), tr("CSV files (*.csv)"));
  if (path.isEmpty()) return;
  status_->setText(tr("Exporting…"));
  exportCsv(path);
}

QString QueryPage::errorText() const {
  return error_->isVisible() || !error_->isHidden() ? error_->text() : QString();
}

QString QueryPage::statusText() const { return status_->text(); }

QStringList QueryPage::history() {
  return QSettings().value(QLatin1String(kHistoryKey)).toStringList();
}

void QueryPage::addToHistory(const QString& sql) {
  QStringList h = history();
  h.removeAll(sql);
  h.prepend(sql);
  while (h.size() > kMaxHistory) h.removeLast();
  QSettings().setValue(QLatin1String(kHistoryKey), h);
}

void QueryPage::rebuildHistoryMenu() {
  history_menu_->clear();
  const QStringList h = history();
  if (h.isEmpty()) history_menu_->addAction(tr("(no queries yet)"))->setEnabled(false);
  for (const QString& sql : h) {
    QAction* a = history_menu_->addAction(OneLine(sql));
    a->setToolTip(sql);
    connect(a, &QAction::triggered, this, [this, sql] { setQuery(sql); });
  }
  if (!h.isEmpty()) {
    history_menu_->addSeparator();
    connect(history_menu_->addAction(tr("Clear history")), &QAction::triggered, this,
            [] { QSettings().remove(QLatin1String(kHistoryKey)); });
  }
}

void QueryPage::updateStatus() {
  using S = QueryResultModel::State;
  const S s = model_->state();
  run_->setEnabled(s != S::kRunning);
  cancel_->setEnabled(s == S::kRunning);
  export_->setEnabled(s == S::kDone && model_->columnCount() > 0);
  const QString rows = formatCount(model_->rowCount());
  const QString time = formatDuration(model_->elapsedNs());
  switch (s) {
    case S::kIdle:
      status_->setText(session_->isLoaded() ? tr("Ready") : QString());
      break;
    case S::kRunning:
      status_->setText(tr("Running… %1 rows so far, %2").arg(rows, time));
      break;
    case S::kDone:
      if (model_->columnCount() == 0) {
        status_->setText(tr("Done in %1 (no result rows)").arg(time));
      } else {
        status_->setText(
            tr("%1 %2 in %3").arg(rows, model_->rowCount() == 1 ? tr("row") : tr("rows"), time));
      }
      break;
    case S::kError:
      status_->setText(tr("Failed after %1").arg(time));
      break;
    case S::kCancelled:
      status_->setText(tr("Cancelled after %1 (%2 rows)").arg(time, rows));
      break;
  }
}

void QueryPage::showError() {
  if (model_->state() != QueryResultModel::State::kError) {
    error_->hide();
    error_->clear();
    return;
  }
  QString text = model_->errorMessage();
  const int pos = model_->errorPosition();
  if (pos >= 0) {
    // Line and column in the editor, and the offending token underlined.
    const int at = sql_offset_ + pos;
    const QTextBlock block = editor_->document()->findBlock(at);
    text +=
        tr("\nat line %1, column %2").arg(block.blockNumber() + 1).arg(at - block.position() + 1);
    QTextEdit::ExtraSelection sel;
    sel.cursor = QTextCursor(editor_->document());
    sel.cursor.setPosition(at);
    sel.cursor.movePosition(QTextCursor::EndOfWord, QTextCursor::KeepAnchor);
    if (!sel.cursor.hasSelection())
      sel.cursor.movePosition(QTextCursor::NextCharacter, QTextCursor::KeepAnchor);
    sel.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
    sel.format.setUnderlineColor(QColor(0xdb, 0x44, 0x37));
    sel.format.setBackground(QColor(219, 68, 55, 40));
    editor_->setExtraSelections({sel});
  }
  error_->setText(text);
  error_->show();
}

}  // namespace fathom::gui
