// CPU and thread-state tracks (issue 29 items 4 and 12): at any zoom every
// CPU track draws the same thing, slices or utilisation bars, a click on a
// bar zooms to where the slices show, and states are spelled out.
#include <QtTest>
#include <memory>

#include "core/storage/timeline_index.h"
#include "core/trace_processor.h"
#include "widgets/common/trace_session.h"
#include "widgets/timeline/frame_timeline_style.h"
#include "widgets/timeline/timeline_canvas.h"
#include "widgets/timeline/timeline_data.h"
#include "widgets/timeline/timeline_view.h"
#include "widgets/timeline/track_layout.h"
#include "widgets/timeline/track_model.h"

using namespace fathom;
using namespace fathom::gui;

namespace {
const QString kTestdata = QStringLiteral(FATHOM_SHARED_DIR "/testdata/");

// The real binder trace, loaded.
bool LoadBinderTrace(TraceSession* session) {
  session->open(kTestdata + QStringLiteral("android_sched_binder_10s.perfetto-trace"));
  return QTest::qWaitFor([&] { return session->isLoaded(); }, 30000);
}

// `view` shown at `size` once its tracks are laid out and drawn.
bool ShowWithTracks(TimelineView* view, QSize size) {
  view->resize(size);
  view->show();
  return QTest::qWaitFor([&] { return view->trackModel()->rowCount() > 0 && !view->isBusy(); },
                         20000);
}
}  // namespace

class TimelineRulesTest : public QObject {
  Q_OBJECT
 private slots:
  void oneRuleForAllCpusAtEveryZoom_data();
  void oneRuleForAllCpusAtEveryZoom();
  void clickOnABarZoomsToSlices();
  void statesAreSpelledOut();
  void framesColouredByJank();
  void fourKLabelsShowProcessNamesWhole();
};

void TimelineRulesTest::oneRuleForAllCpusAtEveryZoom_data() {
  QTest::addColumn<QString>("name");
  // The test data's traces that schedule on several CPUs.
  for (const char* t :
       {"android_sched_binder_10s.perfetto-trace", "linux_compact_sched_perf_samples.pftrace"})
    QTest::newRow(t) << QString::fromLatin1(t);
}

void TimelineRulesTest::oneRuleForAllCpusAtEveryZoom() {
  QFETCH(QString, name);
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((kTestdata + name).toStdString()).ok());
  const TraceStorage& s = tp.storage();
  TimelineIndex index(s);
  const TrackLayout layout = buildTrackLayout(s, index);
  QVector<int> cpus;
  for (int i = 0; i < layout.tracks.size(); ++i)
    if (layout.tracks[i].kind == TrackKind::kCpuSched) cpus.push_back(i);
  QVERIFY2(cpus.size() >= 2, "the trace should schedule on several CPUs");
  QVERIFY(layout.cpu_typical_slice_ns > 0);
  auto bounds = tp.Query("select start_ts, end_ts from trace_bounds");
  QVERIFY(bounds->NextResultSet() && bounds->NextRow());
  const int64_t start = bounds->Get(0).i, end = bounds->Get(1).i;
  int barsSeen = 0, slicesSeen = 0;
  // From the whole trace down to a few microseconds, around its middle.
  for (int64_t span = end - start; span > 2000; span /= 3) {
    FrameRequest req;
    req.t0 = start + (end - start) / 2 - span / 2;
    req.t1 = req.t0 + span;
    req.pixels = 1000;
    req.tracks = cpus;
    const FrameData f = fetchFrame(s, index, layout, req);
    int bars = 0;
    for (int t : cpus) bars += !f.tracks.value(t).utilization.isEmpty();
    QVERIFY2(bars == 0 || bars == cpus.size(),
             qPrintable(QStringLiteral("span %1 ns: %2 of %3 CPUs as bars")
                            .arg(span)
                            .arg(bars)
                            .arg(cpus.size())));
    (bars ? barsSeen : slicesSeen)++;
    // The rule is the typical slice against the pixel.
    QCOMPARE(bars == 0, cpuSlicesVisible(layout, double(span) / req.pixels));
  }
  QVERIFY(barsSeen > 0 && slicesSeen > 0);
}

