// Issue 29's remaining track items: perf counters in a group of their own, per-thread CPU
// sample tracks for a trace with samples and no sched (click selects the sample, an area
// over them filters the flamegraph to those threads), and clicks / drags on a collapsed
// process's summary.
#include <google/protobuf/text_format.h>

#include <QFile>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QtTest>

#include "core/storage/timeline_index.h"
#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "widgets/common/trace_session.h"
#include "widgets/timeline/timeline_canvas.h"
#include "widgets/timeline/timeline_data.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/timeline/track_layout.h"
#include "widgets/timeline/track_model.h"

using namespace fathom;
using namespace fathom::gui;

namespace {
const QString kShared = QStringLiteral(FATHOM_SHARED_DIR "/");

int64_t sqlInt(TraceProcessor& tp, const std::string& q) {
  auto it = tp.Query(q);
  if (!it->NextResultSet() || !it->NextRow()) return -1;
  return it->Get(0).i;
}

struct Opened {
  std::unique_ptr<TraceSession> session;
  std::unique_ptr<TimelineView> view;
};

Opened openView(const QString& path) {
  Opened o;
  o.session = std::make_unique<TraceSession>();
  o.session->open(path);
  if (!QTest::qWaitFor([&] { return o.session->isLoaded(); }, 30000)) return {};
  o.view = std::make_unique<TimelineView>(o.session.get());
  o.view->resize(1200, 800);
  o.view->show();
  TimelineView* v = o.view.get();
  if (!QTest::qWaitFor([&] { return v->trackModel()->rowCount() > 0 && !v->isBusy(); }, 20000))
    return {};
  return o;
}

// Chrome JSON CPU samples ("P" events with stackFrames) on two threads of one process, no
// sched: perf_sample rows (the importer's), 3 on tid 11 and 2 on tid 12.
QString writeSampleTrace(const QTemporaryDir& dir) {
  const QString path = dir.filePath(QStringLiteral("samples.json"));
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(R"({"traceEvents":[
{"ph":"M","pid":10,"tid":11,"name":"thread_name","args":{"name":"main"}},
{"ph":"M","pid":10,"tid":12,"name":"thread_name","args":{"name":"worker"}},
{"ph":"P","pid":10,"tid":11,"ts":1000,"sf":"3","name":"s"},
{"ph":"P","pid":10,"tid":11,"ts":2000,"sf":"2","name":"s"},
{"ph":"P","pid":10,"tid":11,"ts":3000,"sf":"3","name":"s"},
{"ph":"P","pid":10,"tid":12,"ts":1500,"sf":"2","name":"s"},
{"ph":"P","pid":10,"tid":12,"ts":2500,"sf":"3","name":"s"}],
"stackFrames":{"1":{"name":"main","category":"app"},
"2":{"name":"run","parent":"1","category":"app"},
"3":{"name":"leaf","parent":"2","category":"libc.so"}}})");
  return path;
}
}  // namespace

class TimelineTracksTest : public QObject {
  Q_OBJECT
 private slots:
  void perfCountersHaveTheirOwnGroup();
  void cpuTimesAreNotFrequencyOrIdle();
  void irqTracksAreOrderedByCpu();
  void threadsGetCpuSampleTracks();
  void clickingASampleSelectsIt();
  void areaOverSamplesNamesTheirThreads();
  void clickOnCollapsedSummaryExpands();
  void dragOverCollapsedSummarySelectsItsTracks();
};

// linux.perf's timebase and follower counters (perf_counter_track: 3 on CPU 0 in the
// upstream test's trace) are a "Perf counters" group, not CPU frequency and idle.
void TimelineTracksTest::perfCountersHaveTheirOwnGroup() {
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((kShared + "difftests-upstream/parser_profiling/perf_sample_followers/"
                                 "trace.pb")
                          .toStdString())
              .ok());
  const int64_t perf_tracks = sqlInt(tp, "select count(*) from perf_counter_track");
  QCOMPARE(perf_tracks, int64_t(3));
  TimelineIndex index(tp.storage());
  const TrackLayout L = buildTrackLayout(tp.storage(), index);
  QCOMPARE(L.findGroup(GroupKind::kCpuFreqIdle), -1);
  const int g = L.findGroup(GroupKind::kPerfCounters);
  QVERIFY(g >= 0);
  QCOMPARE(L.groups[g].tracks.size(), qsizetype(perf_tracks));
  for (int ti : L.groups[g].tracks) {
    QCOMPARE(L.tracks[ti].kind, TrackKind::kCounter);
    QVERIFY(!L.tracks[ti].idle_states);
    QVERIFY2(L.tracks[ti].name.startsWith(QStringLiteral("CPU 0 ")), qPrintable(L.tracks[ti].name));
  }
}

