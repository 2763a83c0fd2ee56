// Issue 29 item 10: heap profiles over time. `fathom-cli heapprofile` dumps every second by
// default; the process's memory track plots the unreleased bytes at each dump (SQL over
// heap_profile_allocation), a click on it opens the nearest dump, and a one-dump profile
// gets a readable ruler.
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "core/storage/timeline_index.h"
#include "core/trace_processor.h"
#include "widgets/common/trace_session.h"
#include "widgets/timeline/timeline_canvas.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/timeline/track_layout.h"
#include "widgets/timeline/track_model.h"

using namespace fathom;
using namespace fathom::gui;

namespace {

// A Python program holding ~20 MB for `seconds`, then exiting (freeing it first).
QString profileOf(const QTemporaryDir& dir, double seconds, const QStringList& extra) {
  const QString trace = dir.filePath(QStringLiteral("heap-%1.pftrace").arg(extra.join('_')));
  const QString script = QStringLiteral(
                             "import time\n"
                             "keep = [bytearray(100000) for _ in range(200)]\n"
                             "time.sleep(%1)\n")
                             .arg(seconds);
  QProcess cli;
  cli.setProcessChannelMode(QProcess::ForwardedChannels);
  cli.start(QStringLiteral(FATHOM_CLI),
            QStringList{QStringLiteral("heapprofile")} + extra +
                QStringList{QStringLiteral("-o"), trace, QStringLiteral("--"),
                            QStringLiteral("python3"), QStringLiteral("-c"), script});
  if (!cli.waitForFinished(60000) || cli.exitCode() != 0) return {};
  return trace;
}

int64_t pythonUpid(TraceProcessor& tp) {
  auto it = tp.Query(
      "select upid from heap_profile_allocation group by upid order by sum(abs(size)) desc "
      "limit 1");
  return it->NextResultSet() && it->NextRow() ? it->Get(0).i : -1;
}

int heapTrack(const TrackLayout& L, qint64 upid) {
  for (int i = 0; i < L.tracks.size(); ++i)
    if (L.tracks[i].kind == TrackKind::kHeapDumps && !L.tracks[i].markers.isEmpty() &&
        L.tracks[i].markers.front().upid == upid)
      return i;
  return -1;
}

}  // namespace

class HeapMemoryTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty()) QSKIP("no python3");
    QVERIFY(dir_.isValid());
  }
  void periodicDumpsPlotUnreleasedBytes();
  void clickOpensTheNearestDump();
  void oneDumpGetsAReadableRuler();

 private:
  QTemporaryDir dir_;
  QString periodic_;  // the default-interval profile (made by the first test)
};

// No --dump-interval: a 2.5 s run gives a dump each second plus the one at exit, and the
// memory track's points are the running sums SQL gives.
void HeapMemoryTest::periodicDumpsPlotUnreleasedBytes() {
  periodic_ = profileOf(dir_, 2.5, {});
  QVERIFY(!periodic_.isEmpty());
  TraceProcessor tp;
  QVERIFY(tp.LoadFile(periodic_.toStdString()).ok());
  const int64_t upid = pythonUpid(tp);
  QVERIFY(upid >= 0);
  auto it = tp.Query(
      "select ts, sum(sum(size)) over (order by ts) from heap_profile_allocation "
      "where upid = " +
      std::to_string(upid) + " group by ts order by ts");
  QVERIFY(it->NextResultSet());
  QVector<QPair<qint64, qint64>> expected;
  while (it->NextRow()) expected.push_back({it->Get(0).i, it->Get(1).i});
  QVERIFY2(expected.size() >= 2, qPrintable(QString::number(expected.size())));
  // While the program ran it held its ~20 MB (sampled): some dump shows most of it.
  qint64 most = 0;
  for (const auto& [ts, bytes] : expected) most = std::max(most, bytes);
  QVERIFY2(most > 10'000'000, qPrintable(QString::number(most)));

  TimelineIndex index(tp.storage());
  const TrackLayout L = buildTrackLayout(tp.storage(), index);
  const int track = heapTrack(L, upid);
  QVERIFY(track >= 0);
  QCOMPARE(L.tracks[track].memory, expected);
}

// A click on the memory track, nearer one dump than the others, opens that dump.
void HeapMemoryTest::clickOpensTheNearestDump() {
  QVERIFY(!periodic_.isEmpty());
  TraceSession session;
  session.open(periodic_);
  QVERIFY(QTest::qWaitFor([&] { return session.isLoaded(); }, 30000));
  TimelineView view(&session);
  view.resize(1200, 700);
  view.show();
  QVERIFY(
      QTest::qWaitFor([&] { return view.trackModel()->rowCount() > 0 && !view.isBusy(); }, 20000));
  const TrackLayout& L = view.trackModel()->layout();
  int track = -1;
  for (int i = 0; i < L.tracks.size() && track < 0; ++i)
    if (!L.tracks[i].memory.isEmpty()) track = i;
  QVERIFY(track >= 0);
  view.trackModel()->setExpanded(L.tracks[track].group, true);
  QVERIFY(QTest::qWaitFor([&] { return !view.isBusy(); }, 10000));
  TimelineCanvas* c = view.canvas();
  const QRect r = c->trackRect(track);
  QVERIFY(r.isValid());
  const auto& points = L.tracks[track].memory;
  const qint64 want = points[points.size() / 2].first;
  const qint64 upid = L.tracks[track].markers.front().upid;
  QSignalSpy opened(&view, &TimelineView::heapProfileActivated);
  QTest::mouseClick(c, Qt::LeftButton, {}, QPoint(int(c->xAt(want)) + 2, r.center().y()));
  QCOMPARE(opened.count(), 1);
  QCOMPARE(opened[0][0].toLongLong(), upid);
  QCOMPARE(opened[0][1].toLongLong(), want);
  QCOMPARE(opened[0][2].toString(), QStringLiteral("native"));
}

// --dump-interval 0: one dump at exit. The view spans at least a second around it.
void HeapMemoryTest::oneDumpGetsAReadableRuler() {
  const QString trace = profileOf(dir_, 0.1, {QStringLiteral("--dump-interval"), "0"});
  QVERIFY(!trace.isEmpty());
  TraceSession session;
  session.open(trace);
  QVERIFY(QTest::qWaitFor([&] { return session.isLoaded(); }, 30000));
  TimelineView view(&session);
  view.resize(1200, 700);
  view.show();
  QVERIFY(
      QTest::qWaitFor([&] { return view.trackModel()->rowCount() > 0 && !view.isBusy(); }, 20000));
  const TrackLayout& L = view.trackModel()->layout();
  int dumps = 0;
  qint64 dump = 0;
  for (const TrackInfo& t : L.tracks)
    if (t.kind == TrackKind::kHeapDumps)
      for (const TrackMarker& m : t.markers) ++dumps, dump = m.ts;
  QCOMPARE(dumps, 1);
  const qint64 span = view.canvas()->rangeEnd() - view.canvas()->rangeStart();
  QVERIFY2(span >= 1'000'000'000, qPrintable(QString::number(span)));
  // The ruler still counts from the trace start, as the details' times do.
  QCOMPARE(view.canvas()->origin(), session.traceStart());
  QVERIFY(view.canvas()->rangeStart() < dump && dump < view.canvas()->rangeEnd());
}

QTEST_MAIN(HeapMemoryTest)
#include "heap_memory_test.moc"
