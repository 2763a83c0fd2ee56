// The timeline on every Perfetto trace of the shared test data: the track
// groups and counts each trace must produce (expected numbers from SQL on an
// independent TraceProcessor), per-process CPU time of an area selection
// against SQL, the track model under QAbstractItemModelTester, physical-key
// WASD, the heap-dump diamond, and screenshots for a human to look at.
#include "widgets/timeline/timeline_view.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QKeyEvent>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QtTest>
#include <map>

#include "core/trace_processor.h"
#include "widgets/common/format.h"
#include "widgets/timeline/timeline_canvas.h"

using namespace fathom;
using namespace fathom::gui;

namespace {

int64_t sqlInt(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  if (!it->NextResultSet() || !it->NextRow()) return -1;
  return it->Get(0).i;
}

QStringList perfettoTraces() {
  QDir dir(QStringLiteral(FATHOM_SHARED_DIR "/testdata"));
  return dir.entryList({"*.pb", "*.pftrace", "*.perfetto-trace"}, QDir::Files, QDir::Name);
}

struct Opened {
  std::unique_ptr<TraceSession> session;
  std::unique_ptr<TimelineView> view;
};

Opened open(const QString& name, QSize size = QSize(1400, 900)) {
  Opened o;
  o.session = std::make_unique<TraceSession>();
  o.session->open(QStringLiteral(FATHOM_SHARED_DIR "/testdata/") + name);
  if (!QTest::qWaitFor([&] { return o.session->isLoaded() || !o.session->isLoading(); }, 30000))
    return o;
  o.view = std::make_unique<TimelineView>(o.session.get());
  o.view->resize(size);
  o.view->show();
  if (!QTest::qWaitFor([&] { return o.view->trackModel()->rowCount() > 0 || !o.view->isBusy(); },
                       10000))
    qWarning("open: no tracks after 10 s");
  if (!QTest::qWaitFor([&] { return !o.view->isBusy(); }, 10000))
    qWarning("open: the view is still busy after 10 s");
  return o;
}

void settle(TimelineView* v) {
  if (!QTest::qWaitFor([&] { return !v->isBusy(); }, 10000))
    qWarning("settle: the view is still busy after 10 s");
  QCoreApplication::processEvents();
}

}  // namespace

class TimelineViewTest : public QObject {
  Q_OBJECT
 private slots:
  void everyTraceHasItsTracks_data();
  void everyTraceHasItsTracks();
  void selectionCpuTimeMatchesSql();
  void modelPassesTester();
  void wasdUsesPhysicalKeys();
  void heapDiamondOpensProfile();
  void clickShowsSchedDetails();
  void hideFilterAndPin();
  void counterSelectionMatchesSql();
  void stateAndSliceSelectionMatchesSql();
  void sliceFlowsDrawnAndFollowed();
  void lmkClickShowsKill();
  void schedDetailsNameTheWaker();
};

void TimelineViewTest::everyTraceHasItsTracks_data() {
  QTest::addColumn<QString>("name");
  const QStringList traces = perfettoTraces();
  QVERIFY(traces.size() >= 8);
  for (const QString& t : traces) QTest::newRow(qPrintable(t)) << t;
}

