#include "widgets/search/search_box.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QToolButton>
#include <algorithm>

#include "widgets/common/trace_session.h"

namespace fathom::gui {

SearchBox::SearchBox(TraceSession* session, QWidget* parent) : QWidget(parent), session_(session) {
  edit_ = new QLineEdit(this);
  edit_->setObjectName(QStringLiteral("omnibox"));
  edit_->setPlaceholderText(tr("Search slices, threads, args  ( : for SQL )"));
  edit_->setToolTip(
      tr("Ctrl+F or /. Enter / Shift+Enter: next / previous match. /text/ is a regex; "
         "':select …' runs SQL."));
  edit_->setClearButtonEnabled(true);
  edit_->setMinimumWidth(160);
  edit_->installEventFilter(this);
  regex_ = new QToolButton(this);
  regex_->setText(QStringLiteral(".*"));
  regex_->setCheckable(true);
  regex_->setToolTip(tr("Regular expression (case-insensitive)"));
  regex_->setAutoRaise(true);
  label_ = new QLabel(this);
  label_->setMinimumWidth(
      label_->fontMetrics().horizontalAdvance(QStringLiteral("99999 of 99999")));
  label_->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  layout->addWidget(edit_, 1);
  layout->addWidget(regex_);
  layout->addWidget(label_);

  // Searching as the user types keeps the count live; the pause keeps a fast
  // typist from queueing a query per key.
  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(300);
  connect(debounce_, &QTimer::timeout, this, &SearchBox::startSearch);
  connect(edit_, &QLineEdit::textChanged, this, [this] { debounce_->start(); });
  connect(regex_, &QToolButton::toggled, this, [this] { startSearch(); });
}

SearchBox::~SearchBox() {
  if (cancel_) cancel_->store(true);  // a running pass stops instead of finishing unseen
}

void SearchBox::activate() {
  edit_->setFocus(Qt::ShortcutFocusReason);
  edit_->selectAll();
}

SearchQuery SearchBox::currentQuery() const {
  SearchQuery q;
  q.text = edit_->text().trimmed();
  q.regex = regex_->isChecked();
  if (q.text.size() >= 2 && q.text.startsWith(QLatin1Char('/')) &&
      q.text.endsWith(QLatin1Char('/'))) {
    q.text = q.text.mid(1, q.text.size() - 2);
    q.regex = true;
  }
  return q;
}

QString SearchBox::statusText() const { return label_->text(); }

// SQL is the box's own text starting with ':'; a /regex/ whose pattern starts with ':' is
// still a search.
bool SearchBox::isSql() const { return edit_->text().trimmed().startsWith(QLatin1Char(':')); }

void SearchBox::startSearch() {
  debounce_->stop();
  const SearchQuery q = currentQuery();
  const int gen = ++generation_;
  current_ = -1;
  if (cancel_) cancel_->store(true);
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  if (q.text.isEmpty() || isSql() || !session_ || !session_->isLoaded()) {
    result_ = SearchResult{q, {}, false, true, false, {}};
    updateLabel();
    emit matchesChanged({});
    return;
  }
  pending_ += 2;
  result_ = SearchResult{q, {}, false, false, false, {}};
  label_->setText(tr("searching…"));
  auto cancel = cancel_;
  auto cancelled = [cancel] { return cancel->load(std::memory_order_relaxed); };
  // Two jobs, in order on the query lane: the names pass answers in milliseconds, the args
  // pass (which may have to read every slice's args) follows.
  session_->query<SearchResult>(
      [q, cancelled](Core& c) { return searchNames(c.storage(), q, cancelled); }, this,
      [this, gen](SearchResult r) {
        --pending_;
        if (gen == generation_) takeNames(std::move(r));
      });
  session_->query<SearchResult>(
      [q, cancelled](Core& c) {
        // Nothing to add when the names pass failed (a bad regex) or was cancelled.
        return cancelled() ? SearchResult{q, {}, false, true, true, {}}
                           : searchArgs(c.storage(), q, cancelled);
      },
      this,
      [this, gen](SearchResult r) {
        --pending_;
        if (gen == generation_) takeArgs(r);
      });
}

void SearchBox::takeNames(SearchResult r) {
  result_ = std::move(r);
  if (!result_.error.isEmpty()) result_.complete = true;
  QVector<qint64> ts;
  ts.reserve(result_.matches.size());
  for (const SearchMatch& m : result_.matches) ts.push_back(m.ts);
  emit matchesChanged(ts);
  updateLabel();
  // Enter pressed while searching: step now if there is something to step to.
  const int pending_step = step_when_ready_;
  if (pending_step && !result_.matches.isEmpty()) {
    step_when_ready_ = 0;
    step(pending_step > 0);
  }
  if (result_.complete) emit searchFinished();
}

void SearchBox::takeArgs(const SearchResult& r) {
  if (result_.complete) return;  // the names pass ended the search (an error)
  const int before = int(result_.matches.size());
  const SearchMatch current = current_ >= 0 ? result_.matches[current_] : SearchMatch{};
  mergeSearchResults(result_, r);
  result_.complete = true;
  if (int(result_.matches.size()) != before) {
    if (current_ >= 0) {
      const auto it = std::find_if(
          result_.matches.begin(), result_.matches.end(),
          [&](const SearchMatch& m) { return m.kind == current.kind && m.row == current.row; });
      current_ = it != result_.matches.end() ? int(it - result_.matches.begin()) : -1;
    }
    QVector<qint64> ts;
    ts.reserve(result_.matches.size());
    for (const SearchMatch& m : result_.matches) ts.push_back(m.ts);
    emit matchesChanged(ts);
  }
  updateLabel();
  const int pending_step = step_when_ready_;
  step_when_ready_ = 0;
  if (pending_step) step(pending_step > 0);
  emit searchFinished();
}

void SearchBox::step(bool forward) {
  const QString text = edit_->text().trimmed();
  if (text.startsWith(QLatin1Char(':'))) {
    const QString sql = text.mid(1).trimmed();
    if (!sql.isEmpty()) emit sqlEntered(sql);
    return;
  }
  const SearchQuery q = currentQuery();
  if (debounce_->isActive() || q.text != result_.query.text || q.regex != result_.query.regex) {
    step_when_ready_ = forward ? 1 : -1;
    startSearch();
    return;
  }
  const int n = static_cast<int>(result_.matches.size());
  if (n == 0) {
    // Nothing yet: step once the args pass has answered.
    if (pending_ > 0) step_when_ready_ = forward ? 1 : -1;
    return;
  }
  if (current_ < 0)
    current_ = forward ? 0 : n - 1;
  else
    current_ = (current_ + (forward ? 1 : n - 1)) % n;
  updateLabel();
  emit matchSelected(result_.matches[current_]);
}

void SearchBox::updateLabel() {
  const int n = static_cast<int>(result_.matches.size());
  if (!result_.error.isEmpty()) {
    label_->setText(tr("error"));
    label_->setToolTip(result_.error);
    return;
  }
  label_->setToolTip(result_.truncated ? tr("Only the first %1 matches are listed").arg(n)
                                       : QString());
  // "+" past the cap; "…" while the args pass may still add matches.
  QString total = result_.truncated ? QStringLiteral("%1+").arg(n) : QString::number(n);
  if (!result_.complete) total += QStringLiteral("…");
  if (isSql())
    label_->setText(tr("Enter: run SQL"));
  else if (result_.query.text.isEmpty())
    label_->clear();
  else if (n == 0)
    label_->setText(result_.complete ? tr("no matches") : tr("searching…"));
  else if (current_ < 0)
    label_->setText(tr("%1 matches").arg(total));
  else
    label_->setText(tr("%1 of %2").arg(current_ + 1).arg(total));
}

bool SearchBox::eventFilter(QObject* watched, QEvent* event) {
  if (watched == edit_ && event->type() == QEvent::KeyPress) {
    auto* k = static_cast<QKeyEvent*>(event);
    if (k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) {
      step(!(k->modifiers() & Qt::ShiftModifier));
      return true;
    }
    if (k->key() == Qt::Key_Escape) {
      emit dismissed();
      return true;
    }
  }
  return QWidget::eventFilter(watched, event);
}

}  // namespace fathom::gui
