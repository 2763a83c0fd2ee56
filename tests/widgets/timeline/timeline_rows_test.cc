// Issue 29 item 15 and the frame timeline rows: a collapsed process draws a summary of its
// threads' activity on its header, a thread's states and slices share one row, and each
// process has one Expected Timeline and one Actual Timeline row.
#include <QStandardItemModel>
#include <QtTest>
#include <cmath>
#include <map>

#include "core/storage/timeline_index.h"
#include "core/trace_processor.h"
#include "widgets/common/trace_session.h"
#include "widgets/timeline/process_activity.h"
#include "widgets/timeline/timeline_canvas.h"
#include "widgets/timeline/timeline_data.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/timeline/track_layout.h"
#include "widgets/timeline/track_model.h"

using namespace fathom;
using namespace fathom::gui;

namespace {
const QString kTestdata = QStringLiteral(FATHOM_SHARED_DIR "/testdata/");

int64_t sqlInt(TraceProcessor& tp, const std::string& q) {
  auto it = tp.Query(q);
  if (!it->NextResultSet() || !it->NextRow()) return -1;
  return it->Get(0).i;
}

struct Opened {
  std::unique_ptr<TraceSession> session;
  std::unique_ptr<TimelineView> view;
};

Opened openView(const QString& name) {
  Opened o;
  o.session = std::make_unique<TraceSession>();
  o.session->open(kTestdata + name);
  if (!QTest::qWaitFor([&] { return o.session->isLoaded(); }, 30000)) return {};
  o.view = std::make_unique<TimelineView>(o.session.get());
  o.view->resize(1200, 800);
  o.view->show();
  TimelineView* v = o.view.get();
  if (!QTest::qWaitFor([&] { return v->trackModel()->rowCount() > 0 && !v->isBusy(); }, 20000))
    return {};
  return o;
}
}  // namespace

class TimelineRowsTest : public QObject {
  Q_OBJECT
 private slots:
  void activityProfileIntegrates();
  void griddedProfileAgreesWithExact();
  void collapsedProcessDrawsSchedSummary();
  void processWithoutSchedSummarisesItsSlices();
  void threadStatesAndSlicesShareARow();
  void oneExpectedAndOneActualRowPerProcess();
};

// Two overlapping intervals: 2 open in [10, 20), 1 in [0, 10) and [20, 30).
void TimelineRowsTest::activityProfileIntegrates() {
  const ActivityProfile p = ActivityProfile::FromIntervals({{0, 20}, {10, 30}, {5, 5}});
  QCOMPARE(p.max_count(), 2);
  QCOMPARE(p.BusyNs(0, 30), int64_t(40));
  QCOMPARE(p.BusyNs(10, 20), int64_t(20));
  QCOMPARE(p.BusyNs(-100, 5), int64_t(5));
  const QVector<float> b = p.Buckets(0, 40, 4);
  QCOMPARE(b, (QVector<float>{1.f, 2.f, 1.f, 0.f}));
}

// A process over the exact-interval budget gets a gridded profile: the same busy time over
// the trace, and per pixel column within a grid cell's worth at each edge.
void TimelineRowsTest::griddedProfileAgreesWithExact() {
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((kTestdata + "android_sched_binder_10s.perfetto-trace").toStdString()).ok());
  const TraceStorage& s = tp.storage();
  const ProcessActivity exact = buildProcessActivity(s);
  const ProcessActivity gridded = buildProcessActivity(s, 0);
  const int64_t t0 = s.min_ts(), t1 = s.max_ts() + 1;
  const double cell = double(t1 - t0) / ProcessActivity::kGridCells;
  const int px = 400;
  const double column = double(t1 - t0) / px;
  int compared = 0;
  for (size_t upid = 0; upid < exact.profiles.size(); ++upid) {
    const ActivityProfile& e = exact.profiles[upid];
    const ActivityProfile& g = gridded.profiles[upid];
    QCOMPARE(g.empty(), e.empty());
    if (e.empty()) continue;
    QVERIFY2(std::abs(g.BusyNs(t0, t1) - e.BusyNs(t0, t1)) <= cell * std::max(1, e.max_count()),
             qPrintable(QStringLiteral("%1 vs %2").arg(g.BusyNs(t0, t1)).arg(e.BusyNs(t0, t1))));
    const QVector<float> eb = e.Buckets(t0, t1, px), gb = g.Buckets(t0, t1, px);
    const double slack = 2 * cell * std::max(1, e.max_count()) / column + 1e-3;
    for (int i = 0; i < px; ++i)
      QVERIFY2(std::abs(eb[i] - gb[i]) <= slack,
               qPrintable(QStringLiteral("upid %1 column %2: exact %3, gridded %4")
                              .arg(upid)
                              .arg(i)
                              .arg(eb[i])
                              .arg(gb[i])));
    ++compared;
  }
  QVERIFY(compared > 10);
}

