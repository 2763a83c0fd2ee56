#include "widgets/query/sql_highlighter.h"

#include "widgets/common/theme.h"

namespace fathom::gui {

SqlHighlighter::SqlHighlighter(QTextDocument* doc) : QSyntaxHighlighter(doc) {
  static const char* kKeywords[] = {
      "select",    "from",      "where",  "group",    "by",        "order",  "limit",   "offset",
      "join",      "left",      "right",  "inner",    "outer",     "cross",  "on",      "using",
      "as",        "and",       "or",     "not",      "null",      "is",     "in",      "like",
      "glob",      "between",   "case",   "when",     "then",      "else",   "end",     "with",
      "recursive", "union",     "all",    "distinct", "having",    "asc",    "desc",    "create",
      "view",      "table",     "drop",   "insert",   "into",      "values", "exists",  "cast",
      "over",      "partition", "window", "filter",   "if",        "temp",   "include", "perfetto",
      "module",    "natural",   "escape", "collate",  "intersect", "except"};
  for (const char* k : kKeywords) keywords_.insert(QString::fromLatin1(k));
  const bool dark = isDarkPalette();
  keyword_.setForeground(dark ? QColor(0x82, 0xaa, 0xff) : QColor(0x1a, 0x4f, 0xb5));
  keyword_.setFontWeight(QFont::Bold);
  table_.setForeground(dark ? QColor(0x4e, 0xc9, 0xb0) : QColor(0x00, 0x7a, 0x6c));
  string_.setForeground(dark ? QColor(0xce, 0x91, 0x78) : QColor(0xa3, 0x15, 0x15));
  number_.setForeground(dark ? QColor(0xb5, 0xce, 0xa8) : QColor(0x09, 0x86, 0x58));
  comment_.setForeground(QColor(0x80, 0x80, 0x80));
  comment_.setFontItalic(true);
}

void SqlHighlighter::setTableNames(const QStringList& names) {
  tables_.clear();
  for (const QString& n : names) tables_.insert(n.toLower());
  rehighlight();
}

void SqlHighlighter::highlightBlock(const QString& text) {
  // State 1: inside a /* */ comment carried over from the previous line.
  int i = 0;
  const int n = int(text.size());
  setCurrentBlockState(0);
  if (previousBlockState() == 1) {
    const int end = int(text.indexOf(QLatin1String("*/")));
    const int stop = end < 0 ? n : end + 2;
    setFormat(0, stop, comment_);
    if (end < 0) {
      setCurrentBlockState(1);
      return;
    }
    i = stop;
  }
  while (i < n) {
    const QChar c = text[i];
    if (c == QLatin1Char('-') && i + 1 < n && text[i + 1] == QLatin1Char('-')) {
      setFormat(i, n - i, comment_);
      return;
    }
    if (c == QLatin1Char('/') && i + 1 < n && text[i + 1] == QLatin1Char('*')) {
      const int end = int(text.indexOf(QLatin1String("*/"), i + 2));
      if (end < 0) {
        setFormat(i, n - i, comment_);
        setCurrentBlockState(1);
        return;
      }
      setFormat(i, end + 2 - i, comment_);
      i = end + 2;
      continue;
    }
    if (c == QLatin1Char('\'') || c == QLatin1Char('"')) {
      int j = i + 1;
      while (j < n && text[j] != c) ++j;
      setFormat(i, std::min(j + 1, n) - i, string_);
      i = j + 1;
      continue;
    }
    if (c.isDigit()) {
      int j = i;
      while (j < n && (text[j].isLetterOrNumber() || text[j] == QLatin1Char('.'))) ++j;
      setFormat(i, j - i, number_);
      i = j;
      continue;
    }
    if (c.isLetter() || c == QLatin1Char('_')) {
      int j = i;
      while (j < n && (text[j].isLetterOrNumber() || text[j] == QLatin1Char('_'))) ++j;
      const QString word = text.mid(i, j - i).toLower();
      if (keywords_.contains(word))
        setFormat(i, j - i, keyword_);
      else if (tables_.contains(word))
        setFormat(i, j - i, table_);
      i = j;
      continue;
    }
    ++i;
  }
}

}  // namespace fathom::gui
