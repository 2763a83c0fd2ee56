// The whole window, offscreen: every real Perfetto trace opens and shows its
// timeline, a damaged file fails with a report and stays on disk, the Record
// page records this computer and opens the result, and a heap profile of a real
// program opens its flamegraph from its diamond.
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/main_window.h"
#include "app/gui/trace_workspace.h"
#include "widgets/common/trace_session.h"
#include "widgets/flamegraph/flamegraph_panel.h"
#include "widgets/timeline/timeline_canvas.h"
#include "widgets/timeline/timeline_view.h"
#if defined(FATHOM_GUI_HAVE_RECORD)
#include "widgets/record/record_page.h"
#include "widgets/record/target_list_model.h"
#endif

using namespace fathom::gui;

namespace {

QString ShotPath(const QString& name) {
  QDir().mkpath(QStringLiteral(FATHOM_SCREENSHOT_DIR));
  return QStringLiteral(FATHOM_SCREENSHOT_DIR "/") + name + QStringLiteral(".png");
}

// Runs `query` on the session's query lane and waits for the number.
qint64 QueryNumber(TraceSession* session, const QString& sql) {
  qint64 value = -1;
  bool done = false;
  QObject context;
  session->query<qint64>(
      [sql](Core& core) -> qint64 {
        auto it = core.tp.Query(sql.toStdString());
        if (!it->NextResultSet() || !it->NextRow()) return -1;
        return it->Get(0).i;
      },
      &context,
      [&](qint64 v) {
        value = v;
        done = true;
      });
  QElapsedTimer t;
  t.start();
  while (!done && t.elapsed() < 30000) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  return value;
}

bool OpenAndWait(MainWindow& w, const QString& path) {
  QSignalSpy opened(&w, &MainWindow::traceOpened);
  w.openTrace(path);
  if (!opened.wait(120000)) return false;
  return opened.first().first().toBool();
}

}  // namespace

class AppGuiTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("FathomTest"));
    QCoreApplication::setApplicationName(QStringLiteral("app_gui_tests"));
  }

  void opensEveryRealTrace_data() {
    QTest::addColumn<QString>("path");
    QDir dir(QStringLiteral(FATHOM_SHARED_DIR "/testdata"));
    const QStringList files = dir.entryList(
        {QStringLiteral("*.pb"), QStringLiteral("*.pftrace"), QStringLiteral("*.perfetto-trace"),
         QStringLiteral("*.json"), QStringLiteral("*.html"), QStringLiteral("*.txt")},
        QDir::Files, QDir::Name);
    QVERIFY2(!files.isEmpty(), "no test traces found");
    for (const QString& f : files) QTest::newRow(qPrintable(f)) << dir.filePath(f);
  }
  void opensEveryRealTrace() {
    QFETCH(QString, path);
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    QVERIFY2(OpenAndWait(w, path), qPrintable(w.session()->outcome().error));
    TraceSession* s = w.session();
    QVERIFY(s->isLoaded());
    QVERIFY(s->traceEnd() >= s->traceStart());
    // The workspace is what the window shows now.
    auto* stack = w.findChild<QStackedWidget*>();
    QVERIFY(stack);
    QCOMPARE(stack->currentWidget(), static_cast<QWidget*>(w.workspace()));
    // The SQL page answers on this trace.
    QVERIFY(QueryNumber(s, QStringLiteral("select count(*) from process")) >= 0);
    s->waitForIdle();
    QCoreApplication::processEvents();
    QVERIFY(w.grab().save(ShotPath(QStringLiteral("app_") + QFileInfo(path).completeBaseName())));
  }

  void damagedFileFailsAndStays() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("garbage.pftrace"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(4096, '\x07'));
    f.close();
    MainWindow w;
    w.show();
    QVERIFY(!OpenAndWait(w, path));
    QVERIFY(!w.session()->outcome().error.isEmpty());
    QVERIFY2(w.session()->outcome().error.contains(QStringLiteral("garbage.pftrace")),
             qPrintable(w.session()->outcome().error));
    QVERIFY(QFile::exists(path));  // never deleted or rewritten
    QTRY_VERIFY(w.findChild<QWidget*>(QStringLiteral("loadReport")) != nullptr);
  }

