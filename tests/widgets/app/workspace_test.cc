// The trace workspace offscreen, as issue 29 asks: the omnibox finds the binder
// transactions SQL finds (the expected count comes from the upstream oracle,
// trace_processor_shell, not from Fathom), Enter / Shift+Enter step through them
// in time order and select each on the timeline, ':' runs SQL on the query page,
// the bottom panel folds and unfolds (and starts folded on a trace with nothing
// to show there), and at 1024×700 the flamegraph's toolbar stays in the window.
#include <QClipboard>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTabBar>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QtTest>

#include "app/gui/bottom_panel.h"
#include "app/gui/main_window.h"
#include "app/gui/trace_workspace.h"
#include "widgets/flamegraph/caller_model.h"
#include "widgets/flamegraph/caller_tables.h"
#include "widgets/flamegraph/flamegraph_panel.h"
#include "widgets/query/query_page.h"
#include "widgets/query/query_result_model.h"
#include "widgets/query/query_results_panel.h"
#include "widgets/search/search_box.h"
#include "widgets/timeline/timeline_canvas.h"
#include "widgets/timeline/timeline_view.h"

using namespace fathom::gui;

namespace {

const QString kBinderTrace =
    QStringLiteral(FATHOM_SHARED_DIR "/testdata/android_sched_binder_10s.perfetto-trace");
// trace_processor_shell query: select count(*) from slice where name like
// '%binder transaction%'  →  792 on android_sched_binder_10s (no thread, process or arg of
// that trace contains the text, so the omnibox finds exactly those).
constexpr int kBinderTransactions = 792;

bool openAndWait(MainWindow& w, const QString& path) {
  QSignalSpy opened(&w, &MainWindow::traceOpened);
  w.openTrace(path);
  if (!opened.wait(120000)) return false;
  if (!opened.first().first().toBool()) return false;
  TimelineView* t = w.workspace()->timeline();
  return QTest::qWaitFor(
      [&] {
        return t->trackModel()->rowCount() > 0 && !t->isBusy() && w.workspace()->panelChecked();
      },
      30000);
}

QString detailsTitle(TimelineView* t) {
  return t->detailsModel()->headerData(0, Qt::Horizontal).toString();
}

}  // namespace

class WorkspaceTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("FathomTest"));
    QCoreApplication::setApplicationName(QStringLiteral("workspace_test"));
    QSettings().clear();
  }

  void searchStepsThroughBinderTransactions() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(openAndWait(w, kBinderTrace));
    TraceWorkspace* ws = w.workspace();
    SearchBox* box = ws->search();
    TimelineView* timeline = ws->timeline();
    // Ctrl+F from the timeline focuses the omnibox.
    timeline->setFocus();
    QTest::keyClick(timeline, Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(box->edit()->hasFocus());
    QSignalSpy finished(box, &SearchBox::searchFinished);
    QTest::keyClicks(box->edit(), QStringLiteral("binder transaction"));
    QVERIFY(finished.wait(20000));
    const SearchResult& r = box->result();
    QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
    QCOMPARE(r.matches.size(), kBinderTransactions);
    for (int i = 1; i < r.matches.size(); ++i) QVERIFY(r.matches[i - 1].ts <= r.matches[i].ts);
    QCOMPARE(box->statusText(), QStringLiteral("%1 matches").arg(kBinderTransactions));
    // The track filter stays its own box: searching hid no track.
    QCOMPARE(timeline->trackModel()->filter().pattern(), QString());
    QCOMPARE(timeline->canvas()->searchMarks().size(), kBinderTransactions);

    auto stepAndCheck = [&](bool forward, int expected) {
      QSignalSpy details(timeline, &TimelineView::detailsReady);
      QTest::keyClick(box->edit(), Qt::Key_Return, forward ? Qt::NoModifier : Qt::ShiftModifier);
      QVERIFY(details.wait(10000));
      QTRY_VERIFY(!timeline->isBusy());
      QCOMPARE(box->current(), expected);
      QCOMPARE(box->statusText(),
               QStringLiteral("%1 of %2").arg(expected + 1).arg(kBinderTransactions));
      QVERIFY2(detailsTitle(timeline).contains(QStringLiteral("binder transaction")),
               qPrintable(detailsTitle(timeline)));
      // Centred, visible and wide enough to see, on a track that is laid out and in view.
      const SearchMatch& m = r.matches[expected];
      TimelineCanvas* c = timeline->canvas();
      QVERIFY(c->rangeStart() <= m.ts && m.ts + m.dur <= c->rangeEnd());
      // (dur -1: a transaction that never ended, shown as an instant.)
      QVERIFY2(c->xAt(m.ts + m.dur) - c->xAt(m.ts) >= 4 || m.dur <= 0,
               qPrintable(QStringLiteral("match %1: ts %2 dur %3 in [%4, %5]")
                              .arg(expected)
                              .arg(m.ts)
                              .arg(m.dur)
                              .arg(c->rangeStart())
                              .arg(c->rangeEnd())));
      const QRect row = c->trackRect([&] {
        const TrackLayout& L = timeline->trackModel()->layout();
        for (int i = 0; i < L.tracks.size(); ++i)
          if (L.tracks[i].hasSliceTrack(m.ref)) return i;
        return -1;
      }());
      QVERIFY(row.isValid());
      QVERIFY(row.top() >= TimelineCanvas::kRulerHeight && row.top() < c->height());
      // The details tab of the bottom panel is open.
      QVERIFY(!ws->bottomPanel()->isCollapsed());
      QCOMPARE(ws->bottomPanel()->currentWidget(), ws->details());
    };
    stepAndCheck(true, 0);
    stepAndCheck(true, 1);
    stepAndCheck(false, 0);
    stepAndCheck(false, kBinderTransactions - 1);  // wraps around
    QVERIFY(w.grab().save(QStringLiteral(FATHOM_SCREENSHOT_DIR "/workspace_search.png")));
  }

  void regexFromSlashes() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(openAndWait(w, kBinderTrace));
    SearchBox* box = w.workspace()->search();
    QSignalSpy finished(box, &SearchBox::searchFinished);
    box->edit()->setText(QStringLiteral("/^BINDER TRANS.*N$/"));
    QVERIFY(finished.wait(20000));
    // trace_processor_shell: select count(*) from slice where regexp('^binder transaction$',
    // name) → 715 (the other 77 are "binder transaction async").
    QCOMPARE(box->result().matches.size(), 715);
    // A pattern that starts with ':' is a search, not SQL (the label said "Enter: run SQL").
    QSignalSpy sql(box, &SearchBox::sqlEntered);
    box->edit()->setText(QStringLiteral("/:|^binder transaction$/"));
    QVERIFY(finished.wait(20000));
    QVERIFY(box->result().matches.size() > 715);
    QVERIFY2(box->statusText().endsWith(QStringLiteral("matches")), qPrintable(box->statusText()));
    box->step(true);
    QVERIFY(sql.isEmpty());
  }

  // Args and thread/process names, against the oracle (trace_processor_shell):
  //  chrome_big_trace.json: select count(*) from slice where name like '%0x7f7d07dd6010%' or
  //    arg_set_id in (select arg_set_id from args where display_value like '%0x7f7d07dd6010%')
  //    → 64 (an "args.id" value);
  //  android_sched_binder_10s: select count(*) from sched where utid != 0 and utid in (select
  //    utid from thread left join process using(upid) where thread.name like '%surfaceflinger%'
  //    or process.name like '%surfaceflinger%') → 840 scheduling slices. (The oracle also has
  //    46 binder replies whose "destination name" arg says surfaceflinger; Fathom does not
  //    import that binder arg yet, so only the sched part is checked here.)
  void searchFindsArgsAndThreads_data() {
    QTest::addColumn<QString>("trace");
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("expected");
    QTest::newRow("arg value") << QStringLiteral("chrome_big_trace.json")
                               << QStringLiteral("0x7f7d07dd6010") << int(SearchMatch::Kind::kSlice)
                               << 64;
    QTest::newRow("thread and process names")
        << QStringLiteral("android_sched_binder_10s.perfetto-trace")
        << QStringLiteral("SurfaceFlinger") << int(SearchMatch::Kind::kSched) << 840;
  }
  void searchFindsArgsAndThreads() {
    QFETCH(QString, trace);
    QFETCH(QString, text);
    QFETCH(int, kind);
    QFETCH(int, expected);
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(openAndWait(w, QStringLiteral(FATHOM_SHARED_DIR "/testdata/") + trace));
    SearchBox* box = w.workspace()->search();
    QSignalSpy finished(box, &SearchBox::searchFinished);
    box->edit()->setText(text);
    QVERIFY(finished.wait(20000));
    int n = 0;
    for (const SearchMatch& m : box->result().matches) n += int(m.kind) == kind;
    QCOMPARE(n, expected);
    // The first one is revealed on its track (a CPU track for a scheduling slice).
    QSignalSpy details(w.workspace()->timeline(), &TimelineView::detailsReady);
    box->step(true);
    QVERIFY(details.wait(10000));
    const QString title = detailsTitle(w.workspace()->timeline());
    QVERIFY2(title.startsWith(kind == int(SearchMatch::Kind::kSched) ? QStringLiteral("Scheduling")
                                                                     : QStringLiteral("Slice")),
             qPrintable(title));
  }

  void colonRunsSql() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(openAndWait(w, kBinderTrace));
    SearchBox* box = w.workspace()->search();
    box->activate();
    QTest::keyClicks(box->edit(), QStringLiteral(":select 6 * 7 as answer"));
    QTest::keyClick(box->edit(), Qt::Key_Return);
    // The answer shows in the bottom panel's Query results tab; the timeline stays.
    QueryResultsPanel* results = w.workspace()->queryResults();
    QTRY_COMPARE_WITH_TIMEOUT(results->model()->rowCount(), 1, 10000);
    QCOMPARE(results->model()->index(0, 0).data().toString(), QStringLiteral("42"));
    QCOMPARE(w.workspace()->bottomPanel()->currentWidget(), static_cast<QWidget*>(results));
    QVERIFY(!w.workspace()->bottomPanel()->isCollapsed());
    QVERIFY(w.workspace()->timeline()->isVisible());
    QTRY_VERIFY(results->statusText().contains(QStringLiteral("1 row")));
    // The Query page has the statement for editing.
    QCOMPARE(w.workspace()->query()->query(), QStringLiteral("select 6 * 7 as answer"));
  }

  // Issue 29 item 13: a double-click on a result row that names a slice
  // selects that slice on the timeline; a thread row brings its tracks into
  // view; Ctrl+C copies the selected cells.
  void queryRowsLeadToTheTimeline() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(openAndWait(w, kBinderTrace));
    TraceWorkspace* ws = w.workspace();
    QueryPage* page = ws->query();
    ws->setView(TraceWorkspace::View::kQuery);
    page->setQuery(
        QStringLiteral("select id, ts, dur, track_id, name from slice where name = 'binder reply' "
                       "order by ts limit 3 offset 5"));
    page->runQuery();
    QTRY_VERIFY_WITH_TIMEOUT(page->model()->isComplete(), 10000);
    QCOMPARE(page->model()->rowCount(), 3);
    const qint64 id = page->model()->value(1, 0).toLongLong();
    const qint64 ts = page->model()->value(1, 1).toLongLong();
    const qint64 track = page->model()->value(1, 3).toLongLong();
    QTableView* view = page->resultView();
    const QRect cell = view->visualRect(page->model()->index(1, 4));
    TimelineView* timeline = ws->timeline();
    QSignalSpy details(timeline, &TimelineView::detailsReady);
    // A real double-click: press and release, then the double-click event.
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, cell.center());
    QVERIFY(details.wait(10000));
    QTRY_VERIFY(!timeline->isBusy());
    QVERIFY(timeline->isVisible());
    QVERIFY2(detailsTitle(timeline).contains(QStringLiteral("binder reply")),
             qPrintable(detailsTitle(timeline)));
    TimelineCanvas* c = timeline->canvas();
    const TrackLayout& L = timeline->trackModel()->layout();
    QVERIFY(c->highlightTrack() >= 0);
    QCOMPARE(qint64(L.tracks[c->highlightTrack()].track_id), track);
    QCOMPARE(qint64(c->highlightRow()), id);
    QVERIFY(c->rangeStart() <= ts && ts <= c->rangeEnd());

    // A thread row: its state track is laid out and in view.
    ws->setView(TraceWorkspace::View::kQuery);
    page->setQuery(
        QStringLiteral("select utid, tid, name from thread where name = 'SensorService' limit 1"));
    page->runQuery();
    QTRY_VERIFY_WITH_TIMEOUT(page->model()->isComplete(), 10000);
    QCOMPARE(page->model()->rowCount(), 1);
    const quint32 utid = quint32(page->model()->value(0, 0).toLongLong());
    QSignalSpy revealed(ws, &TraceWorkspace::rowRevealed);
    const QPoint name = view->visualRect(page->model()->index(0, 2)).center();
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, name);
    QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, name);
    QVERIFY(revealed.count() == 1 || revealed.wait(5000));
    QTRY_VERIFY(!timeline->isBusy());
    const int stateTrack = L.stateTrack(utid);
    QVERIFY(stateTrack >= 0);
    const QRect r = c->trackRect(stateTrack);
    QVERIFY(r.isValid());
    QVERIFY(r.top() >= TimelineCanvas::kRulerHeight && r.bottom() <= c->height());

    // Ctrl+C on a selected cell copies its value.
    ws->setView(TraceWorkspace::View::kQuery);
    view->setCurrentIndex(page->model()->index(0, 1));
    view->setFocus();
    QTest::keyClick(view, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(QApplication::clipboard()->text(), page->model()->value(0, 1).toString());
  }

  // Issue 29 item 14: selecting one thread's track filters the CPU-sample
  // flamegraph to that thread (149 of the trace's 355 samples are
  // rcu_preempt's, as the oracle counts them).
  void threadSelectionFiltersCpuSamples() {
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY(openAndWait(
        w, QStringLiteral(FATHOM_SHARED_DIR "/testdata/linux_compact_sched_perf_samples.pftrace")));
    TraceWorkspace* ws = w.workspace();
    TimelineView* timeline = ws->timeline();
    FlamegraphPanel* flame = ws->flamegraph();
    QTRY_VERIFY_WITH_TIMEOUT(flame->tree() && !flame->isBusy(), 20000);
    QCOMPARE(flame->tree()->total(), 355.0);  // all samples at first
    const TrackLayout& L = timeline->trackModel()->layout();
    const int track = L.stateTrack(98);
    QVERIFY(track >= 0);
    timeline->selectArea(w.session()->traceStart(), w.session()->traceEnd() + 1, {track});
    QTRY_VERIFY_WITH_TIMEOUT(flame->tree() && !flame->isBusy() && flame->tree()->total() != 355.0,
                             20000);
    QCOMPARE(flame->tree()->total(), 149.0);

    // Only the thread's CPU-sample track selected: nothing to aggregate, so
    // the panel shows the samples' flamegraph rather than an empty table.
    int samples = -1;
    for (int i = 0; i < L.tracks.size(); ++i)
      if (L.tracks[i].kind == TrackKind::kCpuSamples && L.tracks[i].utid == 98) samples = i;
    QVERIFY(samples >= 0);
    ws->bottomPanel()->setCurrentWidget(ws->details());
    QSignalSpy stats(timeline, &TimelineView::selectionStatsReady);
    timeline->selectArea(w.session()->traceStart(), w.session()->traceStart() + 500000000,
                         {samples});
    QVERIFY(stats.wait(20000));
    QCOMPARE(timeline->detailsModel()->rowCount(), 0);
    QCOMPARE(ws->bottomPanel()->currentWidget(), static_cast<QWidget*>(flame));
  }

  // Until the user sizes it, the panel keeps its share of the window: opened at 1024×700
  // and then maximised on a 4K screen it grows, instead of keeping ~210 px under a
  // 1900 px timeline.
  void panelKeepsItsShareUntilSized() {
    QSettings().remove(QStringLiteral("workspace/bottomPanelHeight"));
    MainWindow w;
    w.resize(1024, 700);
    w.show();
    QVERIFY(openAndWait(
        w, QStringLiteral(FATHOM_SHARED_DIR "/testdata/heapprofd_continuous_legacy.pb")));
    BottomPanel* panel = w.workspace()->bottomPanel();
    QVERIFY(!panel->isCollapsed());
    QTRY_VERIFY(panel->height() > 150);
    const int small = panel->height();
    w.resize(2400, 1600);
    QTRY_VERIFY2(panel->height() > small * 2,
                 qPrintable(QStringLiteral("%1 px, was %2").arg(panel->height()).arg(small)));
    w.resize(1024, 700);
    QTRY_COMPARE(panel->height(), small);
  }

  void panelFoldsAndStartsFolded() {
    MainWindow w;
    w.resize(1024, 700);
    w.show();
    QVERIFY(openAndWait(w, kBinderTrace));
    BottomPanel* panel = w.workspace()->bottomPanel();
    // No samples, heap data or logs in this trace: the panel starts as its tab bar.
    QVERIFY(panel->isCollapsed());
    QTRY_VERIFY(panel->height() <= panel->collapsedHeight() + 2);
    // The timeline gets the window: far more than the ~7 rows of before.
    QVERIFY(w.workspace()->timeline()->canvas()->height() > 450);
    auto* chevron = panel->findChild<QToolButton*>(QStringLiteral("bottomPanelChevron"));
    QVERIFY(chevron);
    QTest::mouseClick(chevron, Qt::LeftButton);
    QVERIFY(!panel->isCollapsed());
    QTRY_VERIFY(panel->height() > 100);
    // A click on the tab already shown folds it again.
    QTabBar* tabs = panel->tabBar();
    QTest::mouseClick(tabs, Qt::LeftButton, {}, tabs->tabRect(panel->currentIndex()).center());
    QVERIFY(panel->isCollapsed());
    QTRY_VERIFY(panel->height() <= panel->collapsedHeight() + 2);
    // Ctrl+J unfolds it; the choice is remembered.
    w.workspace()->timeline()->setFocus();
    QTest::keyClick(w.workspace()->timeline(), Qt::Key_J, Qt::ControlModifier);
    QVERIFY(!panel->isCollapsed());
    QVERIFY(!BottomPanel::rememberedCollapsed());
    QTRY_VERIFY(panel->height() > 100);

    // Dragging the splitter handle up resizes it freely, and the height is remembered.
    auto* split = qobject_cast<QSplitter*>(panel->parentWidget());
    QVERIFY(split);
    QSplitterHandle* handle = split->handle(1);
    const int before = panel->height();
    const QPoint grip = handle->rect().center();
    QTest::mousePress(handle, Qt::LeftButton, {}, grip);
    QTest::mouseMove(handle, grip - QPoint(0, 120));
    QTest::mouseRelease(handle, Qt::LeftButton, {}, grip - QPoint(0, 120));
    QTRY_VERIFY(panel->height() > before + 60);
    const int dragged = panel->height();
    QCOMPARE(QSettings().value(QStringLiteral("workspace/bottomPanelHeight")).toInt(), dragged);
    // ... down to the tab bar folds it.
    QTest::mousePress(handle, Qt::LeftButton, {}, grip);
    QTest::mouseMove(handle, grip + QPoint(0, 1000));
    QTest::mouseRelease(handle, Qt::LeftButton, {}, grip + QPoint(0, 1000));
    QTRY_VERIFY(panel->isCollapsed());
    QVERIFY(BottomPanel::rememberedCollapsed());
    QVERIFY(w.workspace()->timeline()->canvas()->height() > 450);
    // The next window unfolds it at the dragged height.
    QSettings().setValue(QStringLiteral("workspace/bottomPanelCollapsed"), false);
    MainWindow next;
    next.resize(1024, 700);
    next.show();
    QVERIFY(openAndWait(next, kBinderTrace));
    next.workspace()->bottomPanel()->setCollapsed(false);
    QTRY_COMPARE(next.workspace()->bottomPanel()->height(), dragged);
  }

  // At 1024×700 the callers / callees tables each showed less than one row and the
  // "Function" title read "ncti": the table shown keeps at least three rows and every
  // column title is whole.
  void flamegraphSideTablesAt1024x700() {
    MainWindow w;
    w.resize(1024, 700);
    w.show();
    QVERIFY(openAndWait(
        w, QStringLiteral(FATHOM_SHARED_DIR "/testdata/linux_compact_sched_perf_samples.pftrace")));
    FlamegraphPanel* flame = w.workspace()->flamegraph();
    w.workspace()->bottomPanel()->reveal(flame);
    QTRY_VERIFY_WITH_TIMEOUT(flame->tree() && !flame->isBusy(), 30000);
    QCoreApplication::processEvents();
    CallerTables* side = flame->callerTables();
    QVERIFY(side->isVisible());
    int shown = 0;
    for (auto which : {CallerTables::kCallers, CallerTables::kCallees}) {
      QTableView* v = side->view(which);
      if (!v->isVisible()) continue;
      ++shown;
      const int row = v->verticalHeader()->defaultSectionSize();
      QVERIFY2(
          v->viewport()->height() >= 3 * row,
          qPrintable(
              QStringLiteral("%1 px for rows of %2 px").arg(v->viewport()->height()).arg(row)));
      QHeaderView* h = v->horizontalHeader();
      for (int c = 0; c < CallerModel::kColumnCount; ++c) {
        const QString title = v->model()->headerData(c, Qt::Horizontal).toString();
        const int need = h->fontMetrics().horizontalAdvance(title) + 8;
        const int x = h->sectionViewportPosition(c);
        QVERIFY2(h->sectionSize(c) >= need && x >= 0 && x + h->sectionSize(c) <= h->width(),
                 qPrintable(QStringLiteral("%1: %2 px at %3, needs %4")
                                .arg(title)
                                .arg(h->sectionSize(c))
                                .arg(x)
                                .arg(need)));
      }
    }
    QVERIFY(shown >= 1);
    QVERIFY(w.grab().save(QStringLiteral(FATHOM_SCREENSHOT_DIR "/workspace_flame_side_1024.png")));
    // A taller pane stacks them again, both with rows to spare.
    w.resize(1400, 1100);
    w.workspace()->bottomPanel()->expandTo(700);
    QTRY_VERIFY(!side->isTabbed());
    QTRY_VERIFY(side->view(CallerTables::kCallees)->viewport()->height() >=
                CallerTables::kMinRows *
                    side->view(CallerTables::kCallees)->verticalHeader()->defaultSectionSize());
  }

  void flamegraphToolbarFitsAt1024x700() {
    MainWindow w;
    w.resize(1024, 700);
    w.show();
    QVERIFY(openAndWait(
        w, QStringLiteral(FATHOM_SHARED_DIR "/testdata/heapprofd_continuous_legacy.pb")));
    // A heap profile: the panel opens on its flamegraph.
    BottomPanel* panel = w.workspace()->bottomPanel();
    QVERIFY(!panel->isCollapsed());
    FlamegraphPanel* flame = w.workspace()->flamegraph();
    QCOMPARE(panel->currentWidget(), static_cast<QWidget*>(flame));
    QTRY_VERIFY_WITH_TIMEOUT(!flame->isBusy(), 30000);
    QCoreApplication::processEvents();
    const QRect window = w.rect();
    int checked = 0;
    for (QToolBar* bar : flame->findChildren<QToolBar*>()) {
      for (QAction* a : bar->actions()) {
        QWidget* b = bar->widgetForAction(a);
        if (!b || a->isSeparator()) continue;
        const QString name = a->text().isEmpty() ? b->metaObject()->className() : a->text();
        QVERIFY2(b->isVisible(), qPrintable(name + " is hidden (toolbar overflow)"));
        const QRect g(b->mapTo(&w, QPoint(0, 0)), b->size());
        QVERIFY2(window.contains(g), qPrintable(name + " falls off the window"));
        ++checked;
      }
    }
    QVERIFY(checked >= 8);
    QVERIFY(w.grab().save(QStringLiteral(FATHOM_SCREENSHOT_DIR "/workspace_flamegraph_1024.png")));
  }
};

QTEST_MAIN(WorkspaceTest)
#include "workspace_test.moc"
