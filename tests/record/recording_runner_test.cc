// RecordingRunner (the Record page's worker) on this computer: a native heap
// profile whose program cannot produce a sample (a 1 GiB sampling interval,
// `sleep` allocates a few bytes) ends with the empty-profile explanation,
// found on the viewer's one load of the trace as the window does; a profile stopped early
// stops the program it started and says so.
#include "widgets/record/recording_runner.h"

#include <QCoreApplication>
#include <QDir>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "core/trace_processor.h"
#include "record/trace_config_builder.h"

using namespace fathom;

class RecordingRunnerTest : public QObject {
  Q_OBJECT
 private:
  // Native heap profile of `command` on this computer, nothing else.
  static perfetto::protos::TraceConfig HeapConfig(const std::string& command) {
    record::RecordOptions o;
    o.duration_ms = 0;
    if (!record::ApplyPreset("native-heap", &o).ok()) return {};
    o.heap_process_names = {command};
    o.heap_sampling_interval = 1ull << 30;
    auto c = record::BuildTraceConfig(o);
    return c.ok() ? *c : perfetto::protos::TraceConfig();
  }

 private slots:
  // Issue 29 item 10: the heap preset dumps every second by default, and a recording of a
  // program alive for ~2.5 s has a dump per second plus the one at exit.
  void heapPresetDumpsEverySecond() {
    record::RecordOptions o;
    QVERIFY(record::ApplyPreset("native-heap", &o).ok());
    o.heap_process_names = {"x"};
    auto c = record::BuildTraceConfig(o);
    QVERIFY(c.ok());
    bool found = false;
    for (const auto& ds : c->data_sources()) {
      if (ds.config().name() != "android.heapprofd") continue;
      found = true;
      QCOMPARE(ds.config().heapprofd_config().continuous_dump_config().dump_interval_ms(), 1000u);
    }
    QVERIFY(found);
    if (!QFile::exists(QStringLiteral(FATHOM_DEVICE_DIR "/fathom-heapprofd")))
      QSKIP("fathom-heapprofd not built");
    if (QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty()) QSKIP("no python3");
    QTemporaryDir dir;
    record::SessionOptions options;
    options.output_path = dir.filePath(QStringLiteral("heap.pftrace")).toStdString();
    options.device_programs_dir = FATHOM_DEVICE_DIR;
    auto config = HeapConfig(
        "python3 -c \"import time; keep = [bytearray(100000) for _ in range(100)]; "
        "time.sleep(2.5)\"");
    for (auto& ds : *config.mutable_data_sources())
      if (ds.config().name() == "android.heapprofd")
        ds.mutable_config()->mutable_heapprofd_config()->set_sampling_interval_bytes(4096);
    gui::RecordingRunner runner;
    QSignalSpy finished(&runner, &gui::RecordingRunner::finished);
    runner.start({true, {}}, config, options);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 40000);
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
    TraceProcessor tp;
    QVERIFY(tp.LoadFile(options.output_path).ok());
    auto it = tp.Query(
        "select count(distinct ts) from heap_profile_allocation where upid = (select upid from "
        "heap_profile_allocation group by upid order by sum(abs(size)) desc limit 1)");
    QVERIFY(it->NextResultSet() && it->NextRow());
    QVERIFY2(it->Get(0).i >= 2, qPrintable(QString::number(it->Get(0).i)));
  }

  void emptyHeapProfileIsExplained() {
    if (!QFile::exists(QStringLiteral(FATHOM_DEVICE_DIR "/fathom-heapprofd")))
      QSKIP("fathom-heapprofd not built");
    QTemporaryDir dir;
    record::SessionOptions options;
    options.output_path = dir.filePath(QStringLiteral("heap.pftrace")).toStdString();
    options.device_programs_dir = FATHOM_DEVICE_DIR;
    gui::RecordingRunner runner;
    QSignalSpy hints(&runner, &gui::RecordingRunner::hints);
    QSignalSpy status(&runner, &gui::RecordingRunner::status);
    QSignalSpy finished(&runner, &gui::RecordingRunner::finished);
    runner.start({true, {}}, HeapConfig("sleep 1"), options);
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 40000);
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
    QVERIFY(QFile::exists(QString::fromStdString(options.output_path)));
    QCOMPARE(hints.size(), 0);  // a recording that worked is explained from the viewer's load
    // As the window does: load the trace once in a session, explain it on its query lane.
    gui::TraceSession session;
    session.open(QString::fromStdString(options.output_path));
    QTRY_VERIFY_WITH_TIMEOUT(session.isLoaded() || !session.isLoading(), 30000);
    QVERIFY(session.isLoaded());
    const record::SessionObservations seen = runner.lastObservations();
    QVERIFY(seen.heap_profile);
    QStringList found;
    bool done = false;
    session.query<QStringList>(
        [seen](gui::Core& core) { return gui::troubleshootRecordedTrace(core, seen); }, &session,
        [&](QStringList texts) {
          found = texts;
          done = true;
        });
    QTRY_VERIFY_WITH_TIMEOUT(done, 10000);
    QVERIFY(!found.isEmpty());
    const QString text = found.join(QLatin1Char('\n'));
    QVERIFY2(text.contains(QStringLiteral("made no sampled allocation")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("1073741824")), qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("profileable")), qPrintable(text));  // Linux
  }

  void stopEndsTheProfiledProgram() {
    if (!QFile::exists(QStringLiteral(FATHOM_DEVICE_DIR "/fathom-heapprofd")))
      QSKIP("fathom-heapprofd not built");
    QTemporaryDir dir;
    record::SessionOptions options;
    options.output_path = dir.filePath(QStringLiteral("stopped.pftrace")).toStdString();
    options.device_programs_dir = FATHOM_DEVICE_DIR;
    // The program writes its pid, then becomes `sleep 30` under that pid.
    const QString pid_file = dir.filePath(QStringLiteral("pid"));
    const std::string command = "sh -c 'echo $$ > " + pid_file.toStdString() + "; exec sleep 30'";
    gui::RecordingRunner runner;
    QSignalSpy status(&runner, &gui::RecordingRunner::status);
    QSignalSpy finished(&runner, &gui::RecordingRunner::finished);
    runner.start({true, {}}, HeapConfig(command), options);
    auto said = [&](const QString& what) {
      for (const auto& s : status)
        if (s.first().toString().contains(what)) return true;
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(said(QStringLiteral("Recording")), 20000);
    QTest::qWait(1500);
    runner.stop();
    QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 25000);
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
    QVERIFY(said(QStringLiteral("the profiled program is stopped too")));
    QFile f(pid_file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString pid = QString::fromLatin1(f.readAll()).trimmed();
    QVERIFY(!pid.isEmpty());
    // Gone, 28 s before `sleep 30` would have ended by itself.
    QTRY_VERIFY_WITH_TIMEOUT(!QDir(QStringLiteral("/proc/") + pid).exists(), 3000);
  }
};

QTEST_MAIN(RecordingRunnerTest)
#include "recording_runner_test.moc"