#if defined(FATHOM_HAVE_HEAPPROFD)
  // Issue 8's end-to-end check: a real program (python3, which nobody here built) runs
  // under Fathom's own heap profiler, the trace opens in the window with a heap-dump
  // diamond, and a click on the diamond opens a flamegraph with the interpreter's frames
  // whose total is what SQL says the dump holds.
  // Issue 29 item 11: a recent entry whose file is gone leaves the open
  // trace open and offers to forget the entry; two recent files with one
  // name are told apart by their folders.
  void recentFilesMissingAndSameName() {
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString sample = QStringLiteral(FATHOM_SHARED_DIR "/testdata/") +
                           QDir(QStringLiteral(FATHOM_SHARED_DIR "/testdata"))
                               .entryList({QStringLiteral("*.pftrace")}, QDir::Files, QDir::Name)
                               .first();
    QVERIFY(QDir().mkpath(tmp.filePath(QStringLiteral("a"))));
    QVERIFY(QDir().mkpath(tmp.filePath(QStringLiteral("b"))));
    const QString a = tmp.filePath(QStringLiteral("a/sample.pftrace"));
    const QString b = tmp.filePath(QStringLiteral("b/sample.pftrace"));
    const QString gone = tmp.filePath(QStringLiteral("gone.pftrace"));
    QVERIFY(QFile::copy(sample, a));
    QVERIFY(QFile::copy(sample, b));
    QSettings().setValue(QStringLiteral("recentFiles"), QStringList{gone});

    MainWindow w;
    w.show();
    QVERIFY(OpenAndWait(w, b));
    QVERIFY(OpenAndWait(w, a));
    TraceSession* open = w.session();
    TraceWorkspace* shown = w.workspace();
    QStringList labels;
    for (QAction* act : w.recentMenu()->actions()) labels << act->text();
    QCOMPARE(labels.size(), 3);
    QVERIFY2(labels[0] != labels[1], qPrintable(labels.join('|')));
    QVERIFY2(labels[0].startsWith(QStringLiteral("sample.pftrace \u2014 ")) &&
                 labels[0].endsWith(QDir::toNativeSeparators(QFileInfo(a).absolutePath())),
             qPrintable(labels[0]));
    QVERIFY2(labels[2].endsWith(QStringLiteral("(missing)")), qPrintable(labels[2]));

    // Activating the missing entry: same session, same workspace, still loaded.
    w.recentMenu()->actions()[2]->trigger();
    QCoreApplication::processEvents();
    QCOMPARE(w.session(), open);
    QCOMPARE(w.workspace(), shown);
    QVERIFY(open->isLoaded());
    auto* box = w.findChild<QMessageBox*>(QStringLiteral("unopenableBox"));
    QVERIFY(box);
    QPushButton* remove = nullptr;
    for (QAbstractButton* button : box->buttons())
      if (button->text() == QStringLiteral("Remove from Recent"))
        remove = qobject_cast<QPushButton*>(button);
    QVERIFY(remove);
    remove->click();
    QCoreApplication::processEvents();
    QVERIFY(!QSettings().value(QStringLiteral("recentFiles")).toStringList().contains(gone));
    QCOMPARE(w.recentMenu()->actions().size(), 2);
  }

  void heapProfileOfARealProgramOpensFromItsDiamond() {
    if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty()) QSKIP("no python3");
    QTemporaryDir out;
    const QString trace = out.filePath(QStringLiteral("python.pftrace"));
    QProcess profiler;
    profiler.setProcessChannelMode(QProcess::ForwardedChannels);
    // Two call paths of known size, alive for several dumps (the interpreter frees
    // everything at exit, before the last one). 1.5 s alive leaves at least three
    // 100 ms dumps even when CI's parallel tests slow the profiler (0.5 s once gave
    // fewer).
    const QString script = QStringLiteral(
        "import json, time\n"
        "def strings(n): return [str(i) * 20 for i in range(n)]\n"
        "def blobs(n): return [bytearray(30000) for _ in range(n)]\n"
        "keep = [strings(200000), blobs(400), json.dumps(list(range(100000)))]\n"
        "time.sleep(1.5)\n");
    profiler.start(
        QStringLiteral(HEAPPROFD),
        {QStringLiteral("--lib"), QStringLiteral(HEAPPROF_LIB), QStringLiteral("--dump-interval"),
         QStringLiteral("100"), QStringLiteral("-o"), trace, QStringLiteral("--"),
         QStringLiteral("python3"), QStringLiteral("-c"), script});
    QVERIFY(profiler.waitForFinished(60000));
    QCOMPARE(profiler.exitCode(), 0);

    MainWindow w;
    w.resize(1500, 950);
    w.show();
    QVERIFY2(OpenAndWait(w, trace), qPrintable(w.session()->outcome().error));
    TraceSession* s = w.session();
    s->waitForIdle();
    TimelineView* timeline = w.workspace()->timeline();
    QTRY_VERIFY_WITH_TIMEOUT(timeline->trackModel()->rowCount() > 0 && !timeline->isBusy(), 30000);
    const TrackLayout& layout = timeline->trackModel()->layout();
    int track = -1;
    for (int i = 0; i < layout.tracks.size(); ++i)
      if (layout.tracks[i].kind == TrackKind::kHeapDumps) track = i;
    QVERIFY2(track >= 0, "no heap-dump track");
    const qint64 python_upid =
        QueryNumber(s, QStringLiteral("select upid from process where name like '%python3%'"));
    // The dump that holds the most: the program's data alive, before the exit frees it.
    const qint64 fullest = QueryNumber(
        s, QStringLiteral("select ts from (select ts, sum(sum(size)) over (order by ts) as held "
                          "from heap_profile_allocation where upid = %1 group by ts) "
                          "order by held desc limit 1")
               .arg(python_upid));
    const TrackMarker* diamond = nullptr;
    for (const TrackMarker& m : layout.tracks[track].markers)
      if (m.ts == fullest) diamond = &m;
    QVERIFY2(diamond, "no diamond at the fullest dump");
    QVERIFY(layout.tracks[track].markers.size() >= 3);
    QCOMPARE(diamond->kind, QStringLiteral("native"));
    QCOMPARE(diamond->upid, python_upid);

    // A real click on the diamond, where the canvas draws it: a trace of one program opens
    // with its process's tracks in view.
    QVERIFY(timeline->trackModel()->isExpanded(layout.tracks[track].group));
    const qint64 margin = (s->traceEnd() - s->traceStart()) / 10 + 1000;
    timeline->setVisibleRange(s->traceStart() - margin, s->traceEnd() + margin);
    QTRY_VERIFY_WITH_TIMEOUT(!timeline->isBusy(), 10000);
    TimelineCanvas* canvas = timeline->canvas();
    const QRect row = canvas->trackRect(track);
    QVERIFY(row.isValid());
    FlamegraphPanel* flame = w.workspace()->flamegraph();
    QSignalSpy ready(flame, &FlamegraphPanel::treeReady);
    QSignalSpy details(timeline, &TimelineView::detailsReady);
    QTest::mouseClick(canvas, Qt::LeftButton, {},
                      QPoint(int(canvas->xAt(diamond->ts)), row.center().y()));
    QTRY_VERIFY_WITH_TIMEOUT(!ready.isEmpty() && !flame->isBusy(), 30000);
    QCOMPARE(flame->source().upid.value_or(-1), python_upid);
    // The bottom panel shows the flamegraph, not the diamond's details.
    QTRY_VERIFY_WITH_TIMEOUT(!details.isEmpty(), 10000);
    QCoreApplication::processEvents();
    QVERIFY(flame->isVisible());
    QCOMPARE(flame->source().ts, diamond->ts);
    const FlameTree* tree = flame->tree();
    QVERIFY(tree);
    // Unreleased size: the running sum of the dumps' deltas up to this one.
    const qint64 held = QueryNumber(
        s, QStringLiteral("select sum(size) from heap_profile_allocation where upid = %1 and "
                          "ts <= %2")
               .arg(python_upid)
               .arg(diamond->ts));
    QVERIFY(held > 400 * 30000);  // the bytearrays alone; the strings add tens of MB
    QCOMPARE(qint64(tree->total()), held);
    bool interpreter = false, bytearray = false;
    for (int i = 0; i < tree->size(); ++i) {
      interpreter |= tree->node(i).name.contains(QStringLiteral("EvalFrame"));
      bytearray |= tree->node(i).name.contains(QStringLiteral("bytearray"), Qt::CaseInsensitive);
    }
    QVERIFY2(interpreter, "no interpreter frame in the flamegraph");
    QVERIFY2(bytearray, "no bytearray frame in the flamegraph");
    QCoreApplication::processEvents();
    QVERIFY(w.grab().save(ShotPath(QStringLiteral("heapprof_python"))));
  }