void TimelineViewTest::everyTraceHasItsTracks() {
  QFETCH(QString, name);
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((QStringLiteral(FATHOM_SHARED_DIR "/testdata/") + name).toStdString()).ok());
  const int64_t cpus = sqlInt(tp, "select count(distinct cpu) from sched");
  const int64_t lmks = sqlInt(tp, "select count(*) from slice where name = 'mem.lmk'");
  const int64_t dumps = sqlInt(
      tp,
      "select (select count(*) from (select distinct upid, ts from heap_profile_allocation)) + "
      "(select count(*) from (select distinct upid, graph_sample_ts from heap_graph_object))");
  const int64_t cpu_counters =
      sqlInt(tp,
             "select count(distinct track_id) from counter join cpu_counter_track t "
             "on t.id = track_id");
  const int64_t thread_state_threads =
      sqlInt(tp, "select count(distinct utid) from thread_state where utid != 0");

  Opened o = open(name);
  QVERIFY(o.view);
  const TrackLayout& L = o.view->trackModel()->layout();
  QCOMPARE(L.countKind(TrackKind::kCpuSched), int(cpus));
  QCOMPARE(L.findGroup(GroupKind::kCpus) >= 0, cpus > 0);
  QCOMPARE(L.findGroup(GroupKind::kCpuFreqIdle) >= 0, cpu_counters > 0);
  // Each thread's states: a state track, or a strip on its slice track (one row for both).
  int state_threads = 0;
  for (const TrackInfo& t : L.tracks)
    state_threads += t.kind == TrackKind::kThreadState || t.hasStateStrip();
  QCOMPARE(state_threads, int(thread_state_threads));
  int lmk_group = L.findGroup(GroupKind::kLmk);
  QCOMPARE(lmk_group >= 0, lmks > 0);
  if (lmk_group >= 0) {
    const TrackInfo& t = L.tracks[L.groups[lmk_group].tracks[0]];
    QCOMPARE(t.markers.size(), qsizetype(lmks));
  }
  int diamonds = 0;
  for (const TrackInfo& t : L.tracks)
    if (t.kind == TrackKind::kHeapDumps) diamonds += static_cast<int>(t.markers.size());
  QCOMPARE(diamonds, int(dumps));
  // Slice tracks: one per track with slices, as deep as the deepest nesting.
  std::map<int64_t, int64_t> depths;
  auto q = tp.Query("select track_id, max(depth) + 1 from slice group by track_id");
  QVERIFY(q->NextResultSet());
  while (q->NextRow()) depths[q->Get(0).i] = q->Get(1).i;
  // (A process's tracks of one name share a row: each a part of it.)
  int parts = 0;
  for (const TrackInfo& t : L.tracks) {
    if (t.kind != TrackKind::kSlices) continue;
    quint32 levels = 0;
    for (const SlicePart& p : t.sliceParts()) {
      QCOMPARE(int64_t(p.depths), depths[p.track_id]);
      levels += p.depths;
      ++parts;
    }
    QCOMPARE(t.depths, levels);
  }
  QCOMPARE(parts, int(depths.size()));
  // Groups in the documented order: system groups before processes.
  int last = -1;
  for (const TrackGroup& g : L.groups) {
    QVERIFY(static_cast<int>(g.kind) >= last);
    last = static_cast<int>(g.kind);
  }
  if (name == QLatin1String("lmk_lmkd_atrace.pb")) {
    const TrackInfo& t = L.tracks[L.groups[lmk_group].tracks[0]];
    QVERIFY2(t.markers[0].label.contains("com.google.android.calendar"),
             qPrintable(t.markers[0].label));
    QVERIFY2(t.markers[0].label.contains("oom_score_adj 900"), qPrintable(t.markers[0].label));
  }
  if (name == QLatin1String("android_sched_binder_10s.perfetto-trace")) {
    QCOMPARE(L.countKind(TrackKind::kCpuSched), 4);
    QVERIFY(L.findGroup(GroupKind::kProcess) >= 0);
  }

  // Open the first process groups so the screenshot shows threads too.
  for (int g = 0, opened = 0; g < L.groups.size() && opened < 3; ++g)
    if (L.groups[g].kind == GroupKind::kProcess) {
      o.view->trackModel()->setExpanded(g, true);
      ++opened;
    }
  settle(o.view.get());
  QDir().mkpath(QStringLiteral(FATHOM_SCREENSHOT_DIR));
  QString base = name.section('.', 0, 0);
  QVERIFY(o.view->grab().save(QStringLiteral(FATHOM_SCREENSHOT_DIR "/timeline_%1.png").arg(base)));
}