// sys_stats' per-CPU cpu.times.* counters (upstream's cpu_counter_track test trace has only
// those) are a "CPU counters" group, not CPU frequency and idle.
void TimelineTracksTest::cpuTimesAreNotFrequencyOrIdle() {
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((kShared + "difftests-upstream/tables/cpu_counter_track_multi_machine/"
                                 "trace.pb")
                          .toStdString())
              .ok());
  const int64_t tracks = sqlInt(tp,
                                "select count(distinct t.id) from cpu_counter_track t join counter "
                                "c on c.track_id = t.id where t.name like 'cpu.times.%'");
  QVERIFY(tracks > 0);
  TimelineIndex index(tp.storage());
  const TrackLayout L = buildTrackLayout(tp.storage(), index);
  QCOMPARE(L.findGroup(GroupKind::kCpuFreqIdle), -1);
  const int g = L.findGroup(GroupKind::kCpuCounters);
  QVERIFY(g >= 0);
  QCOMPARE(L.groups[g].tracks.size(), qsizetype(tracks));
  for (int ti : L.groups[g].tracks)
    QVERIFY2(L.tracks[ti].name.contains(QStringLiteral("cpu.times.")),
             qPrintable(L.tracks[ti].name));
}

// Irq / SoftIrq slices on CPUs 10, 2, 9, 1 (first seen in that order): the global group lists
// "Irq Cpu 1, 2, 9, 10" then "SoftIrq Cpu 1, 2, 9, 10", by CPU number, not by first event.
void TimelineTracksTest::irqTracksAreOrderedByCpu() {
  std::string text;
  int64_t ts = 1000;
  for (int cpu : {10, 2, 9, 1}) {
    const QString bundle = QStringLiteral(
        "packet { ftrace_events { cpu: %1 "
        "event { timestamp: %2 pid: 5 irq_handler_entry { irq: 7 name: \"eth\" } } "
        "event { timestamp: %3 pid: 5 irq_handler_exit { irq: 7 ret: 1 } } "
        "event { timestamp: %4 pid: 5 softirq_entry { vec: 3 } } "
        "event { timestamp: %5 pid: 5 softirq_exit { vec: 3 } } } }\n");
    text += bundle.arg(cpu).arg(ts).arg(ts + 10).arg(ts + 20).arg(ts + 30).toStdString();
    ts += 100;
  }
  perfetto::protos::Trace trace;
  QVERIFY(google::protobuf::TextFormat::ParseFromString(text, &trace));
  const std::string bytes = trace.SerializeAsString();
  TraceProcessor tp;
  QVERIFY(
      tp.LoadBuffer(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "irq.pb").ok());
  QCOMPARE(sqlInt(tp, "select count(*) from slice"), int64_t(8));
  TimelineIndex index(tp.storage());
  const TrackLayout L = buildTrackLayout(tp.storage(), index);
  QStringList names;
  for (const TrackInfo& t : L.tracks)
    if (t.name.contains(QStringLiteral("Irq Cpu"))) names << t.name;
  QCOMPARE(names, (QStringList{"Irq Cpu 1", "Irq Cpu 2", "Irq Cpu 9", "Irq Cpu 10", "SoftIrq Cpu 1",
                               "SoftIrq Cpu 2", "SoftIrq Cpu 9", "SoftIrq Cpu 10"}));
}