// The busiest process of a real Android trace, collapsed: its header row carries the
// summary, and each pixel column's bar is the time its threads ran in that column (SQL
// over sched), relative to the summary's scale.
void TimelineRowsTest::collapsedProcessDrawsSchedSummary() {
  const QString name = QStringLiteral("android_sched_binder_10s.perfetto-trace");
  Opened o = openView(name);
  QVERIFY(o.view);
  TrackListModel* m = o.view->trackModel();
  const TrackLayout& L = m->layout();
  int g = -1;
  for (int i = 0; i < L.groups.size() && g < 0; ++i)
    if (L.groups[i].kind == GroupKind::kProcess && L.groups[i].summary >= 0) g = i;
  QVERIFY(g >= 0);
  const int summary = L.groups[g].summary;
  const TrackInfo& info = L.tracks[summary];
  QCOMPARE(info.kind, TrackKind::kProcessSummary);
  QVERIFY(info.activity_from_sched);
  TimelineCanvas* c = o.view->canvas();
  m->setExpanded(g, true);
  QVERIFY(QTest::qWaitFor([&] { return !o.view->isBusy(); }, 10000));
  QVERIFY(!c->trackRect(summary).isValid());  // expanded: no summary
  m->setExpanded(g, false);
  QVERIFY(QTest::qWaitFor([&] { return !o.view->isBusy() && !c->isFetching(); }, 10000));
  const QRect header = c->trackRect(summary);
  QVERIFY(header.isValid());
  QVERIFY(c->currentRequest().tracks.contains(summary));
  // The buckets the canvas drew from (the current view, one per pixel column), from an
  // independent load of the same trace.
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((kTestdata + name).toStdString()).ok());
  TimelineIndex index(tp.storage());
  FrameRequest req = c->currentRequest();
  req.tracks = {summary};
  const FrameData f = fetchFrame(tp.storage(), index, L, req);
  const QVector<float> buckets = f.tracks.value(summary).utilization;
  QCOMPARE(buckets.size(), qsizetype(req.pixels));
  const QImage shot = c->grab().toImage();
  const QColor bar(0x43, 0x8e, 0xd8);
  const QRect area = header.adjusted(0, 2, 0, -2);  // where paintHeader draws the bars
  const std::string upid = std::to_string(info.upid);
  const std::string end =
      "(case when dur < 0 then max(ts, (select end_ts from trace_bounds)) else ts + dur end)";
  int checked = 0, drawn = 0;
  double total = 0;
  for (int i = 0; i < req.pixels; ++i) total += buckets[i];
  QVERIFY(total > 0);
  for (int i = 0; i < req.pixels; i += 7) {
    const int64_t b0 = ActivityProfile::BucketStart(req.t0, req.t1, req.pixels, i);
    const int64_t b1 = ActivityProfile::BucketStart(req.t0, req.t1, req.pixels, i + 1);
    const std::string B0 = std::to_string(b0), B1 = std::to_string(b1);
    const int64_t busy =
        sqlInt(tp, "select ifnull(sum(max(0, min(" + end + ", " + B1 + ") - max(ts, " + B0 +
                       "))), 0) from sched join thread using (utid) where upid = " + upid +
                       " and ts < " + B1);
    QVERIFY(busy >= 0);  // -1: the query failed
    const double expected = double(busy) / double(b1 - b0);
    QVERIFY2(
        std::abs(buckets[i] - expected) <= 1e-4 * std::max(1.0, expected),
        qPrintable(
            QStringLiteral("column %1: %2 drawn, %3 by SQL").arg(i).arg(buckets[i]).arg(expected)));
    // The bar in that column of the screenshot: the value against the scale.
    const int want =
        std::min(area.height(), int(expected / info.activity_scale * area.height() + 0.5));
    int have = 0;
    for (int y = area.top(); y <= area.bottom(); ++y)
      have += shot.pixelColor(area.left() + i, y) == bar;
    QVERIFY2(std::abs(have - want) <= 1,
             qPrintable(QStringLiteral("column %1: %2 px, want %3").arg(i).arg(have).arg(want)));
    ++checked;
    drawn += want > 0;
  }
  QVERIFY(checked > 100);
  QVERIFY(drawn > 10);
}