void TimelineViewTest::selectionCpuTimeMatchesSql() {
  const QString name = QStringLiteral("android_sched_binder_10s.perfetto-trace");
  Opened o = open(name);
  QVERIFY(o.view);
  const qint64 a = o.session->traceStart(), b = o.session->traceEnd();
  const qint64 t0 = a + (b - a) / 4, t1 = a + (b - a) * 3 / 4;
  QSignalSpy changed(o.view.get(), &TimelineView::selectionChanged);
  o.view->setSelection(t0, t1);
  QVERIFY(QTest::qWaitFor([&] { return changed.count() > 0; }, 10000));
  const QList<int> cpus = changed.last().at(2).value<QList<int>>();
  QCOMPARE(cpus.size(), 4);

  TraceProcessor tp;
  QVERIFY(tp.LoadFile((QStringLiteral(FATHOM_SHARED_DIR "/testdata/") + name).toStdString()).ok());
  std::string sql = "select coalesce(t.upid, -1), sum(min(case when s.dur < 0 then " +
                    std::to_string(b) + " else s.ts + s.dur end, " + std::to_string(t1) +
                    ") - max(s.ts, " + std::to_string(t0) +
                    ")) from sched s join thread t using(utid) where s.utid != 0 and s.ts < " +
                    std::to_string(t1) + " and (s.dur < 0 or s.ts + s.dur > " + std::to_string(t0) +
                    ") group by 1";
  std::map<int64_t, int64_t> expected;
  auto it = tp.Query(sql);
  QVERIFY(it->NextResultSet());
  while (it->NextRow()) expected[it->Get(0).i] = it->Get(1).i;
  QVERIFY(it->status().ok());
  QVERIFY(expected.size() > 5);
  const SelectionStats& s = o.view->selectionStats();
  std::map<int64_t, int64_t> got;
  for (const auto& [upid, ns] : s.processes) got[upid] = ns;
  QCOMPARE(got.size(), expected.size());
  for (const auto& [upid, ns] : expected) QCOMPARE(got[upid], ns);
  // The details panel lists the processes under "CPU time by process".
  QVERIFY(o.view->detailsModel()->rowCount() >= 1);
  QCOMPARE(o.view->detailsModel()->item(0)->rowCount(), int(expected.size()));
  settle(o.view.get());
  QVERIFY(o.view->grab().save(QStringLiteral(FATHOM_SCREENSHOT_DIR "/timeline_selection.png")));
}