// One CPU-sample track per thread with samples, with as many markers as perf_sample rows.
void TimelineTracksTest::threadsGetCpuSampleTracks() {
  QTemporaryDir dir;
  TraceProcessor tp;
  QVERIFY(tp.LoadFile(writeSampleTrace(dir).toStdString()).ok());
  QCOMPARE(sqlInt(tp, "select count(*) from sched"), int64_t(0));
  TimelineIndex index(tp.storage());
  const TrackLayout L = buildTrackLayout(tp.storage(), index);
  QCOMPARE(L.countKind(TrackKind::kCpuSamples), 2);
  for (const TrackInfo& t : L.tracks) {
    if (t.kind != TrackKind::kCpuSamples) continue;
    const int64_t n =
        sqlInt(tp, "select count(*) from perf_sample where utid = " + std::to_string(t.utid));
    QCOMPARE(int64_t(t.rows), n);
    FrameRequest req;
    const QPair<qint64, qint64> bounds =
        navigableBounds(L, tp.storage().min_ts(), tp.storage().max_ts());
    req.t0 = bounds.first;
    req.t1 = bounds.second + 1;
    req.pixels = 1000;
    req.tracks = {int(&t - L.tracks.data())};
    const FrameData f = fetchFrame(tp.storage(), index, L, req);
    int64_t drawn = 0;
    for (const PaintSpan& s : f.tracks.value(req.tracks[0]).levels.value(0)) drawn += 1 + s.merged;
    QCOMPARE(drawn, n);
  }
}

// A click on a marker selects that sample: details with its thread and stack, the marker
// highlighted, and the view asks for that sample's flamegraph.
void TimelineTracksTest::clickingASampleSelectsIt() {
  QTemporaryDir dir;
  Opened o = openView(writeSampleTrace(dir));
  QVERIFY(o.view);
  const TrackLayout& L = o.view->trackModel()->layout();
  int track = -1;
  for (int i = 0; i < L.tracks.size(); ++i)
    if (L.tracks[i].kind == TrackKind::kCpuSamples && L.tracks[i].name.startsWith("main"))
      track = i;
  QVERIFY(track >= 0);
  const TrackInfo& t = L.tracks[track];
  TimelineCanvas* c = o.view->canvas();
  QVERIFY(QTest::qWaitFor([&] { return !o.view->isBusy() && !c->isFetching(); }, 10000));
  const QRect r = c->trackRect(track);
  QVERIFY(r.isValid());
  const qint64 ts = t.samples->ts[1];  // 2000 us: stack main > run
  QSignalSpy details(o.view.get(), &TimelineView::detailsReady);
  QSignalSpy sample(o.view.get(), &TimelineView::cpuSampleActivated);
  QTest::mouseClick(c, Qt::LeftButton, {}, QPoint(int(c->xAt(ts)), r.center().y()));
  QVERIFY(details.wait(5000));
  QStandardItemModel* m = o.view->detailsModel();
  QCOMPARE(m->horizontalHeaderItem(0)->text(), QStringLiteral("CPU sample"));
  QStringList fields;
  for (int i = 0; i < m->rowCount(); ++i)
    fields << m->item(i, 0)->text() + '=' + m->item(i, 1)->text();
  QVERIFY2(fields.contains(QStringLiteral("Thread=main 11")), qPrintable(fields.join('|')));
  QVERIFY2(fields.contains(QStringLiteral("Stack (leaf first)=run")), qPrintable(fields.join('|')));
  QVERIFY2(fields.contains(QStringLiteral("=main")), qPrintable(fields.join('|')));
  QCOMPARE(c->highlightTrack(), track);
  QCOMPARE(c->highlightRow(), t.samples->rows[1]);
  QCOMPARE(sample.count(), 1);
  QCOMPARE(sample[0][0].toLongLong(), qint64(t.utid));
  QCOMPARE(sample[0][1].toLongLong(), ts);
}

