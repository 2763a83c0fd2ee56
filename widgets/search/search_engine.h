// What the omnibox finds: slices by name or by an arg's display value, and the
// scheduling slices of threads whose thread or process name matches. It runs
// on the session's query lane (never on the UI thread) in two passes so the
// first matches show at once on a large trace:
//  1. names: each distinct interned string is tested once, then the slice and
//     sched columns are scanned as integers (milliseconds on 300 MB);
//  2. args: the display values of the args of slices whose name did not match.
// Each pass checks a cancel flag, so a newer search does not wait behind it.
#pragma once

#include <QMetaType>
#include <QString>
#include <QVector>
#include <functional>

namespace fathom {
class TraceStorage;
}

namespace fathom::gui {

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
  bool truncated = false;        // more than kMaxSearchMatches matched
  bool complete = true;          // false: the args pass is still to come
  bool cancelled = false;        // a newer search took over; matches are partial
  QString error;                 // a bad regex
};

// Enough to step through by hand; more only costs memory.
inline constexpr int kMaxSearchMatches = 200000;

using SearchCancelled = std::function<bool()>;

// Pass 1: slices whose name matches, sched slices of matching threads / processes.
SearchResult searchNames(const TraceStorage& s, const SearchQuery& q,
                         const SearchCancelled& cancelled);
// Pass 2: slices whose name does not match but one of whose args' display values does.
SearchResult searchArgs(const TraceStorage& s, const SearchQuery& q,
                        const SearchCancelled& cancelled);
// Adds `more` (disjoint from `into`) to `into`, keeping the order and the cap.
void mergeSearchResults(SearchResult& into, const SearchResult& more);
// Both passes, merged (tests, benchmarks).
SearchResult runSearch(const TraceStorage& s, const SearchQuery& q);

}  // namespace fathom::gui

Q_DECLARE_METATYPE(fathom::gui::SearchMatch)