void TimelineViewTest::modelPassesTester() {
  Opened o = open(QStringLiteral("android_sched_binder_10s.perfetto-trace"));
  QVERIFY(o.view);
  TrackListModel* m = o.view->trackModel();
  QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
  QVERIFY(m->rowCount() > 3);
  QModelIndex first = m->index(0, 0);
  QModelIndex child = m->index(0, 0, first);
  QVERIFY(child.isValid());
  QVERIFY(m->setData(child, Qt::Unchecked, Qt::CheckStateRole));
  QCOMPARE(m->data(child, Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
  QVERIFY(m->setData(child, true, TrackListModel::PinnedRole));
  QVERIFY(m->setData(first, false, TrackListModel::ExpandedRole));
  m->setLayout(m->layout());  // reset keeps the tester happy
}

void TimelineViewTest::wasdUsesPhysicalKeys() {
  Opened o = open(QStringLiteral("android_sched_binder_10s.perfetto-trace"));
  QVERIFY(o.view);
  TimelineCanvas* c = o.view->canvas();
  const qint64 len = c->rangeEnd() - c->rangeStart();
  // AZERTY: the key at QWERTY's W position types 'Z'; X11 keycode 25.
  QKeyEvent zoom(QEvent::KeyPress, Qt::Key_Z, Qt::NoModifier, 25, 0, 0, QStringLiteral("z"));
  QApplication::sendEvent(o.view.get(), &zoom);
#if !defined(Q_OS_WIN) && !defined(Q_OS_MACOS)
  QVERIFY(c->rangeEnd() - c->rangeStart() < len);
#endif
  const qint64 t0 = c->rangeStart();
  // AZERTY 'Q' sits where QWERTY has A (keycode 38): pans left.
  QKeyEvent left(QEvent::KeyPress, Qt::Key_Q, Qt::NoModifier, 38, 0, 0, QStringLiteral("q"));
  QApplication::sendEvent(o.view.get(), &left);
#if !defined(Q_OS_WIN) && !defined(Q_OS_MACOS)
  QVERIFY(c->rangeStart() < t0);
#endif
  // Fit selection and history.
  const qint64 a = o.session->traceStart();
  o.view->setSelection(a + 1000000, a + 3000000);
  settle(o.view.get());
  QTest::keyClick(o.view.get(), Qt::Key_F);
  QVERIFY(c->rangeStart() < a + 1000000 && c->rangeStart() > a);
  QVERIFY(c->rangeEnd() > a + 3000000 && c->rangeEnd() < a + 4000000);
  o.view->goBack();
  QCOMPARE(c->rangeEnd() - c->rangeStart() < 3000000, false);
  o.view->goForward();
  QVERIFY(c->rangeEnd() < a + 4000000);
}

void TimelineViewTest::heapDiamondOpensProfile() {
  Opened o = open(QStringLiteral("heapprofd_continuous_legacy.pb"));
  QVERIFY(o.view);
  const TrackLayout& L = o.view->trackModel()->layout();
  int track = -1;
  for (int i = 0; i < L.tracks.size(); ++i)
    if (L.tracks[i].kind == TrackKind::kHeapDumps) track = i;
  QVERIFY(track >= 0);
  QSignalSpy spy(o.view.get(), &TimelineView::heapProfileActivated);
  o.view->showDetails(track, 0, L.tracks[track].markers[0].ts);
  QCOMPARE(spy.count(), 1);
  QCOMPARE(spy[0][0].toLongLong(), 2);
  QCOMPARE(spy[0][2].toString(), QStringLiteral("native"));
  settle(o.view.get());
  QStandardItemModel* d = o.view->detailsModel();
  QVERIFY(d->rowCount() >= 2);
  QMap<QString, QString> fields;
  for (int i = 0; i < d->rowCount(); ++i) fields[d->item(i, 0)->text()] = d->item(i, 1)->text();
  // The dump's process by name, and what it holds: the sum of the deltas up to it.
  TraceProcessor tp;
  QVERIFY(tp.LoadFile(FATHOM_SHARED_DIR "/testdata/heapprofd_continuous_legacy.pb").ok());
  const qint64 ts = L.tracks[track].markers[0].ts;
  auto it = tp.Query(
      "select p.name, (select sum(size) from heap_profile_allocation where upid = "
      "2 and ts <= " +
      std::to_string(ts) + ") from process p where upid = 2");
  QVERIFY(it->NextResultSet() && it->NextRow());
  QVERIFY2(fields["Process"].contains(QString::fromUtf8(it->Get(0).s.data())),
           qPrintable(fields["Process"]));
  QVERIFY2(fields["Unreleased"].startsWith(formatBytes(double(it->Get(1).i))),
           qPrintable(fields["Unreleased"]));
  QVERIFY(fields.contains(QStringLiteral("Allocated since start")));
}

void TimelineViewTest::clickShowsSchedDetails() {
  const QString name = QStringLiteral("android_sched_binder_10s.perfetto-trace");
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((QStringLiteral(FATHOM_SHARED_DIR "/testdata/") + name).toStdString()).ok());
  // A long-enough busy slice on CPU 0, found by SQL.
  auto it = tp.Query(
      "select ts, dur from sched where cpu = 0 and utid != 0 and dur > 2000000 order by ts limit "
      "1");
  QVERIFY(it->NextResultSet() && it->NextRow());
  const qint64 ts = it->Get(0).i, dur = it->Get(1).i;
  Opened o = open(name);
  QVERIFY(o.view);
  o.view->setVisibleRange(ts - dur, ts + 2 * dur);
  settle(o.view.get());
  TimelineCanvas* c = o.view->canvas();
  QRect r = c->trackRect(0);
  QVERIFY(r.isValid());
  QSignalSpy spy(o.view.get(), &TimelineView::detailsReady);
  QTest::mouseClick(c, Qt::LeftButton, {}, QPoint(int(c->xAt(ts + dur / 2)), r.center().y()));
  QVERIFY(spy.wait(5000));
  QStandardItemModel* d = o.view->detailsModel();
  QVERIFY(d->horizontalHeaderItem(0)->text().contains("Scheduling slice"));
  QMap<QString, QString> fields;
  for (int i = 0; i < d->rowCount(); ++i) fields[d->item(i, 0)->text()] = d->item(i, 1)->text();
  for (const char* k : {"Process", "Thread", "Start", "Duration", "End state"})
    QVERIFY2(fields.contains(k), k);
  QCOMPARE(fields["Duration"], formatDuration(dur));
  QCOMPARE(fields["CPU"], QStringLiteral("0"));
  QVERIFY(o.view->grab().save(QStringLiteral(FATHOM_SCREENSHOT_DIR "/timeline_zoomed.png")));
}

void TimelineViewTest::hideFilterAndPin() {
  Opened o = open(QStringLiteral("android_sched_binder_10s.perfetto-trace"));
  QVERIFY(o.view);
  TimelineCanvas* c = o.view->canvas();
  TrackListModel* m = o.view->trackModel();
  QVERIFY(c->trackRect(0).isValid());
  m->setHidden(0, true);
  QVERIFY(!c->trackRect(0).isValid());
  m->setHidden(0, false);
  m->setFilter(QRegularExpression("cpufreq"));
  QVERIFY(!c->trackRect(0).isValid());  // CPU 0 sched does not match
  int shown = 0;
  for (int i = 0; i < m->layout().tracks.size(); ++i) shown += c->trackRect(i).isValid();
  QCOMPARE(shown, 4);
  m->setFilter(QRegularExpression());
  const int last = static_cast<int>(m->layout().tracks.size() - 1);
  m->setPinned(3, true);
  QVERIFY(c->trackRect(3).top() <= TimelineCanvas::kRulerHeight + 1);
  // A pinned track stays under the ruler while the rest scrolls beneath it.
  m->setPinned(last, true);
  const QRect pinned_last = c->trackRect(last);
  QVERIFY(pinned_last.isValid());
  QCOMPARE(pinned_last.top(), c->trackRect(3).bottom() + 1);
  const QRect cpu0 = c->trackRect(0);
  c->setScrollY(400);
  QVERIFY(c->scrollY() > 0);
  QCOMPARE(c->trackRect(last), pinned_last);
  QCOMPARE(c->trackRect(0).top(), cpu0.top() - c->scrollY());
  // Clicks in the strip hit the pinned track, not what scrolled under it.
  QCOMPARE(c->trackAt(pinned_last.center().y()), last);
  settle(o.view.get());
  QVERIFY(o.view->grab().save(QStringLiteral(FATHOM_SCREENSHOT_DIR "/timeline_pinned.png")));
  m->setPinned(last, false);
  QVERIFY(c->trackRect(last) != pinned_last);  // back in its (collapsed) group
}

void TimelineViewTest::counterSelectionMatchesSql() {
  const QString name = QStringLiteral("android_sched_binder_10s.perfetto-trace");
  Opened o = open(name);
  QVERIFY(o.view);
  const TrackLayout& L = o.view->trackModel()->layout();
  int track = -1;
  for (int i = 0; i < L.tracks.size(); ++i)
    if (L.tracks[i].kind == TrackKind::kCounter && L.tracks[i].name == "CPU 0 cpufreq") track = i;
  QVERIFY(track >= 0);
  const qint64 a = o.session->traceStart(), b = o.session->traceEnd();
  const qint64 t0 = a + (b - a) / 5, t1 = a + (b - a) * 4 / 5;
  QSignalSpy ready(o.view.get(), &TimelineView::selectionStatsReady);
  o.view->selectArea(t0, t1, {track});
  QVERIFY(ready.wait(5000));
  const SelectionStats& s = o.view->selectionStats();
  QCOMPARE(s.counters.size(), 1);
  QVERIFY(s.cpus.isEmpty());
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((QStringLiteral(FATHOM_SHARED_DIR "/testdata/") + name).toStdString()).ok());
  const std::string id = std::to_string(L.tracks[track].track_id);
  const std::string range = " and ts >= " + std::to_string(t0) + " and ts < " + std::to_string(t1);
  QCOMPARE(s.counters[0].count,
           sqlInt(tp, "select count(*) from counter where track_id = " + id + range));
  // min/max over the values in force: the samples inside plus the one before t0.
  std::string in_force =
      "select value from counter where track_id = " + id + range +
      " union all select value from (select value from counter where track_id = " + id +
      " and ts < " + std::to_string(t0) + " order by ts desc limit 1)";
  QCOMPARE(s.counters[0].max,
           double(sqlInt(tp, "select cast(max(value) as int) from (" + in_force + ")")));
  QCOMPARE(s.counters[0].min,
           double(sqlInt(tp, "select cast(min(value) as int) from (" + in_force + ")")));
  QVERIFY(s.counters[0].avg >= s.counters[0].min && s.counters[0].avg <= s.counters[0].max);
}

