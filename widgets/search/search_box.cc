#include "widgets/search/search_box.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTimer>
#include <QToolButton>

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

void SearchBox::startSearch() {
  debounce_->stop();
  const SearchQuery q = currentQuery();
  const int gen = ++generation_;
  current_ = -1;
  if (q.text.isEmpty() || q.text.startsWith(QLatin1Char(':')) || !session_ ||
      !session_->isLoaded()) {
    result_ = SearchResult{q, {}, false, {}};
    updateLabel();
    emit matchesChanged({});
    return;
  }
  ++pending_;
  label_->setText(tr("searching…"));
  session_->query<SearchResult>([q](Core& c) { return runSearch(c, q); }, this,
                                [this, gen](SearchResult r) {
                                  --pending_;
                                  if (gen != generation_) return;  // the text changed since
                                  result_ = std::move(r);
                                  QVector<qint64> ts;
                                  ts.reserve(result_.matches.size());
                                  for (const SearchMatch& m : result_.matches) ts.push_back(m.ts);
                                  emit matchesChanged(ts);
                                  updateLabel();
                                  const int pending_step = step_when_ready_;
                                  step_when_ready_ = 0;
                                  if (pending_step) step(pending_step > 0);
                                  emit searchFinished();
                                });
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
  if (pending_ > 0) {
    step_when_ready_ = forward ? 1 : -1;
    return;
  }
  const int n = static_cast<int>(result_.matches.size());
  if (n == 0) return;
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
  const QString total = result_.truncated ? QStringLiteral("%1+").arg(n) : QString::number(n);
  if (result_.query.text.startsWith(QLatin1Char(':')))
    label_->setText(tr("Enter: run SQL"));
  else if (result_.query.text.isEmpty())
    label_->clear();
  else if (n == 0)
    label_->setText(tr("no matches"));
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
