#include "widgets/query/sql_completion.h"

#include <QRegularExpression>
#include <QSet>

#include "core/trace_processor.h"

namespace fathom::gui {
namespace {

const char* const kKeywords[] = {"SELECT",
                                 "FROM",
                                 "WHERE",
                                 "GROUP",
                                 "BY",
                                 "ORDER",
                                 "LIMIT",
                                 "JOIN",
                                 "LEFT",
                                 "INNER",
                                 "CROSS",
                                 "ON",
                                 "USING",
                                 "AS",
                                 "AND",
                                 "OR",
                                 "NOT",
                                 "NULL",
                                 "IS",
                                 "IN",
                                 "LIKE",
                                 "GLOB",
                                 "BETWEEN",
                                 "CASE",
                                 "WHEN",
                                 "THEN",
                                 "ELSE",
                                 "END",
                                 "WITH",
                                 "UNION",
                                 "ALL",
                                 "DISTINCT",
                                 "HAVING",
                                 "OFFSET",
                                 "DESC",
                                 "ASC",
                                 "CREATE",
                                 "PERFETTO",
                                 "TABLE",
                                 "VIEW",
                                 "FUNCTION",
                                 "MACRO",
                                 "INCLUDE",
                                 "MODULE",
                                 "RETURNS",
                                 "SPAN_JOIN",
                                 "SPAN_LEFT_JOIN",
                                 "PARTITIONED",
                                 "EXISTS",
                                 "COUNT",
                                 "OVER",
                                 "PARTITION"};

QStringList Strings(TraceProcessor& tp, const std::string& sql) {
  QStringList out;
  auto it = tp.Query(sql);
  if (!it->NextResultSet()) return out;
  while (it->NextRow()) {
    const SqlValue v = it->Get(0);
    if (v.type == SqlValue::kString) out << QString::fromUtf8(v.s.data(), qsizetype(v.s.size()));
  }
  return out;
}

bool Hidden(const QString& name) {
  return name.startsWith(QLatin1String("__intrinsic")) || name.startsWith(QLatin1String("sqlite_"));
}

bool IsWordChar(QChar c) { return c.isLetterOrNumber() || c == QLatin1Char('_'); }

// alias (or table name) -> table, from the FROM/JOIN clauses of `text`.
QHash<QString, QString> Aliases(const QString& text, const SqlVocabulary& v) {
  static const QRegularExpression re(
      QStringLiteral(R"(\b(?:FROM|JOIN)\s+([A-Za-z_]\w*)(?:\s+(?:AS\s+)?([A-Za-z_]\w*))?)"),
      QRegularExpression::CaseInsensitiveOption);
  static const QSet<QString> not_alias = {"where", "join",  "on",    "using",  "left",  "inner",
                                          "cross", "group", "order", "limit",  "union", "natural",
                                          "outer", "full",  "right", "window", "having"};
  QHash<QString, QString> out;
  for (auto it = re.globalMatch(text); it.hasNext();) {
    const auto m = it.next();
    const QString table = m.captured(1).toLower();
    if (!v.columns.contains(table)) continue;
    out.insert(table, table);
    const QString alias = m.captured(2).toLower();
    if (!alias.isEmpty() && !not_alias.contains(alias)) out.insert(alias, table);
  }
  return out;
}

void AddMatches(const QStringList& names, const QString& prefix, QStringList* out) {
  for (const QString& n : names)
    if (n.startsWith(prefix, Qt::CaseInsensitive) && n.compare(prefix, Qt::CaseInsensitive) != 0)
      *out << n;
}

}  // namespace

SqlVocabulary readSqlVocabulary(TraceProcessor& tp) {
  SqlVocabulary v;
  for (const std::string& m : tp.sql_packages().AllModules())
    v.modules << QString::fromStdString(m);
  QSet<QString> tables;
  for (Table* t : tp.storage().AllTables()) tables.insert(QString::fromStdString(t->name()));
  for (const QString& t :
       Strings(tp, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"))
    tables.insert(t);
  for (const QString& t : tables) {
    if (Hidden(t)) continue;
    v.tables << t;
    QString quoted = t;
    quoted.replace(QLatin1Char('\''), QLatin1String("''"));
    v.columns.insert(t.toLower(), Strings(tp, "SELECT name FROM pragma_table_info('" +
                                                  quoted.toStdString() + "')"));
  }
  for (const QString& f : Strings(tp, "SELECT DISTINCT name FROM pragma_function_list"))
    if (!Hidden(f)) v.functions << f;
  return v;
}

QStringList sqlCompletions(const SqlVocabulary& v, const QString& text, int pos, int* word_start) {
  pos = qBound(0, pos, int(text.size()));
  int start = pos;
  while (start > 0 && (IsWordChar(text[start - 1]) || text[start - 1] == QLatin1Char('.'))) --start;
  const QString word = text.mid(start, pos - start);
  *word_start = start;
  QStringList out;
  static const QRegularExpression include_re(QStringLiteral(R"(\bINCLUDE\s+PERFETTO\s+MODULE\s*$)"),
                                             QRegularExpression::CaseInsensitiveOption);
  if (include_re.match(text.left(start)).hasMatch()) {
    AddMatches(v.modules, word, &out);
  } else if (const int dot = int(word.lastIndexOf(QLatin1Char('.'))); dot >= 0) {
    // alias.column: the columns of the table the alias names.
    const QString table = Aliases(text, v).value(word.left(dot).toLower());
    *word_start = start + dot + 1;
    AddMatches(v.columns.value(table), word.mid(dot + 1), &out);
  } else if (!word.isEmpty()) {
    AddMatches(v.tables, word, &out);
    AddMatches(v.functions, word, &out);
    QSet<QString> seen;
    for (const QString& table : Aliases(text, v)) {
      if (seen.contains(table)) continue;
      seen.insert(table);
      AddMatches(v.columns.value(table), word, &out);
    }
    for (const char* k : kKeywords) AddMatches({QString::fromLatin1(k)}, word, &out);
  }
  out.removeDuplicates();
  std::sort(out.begin(), out.end(), [](const QString& a, const QString& b) {
    return a.compare(b, Qt::CaseInsensitive) < 0;
  });
  return out;
}

}  // namespace fathom::gui
