// What the omnibox finds: slices by name or by an arg's display value, and the
// scheduling slices of threads whose thread or process name matches. The lookup
// is SQL over the loaded trace and runs on the session's query lane (never on
// the UI thread); the UI gets the matches in time order.
#pragma once

#include <QMetaType>
#include <QString>
#include <QVector>

namespace fathom::gui {

struct Core;

struct SearchMatch {
  enum class Kind { kSlice, kSched };
  Kind kind = Kind::kSlice;
  quint32 row = 0;  // slice or sched row
  quint32 ref = 0;  // kSlice: track_id; kSched: cpu
  qint64 ts = 0;
  qint64 dur = 0;
};

struct SearchQuery {
  QString text;
  bool regex = false;
};

struct SearchResult {
  SearchQuery query;
  QVector<SearchMatch> matches;  // by ts, then kind, then row
  bool truncated = false;        // more than kMaxMatches matched
  QString error;                 // a bad regex, a failed query
};

// Enough to step through by hand; more only costs memory.
inline constexpr int kMaxSearchMatches = 200000;

// The SQL that lists the matches (exposed for tests and the README).
QString searchSql(const SearchQuery& q);
// Runs on a worker lane.
SearchResult runSearch(Core& core, const SearchQuery& q);

}  // namespace fathom::gui

Q_DECLARE_METATYPE(fathom::gui::SearchMatch)