// A Chrome JSON trace has no sched: each process's summary counts its open top-level slices
// (thread and process tracks), per pixel column, as SQL over slice does.
void TimelineRowsTest::processWithoutSchedSummarisesItsSlices() {
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((kTestdata + "chrome_big_trace.json").toStdString()).ok());
  const TraceStorage& s = tp.storage();
  TimelineIndex index(s);
  const TrackLayout L = buildTrackLayout(s, index);
  int summaries = 0;
  for (const TrackGroup& g : L.groups) {
    if (g.summary < 0) continue;
    ++summaries;
    const TrackInfo& t = L.tracks[g.summary];
    QVERIFY(!t.activity_from_sched);
    FrameRequest req;
    req.t0 = s.min_ts();
    req.t1 = s.max_ts() + 1;
    req.pixels = 300;
    req.tracks = {g.summary};
    const QVector<float> buckets = fetchFrame(s, index, L, req).tracks.value(g.summary).utilization;
    QCOMPARE(buckets.size(), qsizetype(req.pixels));
    const std::string end =
        "(case when s.dur < 0 then max(s.ts, (select end_ts from trace_bounds)) else s.ts + "
        "s.dur end)";
    const std::string owned =
        " from slice s left join thread_track tt on tt.id = s.track_id left join thread th on "
        "th.utid = tt.utid left join process_track pt on pt.id = s.track_id where s.depth = 0 "
        "and coalesce(pt.upid, th.upid) = " +
        std::to_string(g.upid);
    for (int i = 0; i < req.pixels; i += 5) {
      const int64_t b0 = ActivityProfile::BucketStart(req.t0, req.t1, req.pixels, i);
      const int64_t b1 = ActivityProfile::BucketStart(req.t0, req.t1, req.pixels, i + 1);
      const std::string B0 = std::to_string(b0), B1 = std::to_string(b1);
      const int64_t busy =
          sqlInt(tp, "select ifnull(sum(max(0, min(" + end + ", " + B1 + ") - max(s.ts, " + B0 +
                         "))), 0)" + owned + " and s.ts < " + B1);
      QVERIFY(busy >= 0);  // -1: the query failed
      const double expected = double(busy) / double(b1 - b0);
      QVERIFY2(std::abs(buckets[i] - expected) <= 1e-4 * std::max(1.0, expected),
               qPrintable(QStringLiteral("upid %1 column %2: %3, SQL %4")
                              .arg(g.upid)
                              .arg(i)
                              .arg(buckets[i])
                              .arg(expected)));
    }
  }
  QCOMPARE(summaries, 4);  // the trace's four processes with slices
}

// A thread with states and slices takes one row: its slice track with the states as a strip
// on top; a click on the strip selects the state, a click below it the slice.
void TimelineRowsTest::threadStatesAndSlicesShareARow() {
  const QString name = QStringLiteral("android_sched_binder_10s.perfetto-trace");
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((kTestdata + name).toStdString()).ok());
  // A thread with both, and one of its long states with a slice under its middle.
  auto it = tp.Query(
      "select ts.utid, ts.id, ts.ts, ts.dur, s.id from thread_state ts "
      "join thread_track tt on tt.utid = ts.utid join slice s on s.track_id = tt.id "
      "where s.depth = 0 and ts.dur > 1000000 and s.ts <= ts.ts + ts.dur / 2 "
      "and s.ts + s.dur >= ts.ts + ts.dur / 2 order by ts.dur desc limit 1");
  QVERIFY(it->NextResultSet() && it->NextRow());
  const auto utid = quint32(it->Get(0).i), state_row = quint32(it->Get(1).i);
  const qint64 ts = it->Get(2).i, dur = it->Get(3).i;
  const auto slice = quint32(it->Get(4).i);
  const int64_t slice_tracks =
      sqlInt(tp,
             "select count(distinct track_id) from slice join thread_track t on t.id = track_id "
             "where t.utid = " +
                 std::to_string(utid));

  Opened o = openView(name);
  QVERIFY(o.view);
  const TrackLayout& L = o.view->trackModel()->layout();
  const int track = L.stateTrack(utid);
  QVERIFY(track >= 0);
  QCOMPARE(L.tracks[track].kind, TrackKind::kSlices);
  QVERIFY(L.tracks[track].hasStateStrip());
  int rows = 0;  // the thread's rows: its slice tracks, no separate state track
  for (const TrackInfo& t : L.tracks) {
    QVERIFY(!(t.kind == TrackKind::kThreadState && t.utid == utid));
    if (t.kind == TrackKind::kSlices && L.tracks[track].group == t.group) {
      const auto owner = tp.storage().track.utid.Get(t.track_id);
      rows += owner && *owner == utid;
    }
  }
  QCOMPARE(rows, int(slice_tracks));

  // Reveal the state, then click the strip and the slice row under the same instant.
  TimelineCanvas* c = o.view->canvas();
  QSignalSpy details(o.view.get(), &TimelineView::detailsReady);
  o.view->revealEvent(TrackKind::kThreadState, utid, state_row, ts, dur);
  QVERIFY(details.count() > 0 || details.wait(5000));
  QVERIFY(QTest::qWaitFor([&] { return !o.view->isBusy() && !c->isFetching(); }, 10000));
  QCOMPARE(c->highlightTrack(), track);
  QCOMPARE(c->highlightRow(), state_row);
  const QRect r = c->trackRect(track);
  QVERIFY(r.isValid());
  const int x = int(c->xAt(ts + dur / 2));
  auto title = [&] { return o.view->detailsModel()->horizontalHeaderItem(0)->text(); };
  details.clear();
  QTest::mouseClick(c, Qt::LeftButton, {}, QPoint(x, r.top() + 3));
  QVERIFY(details.wait(5000));
  QVERIFY2(title().startsWith(QStringLiteral("Thread state: ")), qPrintable(title()));
  QCOMPARE(c->highlightRow(), state_row);
  details.clear();
  QTest::mouseClick(c, Qt::LeftButton, {},
                    QPoint(x, r.top() + 1 + TimelineCanvas::kStateStripHeight + 9));
  QVERIFY(details.wait(5000));
  QVERIFY2(title().startsWith(QStringLiteral("Slice: ")), qPrintable(title()));
  QCOMPARE(c->highlightRow(), slice);
}

