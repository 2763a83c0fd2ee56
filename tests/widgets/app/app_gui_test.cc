// The whole window, offscreen: every real Perfetto trace opens and shows its
// timeline, a damaged file fails with a report and stays on disk, and the
// Record page records this computer and opens the result.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QListView>
#include <QPushButton>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "app/gui/main_window.h"
#include "app/gui/trace_workspace.h"
#include "widgets/common/trace_session.h"
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

#if defined(FATHOM_GUI_HAVE_RECORD) && defined(FATHOM_HAVE_RECORDER)
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
