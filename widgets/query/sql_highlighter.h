// Colours SQL in the query editor: keywords, the trace's table and view names
// (handed in once the trace has loaded), strings, numbers and comments.
#pragma once

#include <QRegularExpression>
#include <QSet>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace fathom::gui {

class SqlHighlighter : public QSyntaxHighlighter {
  Q_OBJECT
 public:
  explicit SqlHighlighter(QTextDocument* doc);
  void setTableNames(const QStringList& names);

 protected:
  void highlightBlock(const QString& text) override;

 private:
  QSet<QString> keywords_, tables_;
  QTextCharFormat keyword_, table_, string_, number_, comment_;
};

}  // namespace fathom::gui
