// The Query page's editor: a QPlainTextEdit with completion (sql_completion.h).
// Ctrl+Space lists what fits at the cursor; typing two characters of a word,
// or a '.', opens the list by itself. Enter or Tab takes the chosen entry,
// Esc closes the list.
#pragma once

#include <QPlainTextEdit>

#include "widgets/query/sql_completion.h"

class QCompleter;
class QStringListModel;

namespace fathom::gui {

class SqlEditor : public QPlainTextEdit {
  Q_OBJECT
 public:
  explicit SqlEditor(QWidget* parent = nullptr);

  void setVocabulary(SqlVocabulary v) { vocabulary_ = std::move(v); }
  const SqlVocabulary& vocabulary() const { return vocabulary_; }
  // The candidates for the word at the cursor.
  QStringList completions() const;
  // Opens the list for the word at the cursor (closes it when nothing fits).
  void showCompletions();
  QCompleter* completer() const { return completer_; }

 protected:
  void keyPressEvent(QKeyEvent* e) override;

 private:
  void insertCompletion(const QString& text);

  SqlVocabulary vocabulary_;
  QCompleter* completer_;
  QStringListModel* model_;
  int word_start_ = 0;
};

}  // namespace fathom::gui
