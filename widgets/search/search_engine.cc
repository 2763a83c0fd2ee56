#include "widgets/search/search_engine.h"

#include <algorithm>

#include "core/storage/trace_storage.h"
#include "widgets/search/search_matcher.h"

namespace fathom::gui {
namespace {

// Rows between two looks at the cancel flag.
constexpr uint32_t kCancelStride = 1u << 16;

bool matchOrder(const SearchMatch& a, const SearchMatch& b) {
  if (a.ts != b.ts) return a.ts < b.ts;
  if (a.kind != b.kind) return a.kind < b.kind;
  return a.row < b.row;
}

// Sorts and keeps the first kMaxSearchMatches (a partial sort: a common word can match
// millions of rows).
void finish(SearchResult& r) {
  auto& m = r.matches;
  if (m.size() > kMaxSearchMatches) {
    std::nth_element(m.begin(), m.begin() + kMaxSearchMatches, m.end(), matchOrder);
    m.resize(kMaxSearchMatches);
    r.truncated = true;
  }
  std::sort(m.begin(), m.end(), matchOrder);
}

SearchMatch sliceMatch(const SliceTable& sl, uint32_t i) {
  return {SearchMatch::Kind::kSlice, i, sl.track_id[i], sl.ts[i], sl.dur[i]};
}

// Threads (utid 0, the idle task, never) whose thread or process name matches.
std::vector<bool> matchingThreads(const TraceStorage& s, SearchMatcher& m) {
  std::vector<bool> out(s.thread.row_count(), false);
  for (uint32_t utid = 1; utid < s.thread.row_count(); ++utid) {
    bool hit = m.matchesId(s.thread.name[utid]);
    if (auto upid = s.thread.upid.Get(utid); !hit && upid && *upid < s.process.row_count())
      hit = m.matchesId(s.process.name[*upid]);
    out[utid] = hit;
  }
  return out;
}

SearchResult prepared(const SearchQuery& q, const SearchMatcher& m) {
  SearchResult r;
  r.query = q;
  if (!m.valid())
    r.error = QStringLiteral("bad regex: ") + QRegularExpression(q.text).errorString();
  return r;
}

}  // namespace

SearchResult searchNames(const TraceStorage& s, const SearchQuery& q,
                         const SearchCancelled& cancelled) {
  SearchMatcher m(q.text, q.regex, s.strings);
  SearchResult r = prepared(q, m);
  r.complete = false;
  if (q.text.isEmpty() || !r.error.isEmpty()) return r.complete = true, r;
  const SliceTable& sl = s.slice;
  for (uint32_t i = 0; i < sl.row_count(); ++i) {
    if (i % kCancelStride == 0 && cancelled()) return r.cancelled = true, r;
    if (m.matchesId(sl.name[i])) r.matches.push_back(sliceMatch(sl, i));
  }
  const std::vector<bool> threads = matchingThreads(s, m);
  if (std::find(threads.begin(), threads.end(), true) != threads.end()) {
    // sched is sorted by ts: past the cap's worth of its own matches, none can be among
    // the first kMaxSearchMatches.
    const auto& sc = s.sched;
    int found = 0;
    for (uint32_t i = 0; i < sc.row_count() && found <= kMaxSearchMatches; ++i) {
      if (i % kCancelStride == 0 && cancelled()) return r.cancelled = true, r;
      const uint32_t utid = sc.utid[i];
      if (utid >= threads.size() || !threads[utid]) continue;
      r.matches.push_back({SearchMatch::Kind::kSched, i, uint32_t(sc.cpu[i]), sc.ts[i], sc.dur[i]});
      ++found;
    }
  }
  finish(r);
  return r;
}

SearchResult searchArgs(const TraceStorage& s, const SearchQuery& q,
                        const SearchCancelled& cancelled) {
  SearchMatcher m(q.text, q.regex, s.strings);
  SearchResult r = prepared(q, m);
  if (q.text.isEmpty() || !r.error.isEmpty()) return r;
  s.args.EnsureMaterialized();  // arg set ids are final from here (ArgsTable)
  // The arg sets of slices not already found by name: only their args are read.
  const SliceTable& sl = s.slice;
  std::vector<uint8_t> wanted;  // by arg set id: 1 wanted, 2 matched
  for (uint32_t i = 0; i < sl.row_count(); ++i) {
    if (i % kCancelStride == 0 && cancelled()) return r.cancelled = true, r;
    const auto set = sl.arg_set_id.Get(i);
    if (!set || m.matchesId(sl.name[i])) continue;
    if (*set >= wanted.size()) wanted.resize(size_t(*set) + 1, 0);
    wanted[*set] = 1;
  }
  if (wanted.empty()) return r;
  // Each wanted set's rows are found by binary search: the raw ftrace events' sets, most
  // of the table, are never read.
  const ArgsTable& a = s.args;
  const auto& sets = a.arg_set_id.data();  // sorted by set id
  auto from = sets.begin();
  uint32_t looked = 0;
  for (uint32_t set = 0; set < wanted.size(); ++set) {
    if (wanted[set] != 1) continue;
    if (++looked % kCancelStride == 0 && cancelled()) return r.cancelled = true, r;
    from = std::lower_bound(from, sets.end(), set);
    for (auto it = from; it != sets.end() && *it == set; ++it) {
      const auto row = uint32_t(it - sets.begin());
      if (a.display_value.IsNull(row)) continue;
      const StringId text = a.display_value[row];
      if (text != kNullStringId ? m.matchesId(text)
                                : m.matches(a.display_value.ComputedText(row, s.strings))) {
        wanted[set] = 2;
        break;
      }
    }
  }
  for (uint32_t i = 0; i < sl.row_count(); ++i) {
    const auto set = sl.arg_set_id.Get(i);
    if (set && *set < wanted.size() && wanted[*set] == 2 && !m.matchesId(sl.name[i]))
      r.matches.push_back(sliceMatch(sl, i));
  }
  finish(r);
  return r;
}

void mergeSearchResults(SearchResult& into, const SearchResult& more) {
  into.matches += more.matches;
  into.truncated = into.truncated || more.truncated;
  if (into.error.isEmpty()) into.error = more.error;
  finish(into);
}

SearchResult runSearch(const TraceStorage& s, const SearchQuery& q) {
  auto never = [] { return false; };
  SearchResult r = searchNames(s, q, never);
  if (r.complete) return r;
  mergeSearchResults(r, searchArgs(s, q, never));
  r.complete = true;
  return r;
}

}  // namespace fathom::gui
