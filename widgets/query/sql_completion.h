// What the Query page completes: module names after INCLUDE PERFETTO MODULE,
// a table's columns after `alias.`, and otherwise tables, views, functions,
// columns and keywords. The vocabulary is read from the session's engine,
// so objects of included modules (tables, views, functions) are in it once
// the query that included them has run.
#pragma once

#include <QHash>
#include <QStringList>

namespace fathom {
class TraceProcessor;
}

namespace fathom::gui {

struct SqlVocabulary {
  QStringList modules;                  // "android.startup.startups", ...
  QStringList tables;                   // tables and views
  QStringList functions;                // scalar, aggregate and PERFETTO functions
  QHash<QString, QStringList> columns;  // lower-case table name -> its columns
};

// Reads the vocabulary; runs on the session's query lane.
SqlVocabulary readSqlVocabulary(TraceProcessor& tp);

// The candidates for the word that ends at `pos` in `text` (case-insensitive
// prefix matches, sorted); `*word_start` is where the part they replace begins.
QStringList sqlCompletions(const SqlVocabulary& v, const QString& text, int pos, int* word_start);

}  // namespace fathom::gui