// Dragging across the sample tracks selects their threads: the flamegraph filter (item 14).
void TimelineTracksTest::areaOverSamplesNamesTheirThreads() {
  QTemporaryDir dir;
  Opened o = openView(writeSampleTrace(dir));
  QVERIFY(o.view);
  const TrackLayout& L = o.view->trackModel()->layout();
  QList<int> want;
  for (const TrackInfo& t : L.tracks)
    if (t.kind == TrackKind::kCpuSamples) want << int(t.utid);
  QCOMPARE(want.size(), 2);
  TimelineCanvas* c = o.view->canvas();
  QVERIFY(QTest::qWaitFor([&] { return !o.view->isBusy() && !c->isFetching(); }, 10000));
  int top = INT_MAX, bottom = 0;
  for (int i = 0; i < L.tracks.size(); ++i)
    if (L.tracks[i].kind == TrackKind::kCpuSamples) {
      top = std::min(top, c->trackRect(i).top());
      bottom = std::max(bottom, c->trackRect(i).bottom());
    }
  QSignalSpy sel(o.view.get(), &TimelineView::selectionChanged);
  const qint64 t0 = o.session->traceStart(), t1 = t0 + 4000000;
  QTest::mousePress(c, Qt::LeftButton, {}, QPoint(int(c->xAt(t0)) + 2, top + 3));
  QTest::mouseMove(c, QPoint(int(c->xAt(t1)), bottom - 3));
  QTest::mouseRelease(c, Qt::LeftButton, {}, QPoint(int(c->xAt(t1)), bottom - 3));
  QVERIFY(sel.count() > 0 || sel.wait(5000));
  QList<int> got = sel.last()[3].value<QList<int>>();
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  QCOMPARE(got, want);
}

// A click on a collapsed process's summary (right of the label column) opens the process.
void TimelineTracksTest::clickOnCollapsedSummaryExpands() {
  Opened o = openView(kShared + "testdata/android_sched_binder_10s.perfetto-trace");
  QVERIFY(o.view);
  TrackListModel* m = o.view->trackModel();
  const TrackLayout& L = m->layout();
  int g = -1;
  for (int i = 0; i < L.groups.size() && g < 0; ++i)
    if (L.groups[i].kind == GroupKind::kProcess && L.groups[i].summary >= 0 && !m->isExpanded(i))
      g = i;
  QVERIFY(g >= 0);
  TimelineCanvas* c = o.view->canvas();
  QVERIFY(QTest::qWaitFor([&] { return !o.view->isBusy() && !c->isFetching(); }, 10000));
  const QRect header = c->trackRect(L.groups[g].summary);
  QVERIFY(header.isValid());
  QTest::mouseClick(c, Qt::LeftButton, {}, header.center());
  QVERIFY(m->isExpanded(g));
  QVERIFY(c->trackRect(L.groups[g].tracks.first()).isValid());  // its tracks now show
}

// Dragging over a collapsed process selects all its (unhidden) tracks: the aggregates and the
// flamegraph filter cover its threads.
void TimelineTracksTest::dragOverCollapsedSummarySelectsItsTracks() {
  Opened o = openView(kShared + "testdata/android_sched_binder_10s.perfetto-trace");
  QVERIFY(o.view);
  TrackListModel* m = o.view->trackModel();
  const TrackLayout& L = m->layout();
  int g = -1;
  for (int i = 0; i < L.groups.size() && g < 0; ++i)
    if (L.groups[i].kind == GroupKind::kProcess && L.groups[i].summary >= 0 && !m->isExpanded(i))
      g = i;
  QVERIFY(g >= 0);
  TimelineCanvas* c = o.view->canvas();
  QVERIFY(QTest::qWaitFor([&] { return !o.view->isBusy() && !c->isFetching(); }, 10000));
  const QRect header = c->trackRect(L.groups[g].summary);
  QSignalSpy sel(o.view.get(), &TimelineView::selectionChanged);
  const int y = header.center().y();
  QTest::mousePress(c, Qt::LeftButton, {}, QPoint(header.left() + 20, y));
  QTest::mouseMove(c, QPoint(header.left() + 300, y));
  QTest::mouseRelease(c, Qt::LeftButton, {}, QPoint(header.left() + 300, y));
  QVERIFY(!m->isExpanded(g));  // a drag is not a click
  QVector<int> want;
  for (int ti : L.groups[g].tracks)
    if (!m->isHidden(ti)) want << ti;
  QCOMPARE(c->selectionTracks(), want);
  QVERIFY(sel.count() > 0 || sel.wait(5000));
  QVERIFY(!sel.last()[3].value<QList<int>>().isEmpty());
}

QTEST_MAIN(TimelineTracksTest)
#include "timeline_tracks_test.moc"