void TimelineViewTest::lmkClickShowsKill() {
  Opened o = open(QStringLiteral("lmk_lmkd_atrace.pb"));
  QVERIFY(o.view);
  const TrackLayout& L = o.view->trackModel()->layout();
  int g = L.findGroup(GroupKind::kLmk);
  QVERIFY(g >= 0);
  const int track = L.groups[g].tracks[0];
  QSignalSpy spy(o.view.get(), &TimelineView::detailsReady);
  TimelineCanvas* c = o.view->canvas();
  QRect r = c->trackRect(track);
  QTest::mouseClick(c, Qt::LeftButton, {},
                    QPoint(int(c->xAt(L.tracks[track].markers[0].ts)), r.center().y()));
  QVERIFY(spy.wait(5000));
  QStandardItemModel* d = o.view->detailsModel();
  QCOMPARE(d->horizontalHeaderItem(0)->text(), QStringLiteral("Low memory kill"));
  QVERIFY(d->item(0, 1)->text().contains("com.google.android.calendar"));
}

void TimelineViewTest::schedDetailsNameTheWaker() {
  const QString name = QStringLiteral("linux_compact_sched_perf_samples.pftrace");
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((QStringLiteral(FATHOM_SHARED_DIR "/testdata/") + name).toStdString()).ok());
  // A sched slice whose runnable period just before it records its waker.
  auto it = tp.Query(
      "select s.id, s.cpu, w.tid from sched s join thread_state t on t.utid = s.utid and "
      "t.ts + t.dur = s.ts and t.waker_utid is not null join thread w on w.utid = t.waker_utid "
      "order by s.id limit 1");
  QVERIFY(it->NextResultSet() && it->NextRow());
  const quint32 row = quint32(it->Get(0).i);
  const int cpu = int(it->Get(1).i);
  const QString waker_tid = QString::number(it->Get(2).i);
  Opened o = open(name);
  QVERIFY(o.view);
  const TrackLayout& L = o.view->trackModel()->layout();
  int track = -1;
  for (int i = 0; i < L.tracks.size(); ++i)
    if (L.tracks[i].kind == TrackKind::kCpuSched && int(L.tracks[i].cpu) == cpu) track = i;
  QVERIFY(track >= 0);
  QSignalSpy spy(o.view.get(), &TimelineView::detailsReady);
  o.view->showDetails(track, row, 0);
  QVERIFY(spy.wait(5000));
  QStandardItemModel* d = o.view->detailsModel();
  QString woken;
  for (int i = 0; i < d->rowCount(); ++i)
    if (d->item(i, 0)->text() == "Woken by") woken = d->item(i, 1)->text();
  QVERIFY2(woken.endsWith(" " + waker_tid), qPrintable(woken));
}