void TimelineRulesTest::clickOnABarZoomsToSlices() {
  TraceSession session;
  QVERIFY(LoadBinderTrace(&session));
  TimelineView view(&session);
  QVERIFY(ShowWithTracks(&view, QSize(1400, 900)));
  TimelineCanvas* canvas = view.canvas();
  const TrackLayout& layout = view.trackModel()->layout();
  int cpu = -1;
  for (int i = 0; i < layout.tracks.size() && cpu < 0; ++i)
    if (layout.tracks[i].kind == TrackKind::kCpuSched) cpu = i;
  QVERIFY(cpu >= 0);
  const int px = canvas->width() - canvas->labelWidth();
  const double before = double(canvas->rangeEnd() - canvas->rangeStart()) / px;
  QVERIFY2(!cpuSlicesVisible(layout, before), "the whole 10 s trace should start as bars");
  const QRect r = canvas->trackRect(cpu);
  const QPoint at(canvas->labelWidth() + px / 2, r.center().y());
  const qint64 clickedTime = canvas->timeAt(at.x());
  QTest::mouseClick(canvas, Qt::LeftButton, {}, at);
  QVERIFY(QTest::qWaitFor([&] { return !view.isBusy(); }, 10000));
  const double after = double(canvas->rangeEnd() - canvas->rangeStart()) / px;
  QVERIFY2(cpuSlicesVisible(layout, after), qPrintable(QString::number(after)));
  QVERIFY(canvas->rangeStart() <= clickedTime && clickedTime <= canvas->rangeEnd());
}

// Details name a state in words, with the kernel's letters beside them, for
// every state the real trace has; combined states spell each letter.
void TimelineRulesTest::statesAreSpelledOut() {
  QCOMPARE(threadStateLabel(QStringLiteral("D|K")),
           QStringLiteral("Uninterruptible Sleep + Wake Kill"));
  QCOMPARE(threadStateLabel(QStringLiteral("R+")), QStringLiteral("Runnable (Preempted)"));
  QCOMPARE(threadStateLabel(QStringLiteral("S|W")), QStringLiteral("Sleeping + Waking"));
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((kTestdata + "android_sched_binder_10s.perfetto-trace").toStdString()).ok());
  const TraceStorage& s = tp.storage();
  TimelineIndex index(s);
  const TrackLayout layout = buildTrackLayout(s, index);
  auto it = tp.Query(
      "select min(id), utid, state from thread_state where state != 'Running' group by state");
  QVERIFY(it->NextResultSet());
  int states = 0;
  while (it->NextRow()) {
    const auto row = static_cast<quint32>(it->Get(0).i);
    const auto utid = static_cast<uint32_t>(it->Get(1).i);
    const QString code = QString::fromStdString(std::string(it->Get(2).s));
    QVERIFY(layout.stateTrack(utid) >= 0);
    TrackInfo info;  // what a click on the state track or strip asks for
    info.kind = TrackKind::kThreadState;
    info.utid = utid;
    const Details d = computeDetails(s, index, info, row, 0, 0);
    const QString name = threadStateLabel(code);
    QVERIFY2(name != code, qPrintable(code));  // every state of this trace has a name
    QVERIFY2(d.title.startsWith(QStringLiteral("Thread state: ") + name), qPrintable(d.title));
    bool listed = false;
    for (const auto& [key, value] : d.fields)
      listed |= key == QStringLiteral("State") && value.endsWith('(' + code + ')');
    QVERIFY2(listed, qPrintable(code));
    ++states;
  }
  QVERIFY(states >= 3);
}

