// The omnibox's two passes on real traces. Expected counts come from the upstream
// oracle (trace_processor_shell), as in workspace_test:
//  - android_sched_binder_10s: select count(*) from slice where name like
//    '%binder transaction%' → 792; sched slices of threads / processes named like
//    '%surfaceflinger%' (utid != 0) → 840;
//  - chrome_big_trace.json: slices whose args' display_value contains '0x7f7d07dd6010'
//    → 64 (no slice name contains it).
#include "widgets/search/search_engine.h"

#include <QtTest>

#include "core/trace_processor.h"

using namespace fathom;
using namespace fathom::gui;

namespace {

const QString kTestdata = QStringLiteral(FATHOM_SHARED_DIR "/testdata/");
const auto kNever = [] { return false; };

int countOf(const SearchResult& r, SearchMatch::Kind kind) {
  int n = 0;
  for (const SearchMatch& m : r.matches) n += m.kind == kind;
  return n;
}

bool sortedByTime(const SearchResult& r) {
  for (int i = 1; i < r.matches.size(); ++i)
    if (r.matches[i - 1].ts > r.matches[i].ts) return false;
  return true;
}

}  // namespace

class SearchEngineTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(binder_.LoadFile((kTestdata + "android_sched_binder_10s.perfetto-trace").toStdString())
                .ok());
    QVERIFY(chrome_.LoadFile((kTestdata + "chrome_big_trace.json").toStdString()).ok());
  }

  // Names answer in the first pass, case-insensitively; the args pass adds nothing here.
  void namesComeFirst() {
    const SearchQuery q{QStringLiteral("BINDER Transaction"), false};
    const SearchResult names = searchNames(binder_.storage(), q, kNever);
    QVERIFY(!names.complete);
    QCOMPARE(countOf(names, SearchMatch::Kind::kSlice), 792);
    QVERIFY(sortedByTime(names));
    SearchResult all = names;
    mergeSearchResults(all, searchArgs(binder_.storage(), q, kNever));
    QCOMPARE(all.matches.size(), names.matches.size());
  }

  void threadAndProcessNamesFindSched() {
    const SearchResult r =
        runSearch(binder_.storage(), SearchQuery{QStringLiteral("SurfaceFlinger"), false});
    QCOMPARE(countOf(r, SearchMatch::Kind::kSched), 840);
    QVERIFY(sortedByTime(r));
  }

  // A value only in args: nothing from the names pass, all of it from the args pass.
  void argsComeSecond() {
    const SearchQuery q{QStringLiteral("0x7f7d07dd6010"), false};
    QCOMPARE(searchNames(chrome_.storage(), q, kNever).matches.size(), 0);
    const SearchResult args = searchArgs(chrome_.storage(), q, kNever);
    QCOMPARE(countOf(args, SearchMatch::Kind::kSlice), 64);
    QCOMPARE(runSearch(chrome_.storage(), q).matches.size(), 64);
  }

  void regex() {
    const SearchResult r =
        runSearch(binder_.storage(), SearchQuery{QStringLiteral("^BINDER TRANS.*N$"), true});
    QCOMPARE(r.matches.size(), 715);  // the oracle: regexp('^binder transaction$', name)
    const SearchResult bad =
        searchNames(binder_.storage(), SearchQuery{QStringLiteral("(unclosed"), true}, kNever);
    QVERIFY(bad.error.startsWith(QStringLiteral("bad regex")));
    QVERIFY(bad.complete);
  }

  // A newer search sets the flag: each pass stops at its next look and says so.
  void cancelledPassesStop() {
    const SearchQuery q{QStringLiteral("binder"), false};
    auto always = [] { return true; };
    QVERIFY(searchNames(binder_.storage(), q, always).cancelled);
    QVERIFY(searchArgs(chrome_.storage(), SearchQuery{QStringLiteral("0x7f"), false}, always)
                .cancelled);
  }

 private:
  TraceProcessor binder_;
  TraceProcessor chrome_;
};

QTEST_GUILESS_MAIN(SearchEngineTest)
#include "search_engine_test.moc"