// Area selection over thread-state and slice tracks: per-state time and per-name slice wall
// time clipped to the selection, checked against SQL over thread_state and slice.
void TimelineViewTest::stateAndSliceSelectionMatchesSql() {
  const QString name = QStringLiteral("android_sched_binder_10s.perfetto-trace");
  Opened o = open(name);
  QVERIFY(o.view);
  const TrackLayout& L = o.view->trackModel()->layout();
  QVector<int> tracks;
  QStringList utids, slice_tracks;
  int slice_rows = 0;
  for (int i = 0; i < L.tracks.size() && (utids.size() < 40 || slice_rows < 20); ++i) {
    const TrackInfo& t = L.tracks[i];
    // A slice track with a state strip counts as both.
    const bool states = t.kind == TrackKind::kThreadState || t.hasStateStrip();
    const bool slices = t.kind == TrackKind::kSlices;
    if ((!states && !slices) || (states && utids.size() >= 40) || (slices && slice_rows >= 20))
      continue;
    tracks.push_back(i);
    if (states) utids << QString::number(t.hasStateStrip() ? quint32(t.state_utid) : t.utid);
    if (!slices) continue;
    ++slice_rows;
    for (const SlicePart& p : t.sliceParts()) slice_tracks << QString::number(p.track_id);
  }
  QVERIFY(!utids.isEmpty());
  QVERIFY(!slice_tracks.isEmpty());
  const qint64 a = o.session->traceStart(), b = o.session->traceEnd();
  const qint64 t0 = a + (b - a) / 4, t1 = a + (b - a) * 3 / 4;
  QSignalSpy ready(o.view.get(), &TimelineView::selectionStatsReady);
  o.view->selectArea(t0, t1, tracks);
  QVERIFY(ready.wait(5000));
  const SelectionStats& s = o.view->selectionStats();
  QCOMPARE(s.stateTracks, utids.size());
  QCOMPARE(s.sliceTracks, slice_rows);
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((QStringLiteral(FATHOM_SHARED_DIR "/testdata/") + name).toStdString()).ok());
  const std::string T0 = std::to_string(t0), T1 = std::to_string(t1);
  const std::string end =
      "(case when dur < 0 then (select end_ts from trace_bounds) else ts + dur end)";
  const std::string clipped = "max(0, min(" + end + ", " + T1 + ") - max(ts, " + T0 + "))";
  const std::string overlap = " and ts < " + T1 + " and " + end + " > " + T0;
  const std::string in_utids = " utid in (" + utids.join(',').toStdString() + ")";
  const std::string in_tracks = " track_id in (" + slice_tracks.join(',').toStdString() + ")";
  qint64 running_ns = 0, running_count = 0, total = 0;
  for (const auto& st : s.states) {
    total += st.ns;
    if (st.state == "Running") running_ns = st.ns, running_count = st.count;
  }
  QCOMPARE(total,
           sqlInt(tp, "select sum(" + clipped + ") from thread_state where" + in_utids + overlap));
  QCOMPARE(running_ns, sqlInt(tp, "select ifnull(sum(" + clipped + "), 0) from thread_state where" +
                                      in_utids + overlap + " and state = 'Running'"));
  QCOMPARE(running_count, sqlInt(tp, "select count(*) from thread_state where" + in_utids +
                                         overlap + " and state = 'Running'"));
  QCOMPARE(s.states.size(),
           sqlInt(tp, "select count(distinct state) from thread_state where" + in_utids + overlap));
  if (!s.slices.isEmpty()) {
    const auto& top = s.slices.front();
    QCOMPARE(top.wallNs, sqlInt(tp, "select sum(" + clipped + ") from slice where" + in_tracks +
                                        overlap + " and name = '" + top.name.toStdString() + "'"));
    QCOMPARE(top.count, sqlInt(tp, "select count(*) from slice where" + in_tracks + overlap +
                                       " and name = '" + top.name.toStdString() + "'"));
  }
  QCOMPARE(static_cast<qint64>(s.slices.size()),
           sqlInt(tp, "select count(distinct name) from slice where" + in_tracks + overlap));
  QCOMPARE(threadStateLabel("R+"), QStringLiteral("Runnable (Preempted)"));
  settle(o.view.get());
  QVERIFY(o.view->grab().save(QStringLiteral(FATHOM_SCREENSHOT_DIR "/timeline_area_states.png")));
}