#endif

#if defined(FATHOM_GUI_HAVE_RECORD) && defined(FATHOM_HAVE_RECORDER)
  // Issue 29 item 5: the Record page is not a trap. Esc and the visible Back
  // button return to the open trace, with its title.
  void escLeavesTheRecordPage() {
    MainWindow w;
    w.resize(1024, 700);
    w.show();
    const QString trace = QStringLiteral(FATHOM_SHARED_DIR "/testdata/lmk_lmkd_atrace.pb");
    QVERIFY(OpenAndWait(w, trace));
    auto* stack = w.findChild<QStackedWidget*>();
    const QString title = w.windowTitle();
    // As a user gets there: working in the trace (any focusable widget of the
    // workspace holds the focus), then Ctrl+R. Esc goes where the focus really
    // is, not to a widget the test picks.
    QApplication::setActiveWindow(&w);
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QList<QWidget*> focusable;
    for (QWidget* c : w.workspace()->findChildren<QWidget*>())
      if (c->isVisible() && c->isEnabled() && c->focusPolicy() != Qt::NoFocus) focusable << c;
    QVERIFY(focusable.size() > 3);
    focusable << nullptr;  // and nothing focused (e.g. the focused panel was folded)
    RecordPage* page = nullptr;
    for (QWidget* c : focusable) {
      if (c)
        c->setFocus();
      else if (QApplication::focusWidget())
        QApplication::focusWidget()->clearFocus();
      w.showRecordPage();
      page = w.recordPage();
      QVERIFY(page);
      QCOMPARE(stack->currentWidget(), static_cast<QWidget*>(page));
      QWidget* focused = QApplication::focusWidget();
      QVERIFY2(focused && page->isAncestorOf(focused),
               qPrintable(QStringLiteral("focus outside the Record page after %1 had it")
                              .arg(c ? QString::fromLatin1(c->metaObject()->className())
                                     : QStringLiteral("nothing"))));
      QTest::keyClick(focused, Qt::Key_Escape);
      QCOMPARE(stack->currentWidget(), static_cast<QWidget*>(w.workspace()));
    }
    QCOMPARE(stack->currentWidget(), static_cast<QWidget*>(w.workspace()));
    QCOMPARE(w.windowTitle(), title);
    w.showRecordPage();
    QVERIFY(page->backButton()->isVisible());
    QVERIFY(page->backButton()->geometry().right() < page->width());
    QTest::mouseClick(page->backButton(), Qt::LeftButton);
    QCOMPARE(stack->currentWidget(), static_cast<QWidget*>(w.workspace()));
    QVERIFY(w.session()->isLoaded());
  }

  // The inode map preset: the source is in the config shown (the one that runs), with
  // every value explicit, and the cost warning is on the page.
  void recordPageOffersTheInodeFileMapWithItsWarning() {
    MainWindow w;
    w.resize(1024, 700);
    w.show();
    w.showRecordPage();
    RecordPage* page = w.recordPage();
    QVERIFY(page);
    page->applyPreset(QStringLiteral("inode-map"));
    QVERIFY(page->configText().contains(QStringLiteral("name: \"linux.inode_file_map\"")));
    QVERIFY(page->configText().contains(QStringLiteral("scan_batch_size: 15000")));
    QVERIFY(page->configText().contains(QStringLiteral("scan_interval_ms: 1000")));
    auto* warning = page->findChild<QLabel*>(QStringLiteral("inodeWarning"));
    QVERIFY(warning);
    QVERIFY(warning->text().contains(QStringLiteral("expensive")));
    QVERIFY(warning->text().contains(QStringLiteral("only when needed")));
    QVERIFY(page->grab().save(ShotPath(QStringLiteral("record_page_inode"))));
  }

  void recordsThisComputerFromTheRecordPage() {
    qputenv("FATHOM_DEVICE_DIR", FATHOM_BIN_DIR);
    QTemporaryDir out;
    MainWindow w;
    w.resize(1500, 950);
    w.show();
    w.showRecordPage();
    RecordPage* page = w.recordPage();
    QVERIFY(page);
    QTRY_VERIFY_WITH_TIMEOUT(page->targets()->rowCount() > 0, 10000);
    QVERIFY(page->selectTarget(QString()));
    // The probe of the selected target fills in the device command.
    QTRY_VERIFY_WITH_TIMEOUT(!page->deviceCommand().isEmpty(), 15000);
    page->applyPreset(QStringLiteral("memory"));
    page->setDurationSeconds(2);
    page->setOutputFolder(out.path());
    QVERIFY(page->configText().contains(QStringLiteral("linux.process_stats")));
    QVERIFY(page->configText().contains(QStringLiteral("proc_stats_poll_ms: 100")));
    // The memory preset names its counters instead of recording all of meminfo/vmstat.
    QVERIFY(page->configText().contains(QStringLiteral("meminfo_counters: MEMINFO_MEM_AVAILABLE")));
    QVERIFY(page->deviceCommand().contains(QStringLiteral("fathom-recorder")));
    QVERIFY(page->grab().save(ShotPath(QStringLiteral("record_page"))));

    QSignalSpy recorded(page, &RecordPage::traceRecorded);
    QSignalSpy failed(page, &RecordPage::recordingFailed);
    QSignalSpy opened(&w, &MainWindow::traceOpened);
    auto* button = page->findChild<QPushButton*>(QStringLiteral("recordButton"));
    QVERIFY(button && button->isEnabled());
    QTest::mouseClick(button, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(!recorded.isEmpty() || !failed.isEmpty(), 60000);
    QVERIFY2(failed.isEmpty(),
             qPrintable(failed.isEmpty() ? QString() : failed.first().first().toString()));
    const QString path = recorded.first().first().toString();
    QVERIFY(QFile::exists(path));
    QVERIFY(path.startsWith(out.path()));
    // The trace may already be open: wait on the record, not on a new signal.
    QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 60000);
    QVERIFY(opened.first().first().toBool());
    TraceSession* s = w.session();
    QVERIFY(QueryNumber(s, QStringLiteral("select count(*) from process_counter_track")) > 0);
    QVERIFY(QueryNumber(
                s, QStringLiteral(
                       "select count(*) from process where name like '%fathom-recorder%'")) > 0);
    s->waitForIdle();
    QCoreApplication::processEvents();
    QVERIFY(w.grab().save(ShotPath(QStringLiteral("record_result"))));
  }
#endif
};

QTEST_MAIN(AppGuiTest)
#include "app_gui_test.moc"