// Android FrameTimeline (issue 29 item 3): every actual frame is coloured by
// its jank tag (the tags as the oracle gives them for this trace), expected
// frames green, and a janky frame's details name its jank and present type.
void TimelineRulesTest::framesColouredByJank() {
  TraceProcessor tp;
  QVERIFY(tp.LoadFile((kTestdata + "android_frametimeline_atrace_log.perfetto-trace").toStdString())
              .ok());
  const TraceStorage& s = tp.storage();
  TimelineIndex index(s);
  const TrackLayout layout = buildTrackLayout(s, index);
  const QHash<QString, QRgb> byTag = {{"No Jank", qRgb(0x4c, 0xaf, 0x50)},
                                      {"Buffer Stuffing", qRgb(0xc0, 0xd5, 0x88)},
                                      {"Self Jank", qRgb(0xf4, 0x43, 0x36)}};
  auto it =
      tp.Query("select id, jank_tag, jank_type, present_type from actual_frame_timeline_slice");
  QVERIFY(it->NextResultSet());
  int frames = 0, janky = 0;
  while (it->NextRow()) {
    const auto slice = quint32(it->Get(0).i);
    const QString tag = QString::fromUtf8(it->Get(1).s.data(), qsizetype(it->Get(1).s.size()));
    QVERIFY2(layout.frame_rows.contains(slice), qPrintable(QString::number(slice)));
    QVERIFY2(byTag.contains(tag), qPrintable(tag));  // the tags this trace has
    QCOMPARE(frameSliceColor(s, layout.frame_rows.value(slice)), byTag.value(tag));
    ++frames;
    if (tag != QLatin1String("Self Jank") || janky++) continue;
    // The first janky frame's details.
    int track = -1;
    for (int i = 0; i < layout.tracks.size() && track < 0; ++i)
      if (layout.tracks[i].hasSliceTrack(s.slice.track_id[slice])) track = i;
    QVERIFY(track >= 0);
    const Details d = computeDetails(s, index, layout.tracks[track], slice, 0, 0);
    QHash<QString, QString> fields;
    for (const auto& [k, v] : d.fields) fields.insert(k, v);
    QCOMPARE(fields.value("Jank tag"), tag);
    QCOMPARE(fields.value("Jank type"),
             QString::fromUtf8(it->Get(2).s.data(), qsizetype(it->Get(2).s.size())));
    QCOMPARE(fields.value("Present type"),
             QString::fromUtf8(it->Get(3).s.data(), qsizetype(it->Get(3).s.size())));
    QVERIFY(!fields.value("Layer").isEmpty());
  }
  // 1,869 actual frames in this trace, 17 of them the app's own jank (the oracle's counts).
  QCOMPARE(frames, 1869);
  QCOMPARE(janky, 17);
  auto ex = tp.Query("select id from expected_frame_timeline_slice limit 1");
  QVERIFY(ex->NextResultSet() && ex->NextRow());
  QCOMPARE(frameSliceColor(s, layout.frame_rows.value(quint32(ex->Get(0).i))),
           qRgb(0x4c, 0xaf, 0x50));
}

// The track-name column keeps the tracks most of a 1024 px window, and on a
// 4K screen it widens so the real trace's collapsed processes (drawn with
// their summaries beside them) show their names whole, not elided.
void TimelineRulesTest::fourKLabelsShowProcessNamesWhole() {
  TraceSession session;
  QVERIFY(LoadBinderTrace(&session));
  TimelineView view(&session);
  QVERIFY(ShowWithTracks(&view, QSize(1024, 700)));
  TimelineCanvas* canvas = view.canvas();
  QCOMPARE(canvas->labelWidth(), TimelineCanvas::kMinLabelWidth);
  view.resize(3840, 2160);
  QTRY_VERIFY(canvas->width() > 3000);
  QFont bold = canvas->font();
  bold.setBold(true);
  const QFontMetrics fm(bold);
  int elided_at_1024 = 0, checked = 0;
  for (const TrackGroup& g : view.trackModel()->layout().groups) {
    if (g.kind != GroupKind::kProcess || g.summary < 0) continue;
    const QString text = QStringLiteral("\u25B8 ") + g.name;
    const int needed = fm.horizontalAdvance(text);
    if (needed > TimelineCanvas::kMinLabelWidth - 10) ++elided_at_1024;
    if (needed > 380) continue;  // a 60-character name may still be elided
    ++checked;
    QVERIFY2(needed <= canvas->labelWidth() - 10, qPrintable(g.name));
  }
  QVERIFY2(elided_at_1024 > 3, "the trace should have long process names");
  QVERIFY(checked > 20);
}

QTEST_MAIN(TimelineRulesTest)
#include "timeline_rules_test.moc"