// A slice with flows: the details list each flow (count from SQL), the canvas draws an
// arrow between both ends, and following a flow selects the slice at the other end.
void TimelineViewTest::sliceFlowsDrawnAndFollowed() {
  const QString name = QStringLiteral("track_event_nested_tracks.perfetto-trace");
  Opened o = open(name);
  QVERIFY(o.view);
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((QStringLiteral(FATHOM_SHARED_DIR "/testdata/") + name).toStdString()).ok());
  const int64_t slice = sqlInt(
      tp,
      "select slice_out from flow group by slice_out order by count(*) desc, slice_out limit 1");
  QVERIFY(slice >= 0);
  const int64_t n_flows =
      sqlInt(tp, "select count(*) from flow where slice_out = " + std::to_string(slice) +
                     " or slice_in = " + std::to_string(slice));
  const int64_t track_id =
      sqlInt(tp, "select track_id from slice where id = " + std::to_string(slice));
  const int64_t ts = sqlInt(tp, "select ts from slice where id = " + std::to_string(slice));
  TrackListModel* m = o.view->trackModel();
  const TrackLayout& L = m->layout();
  int track = -1;
  for (int i = 0; i < L.tracks.size(); ++i)
    if (L.tracks[i].hasSliceTrack(quint32(track_id))) track = i;
  QVERIFY(track >= 0);
  for (int g = 0; g < L.groups.size(); ++g) m->setExpanded(g, true);
  QSignalSpy details(o.view.get(), &TimelineView::detailsReady);
  o.view->showDetails(track, static_cast<quint32>(slice), ts);
  QVERIFY(details.wait(5000));
  TimelineCanvas* c = o.view->canvas();
  QCOMPARE(c->flows().size(), n_flows);
  const FlowLink& f = c->flows().front();
  QVERIFY(f.outgoing);
  QCOMPARE(static_cast<int64_t>(f.from.slice), slice);
  QCOMPARE(static_cast<int64_t>(f.to.slice),
           sqlInt(tp, "select slice_in from flow where slice_out = " + std::to_string(slice) +
                          " order by id limit 1"));
  QVERIFY(!c->flowPoint(f.from).isNull());
  QVERIFY(!c->flowPoint(f.to).isNull());
  QCOMPARE(c->flowPoint(f.to).x(), c->flowPoint(FlowEnd{0, 0, 0, f.to.ts, {}}).x());
  settle(o.view.get());
  QVERIFY(o.view->grab().save(QStringLiteral(FATHOM_SCREENSHOT_DIR "/timeline_flows.png")));
  // Follow the flow: the slice at the other end becomes the clicked one.
  details.clear();
  o.view->goToSlice(f.to.track_id, f.to.slice);
  QVERIFY(details.wait(5000));
  QVERIFY(std::any_of(c->flows().begin(), c->flows().end(), [&](const FlowLink& l) {
    return !l.outgoing && static_cast<int64_t>(l.from.slice) == slice;
  }));
}

QTEST_MAIN(TimelineViewTest)
#include "timeline_view_test.moc"