// The oracle's frame counts per process for this Android 13 trace (trace_processor_shell:
// select upid, count(*) from {expected,actual}_frame_timeline_slice group by upid).
void TimelineRowsTest::oneExpectedAndOneActualRowPerProcess() {
  const std::map<int64_t, int64_t> oracle_actual{{1, 801}, {2, 67}, {3, 34}, {4, 228}, {5, 739}};
  const std::map<int64_t, int64_t> oracle_expected{{1, 801}, {2, 67}, {3, 34}, {4, 111}, {5, 739}};
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((kTestdata + "android_frametimeline_atrace_log.perfetto-trace").toStdString())
              .ok());
  const TraceStorage& s = tp.storage();
  TimelineIndex index(s);
  const TrackLayout L = buildTrackLayout(s, index);
  for (const auto& [table, name, oracle] :
       {std::tuple{"actual_frame_timeline_slice", "Actual Timeline", &oracle_actual},
        std::tuple{"expected_frame_timeline_slice", "Expected Timeline", &oracle_expected}}) {
    std::map<int64_t, int64_t> counts;
    auto it = tp.Query(std::string("select upid, count(*) from ") + table + " group by upid");
    QVERIFY(it->NextResultSet());
    while (it->NextRow()) counts[it->Get(0).i] = it->Get(1).i;
    QCOMPARE(counts, *oracle);
    for (const auto& [upid, n] : counts) {
      int rows = 0;
      for (const TrackGroup& g : L.groups) {
        if (g.upid != upid) continue;
        for (int ti : g.tracks) {
          const TrackInfo& t = L.tracks[ti];
          if (t.kind != TrackKind::kSlices || t.name != QLatin1String(name)) continue;
          ++rows;
          QCOMPARE(int64_t(t.rows), n);
          // Every part's frames are drawn in the row, each part on its own levels.
          FrameRequest req;
          req.t0 = s.min_ts();
          req.t1 = s.max_ts() + 1;
          req.pixels = 2000;
          req.tracks = {ti};
          const FrameData f = fetchFrame(s, index, L, req);
          QCOMPARE(f.tracks.value(ti).levels.size(), qsizetype(t.depths));
          // Laid out by overlap: as many levels as the most frames open at one instant (SQL
          // over the row's tracks), not one set per track; every frame drawn once.
          QStringList ids;
          for (const SlicePart& part : t.sliceParts()) ids << QString::number(part.track_id);
          const std::string in = "(" + ids.join(',').toStdString() + ")";
          QCOMPARE(sqlInt(tp, "select count(*) from slice where depth > 0 and track_id in " + in),
                   int64_t(0));
          const int64_t most_open = sqlInt(
              tp, "select max(n) from (select (select count(*) from slice o where o.track_id in " +
                      in +
                      " and (o.id = s.id or (o.ts <= s.ts and (o.dur < 0 or o.ts + o.dur > "
                      "s.ts)))) n from slice s where s.track_id in " +
                      in + ")");
          QCOMPARE(int64_t(t.depths), most_open);
          int64_t drawn = 0;
          for (const QVector<PaintSpan>& level : f.tracks.value(ti).levels)
            for (const PaintSpan& span : level) drawn += 1 + span.merged;
          QCOMPARE(drawn, n);
        }
      }
      QVERIFY2(
          rows == 1,
          qPrintable(
              QStringLiteral("upid %1 %2: %3 rows").arg(upid).arg(QLatin1String(name)).arg(rows)));
    }
  }
}

QTEST_MAIN(TimelineRowsTest)
#include "timeline_rows_test.moc"
