#include "widgets/query/sql_editor.h"

#include <QAbstractItemView>
#include <QCompleter>
#include <QKeyEvent>
#include <QScrollBar>
#include <QStringListModel>

namespace fathom::gui {

SqlEditor::SqlEditor(QWidget* parent)
    : QPlainTextEdit(parent), completer_(new QCompleter(this)), model_(new QStringListModel(this)) {
  completer_->setModel(model_);
  completer_->setWidget(this);
  // The candidates are already the matches: show them as they are.
  completer_->setCompletionMode(QCompleter::UnfilteredPopupCompletion);
  completer_->setCaseSensitivity(Qt::CaseInsensitive);
  connect(completer_, qOverload<const QString&>(&QCompleter::activated), this,
          &SqlEditor::insertCompletion);
}

QStringList SqlEditor::completions() const {
  int start = 0;
  return sqlCompletions(vocabulary_, toPlainText(), textCursor().position(), &start);
}

void SqlEditor::showCompletions() {
  const QStringList list =
      sqlCompletions(vocabulary_, toPlainText(), textCursor().position(), &word_start_);
  if (list.isEmpty()) {
    completer_->popup()->hide();
    return;
  }
  model_->setStringList(list);
  QRect r = cursorRect();
  r.setWidth(completer_->popup()->sizeHintForColumn(0) +
             completer_->popup()->verticalScrollBar()->sizeHint().width());
  completer_->complete(r);
  completer_->popup()->setCurrentIndex(completer_->completionModel()->index(0, 0));
}

void SqlEditor::insertCompletion(const QString& text) {
  QTextCursor c = textCursor();
  c.setPosition(word_start_, QTextCursor::KeepAnchor);
  c.insertText(text);
  setTextCursor(c);
}

void SqlEditor::keyPressEvent(QKeyEvent* e) {
  if (completer_->popup()->isVisible()) {
    switch (e->key()) {
      case Qt::Key_Enter:
      case Qt::Key_Return:
      case Qt::Key_Escape:
      case Qt::Key_Tab:
      case Qt::Key_Backtab:
        e->ignore();  // the completer takes these
        return;
      default:
        break;
    }
  }
  const bool explicit_request = (e->modifiers() & Qt::ControlModifier) && e->key() == Qt::Key_Space;
  if (!explicit_request) QPlainTextEdit::keyPressEvent(e);
  if (explicit_request) return showCompletions();
  const QString typed = e->text();
  const bool word_key =
      !typed.isEmpty() &&
      (typed[0].isLetterOrNumber() || typed[0] == QLatin1Char('_') || typed[0] == QLatin1Char('.'));
  if (!word_key || (e->modifiers() & (Qt::ControlModifier | Qt::AltModifier))) {
    completer_->popup()->hide();
    return;
  }
  // Open by itself after two characters of a word or a qualifier's dot.
  int start = 0;
  const QString text = toPlainText();
  const int pos = textCursor().position();
  sqlCompletions(vocabulary_, text, pos, &start);
  if (pos - start >= 2 || typed[0] == QLatin1Char('.') || completer_->popup()->isVisible())
    showCompletions();
}

}  // namespace fathom::gui
