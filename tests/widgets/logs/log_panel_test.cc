// The log panel on a trace with android_logs: the model under
// QAbstractItemModelTester, and every filter (time range, minimum priority,
// tag, text) giving exactly the count SQL gives on an independent
// TraceProcessor. No shared trace has log lines, so one is built here from
// the protoc-generated classes: a process tree, a clock snapshot (log times
// are CLOCK_REALTIME) and 3000 lines from 4 threads.
#include "widgets/logs/log_panel.h"

#include <QAbstractItemModelTester>
#include <QDir>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"

using namespace fathom;
using namespace fathom::gui;

namespace {

constexpr uint64_t kBoot0 = 1'000'000'000;              // BOOTTIME at the snapshot
constexpr uint64_t kReal0 = 1'700'000'000'000'000'000;  // REALTIME at the snapshot
const char* kTags[] = {"ActivityManager", "Choreographer", "NowInAndroid", "art", "chatty"};

std::string MakeLogTrace() {
  perfetto::protos::Trace trace;
  auto* snap = trace.add_packet();
  snap->set_timestamp(kBoot0);
  auto* clocks = snap->mutable_clock_snapshot();
  auto* boot = clocks->add_clocks();
  boot->set_clock_id(6);  // BUILTIN_CLOCK_BOOTTIME
  boot->set_timestamp(kBoot0);
  auto* real = clocks->add_clocks();
  real->set_clock_id(1);  // BUILTIN_CLOCK_REALTIME
  real->set_timestamp(kReal0);
  auto* tree = trace.add_packet();
  tree->set_timestamp(kBoot0);
  auto* pt = tree->mutable_process_tree();
  auto addProcess = [&](int pid, const char* name) {
    auto* p = pt->add_processes();
    p->set_pid(pid);
    p->set_ppid(1);
    p->add_cmdline(name);
  };
  auto addThread = [&](int tid, int tgid, const char* name) {
    auto* t = pt->add_threads();
    t->set_tid(tid);
    t->set_tgid(tgid);
    t->set_name(name);
  };
  addProcess(1000, "system_server");
  addProcess(4242, "com.google.samples.apps.nowinandroid");
  addThread(1000, 1000, "system_server");
  addThread(1017, 1000, "binder:1000_2");
  addThread(4242, 4242, "ndroid.demo");
  addThread(4260, 4242, "RenderThread");
  const int kThreads[][2] = {{1000, 1000}, {1000, 1017}, {4242, 4242}, {4242, 4260}};
  // 30 packets of 100 lines, 3.3 ms apart: deterministic but varied.
  uint32_t seed = 12345;
  auto next = [&]() { return seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7fff; };
  for (int p = 0; p < 30; ++p) {
    auto* pkt = trace.add_packet();
    pkt->set_timestamp(kBoot0 + uint64_t(p + 1) * 330'000'000);
    auto* logs = pkt->mutable_android_log();
    for (int i = 0; i < 100; ++i) {
      const int n = p * 100 + i;
      auto* e = logs->add_events();
      const auto& th = kThreads[next() % 4];
      e->set_pid(th[0]);
      e->set_tid(th[1]);
      e->set_timestamp(kReal0 + uint64_t(n) * 3'300'000 + next() % 1000);
      e->set_tag(kTags[next() % 5]);
      e->set_prio(static_cast<perfetto::protos::AndroidLogPriority>(2 + next() % 6));
      e->set_message(n % 7 == 0 ? "Skipped 3 frames! The application may be doing too much work"
                                : "event " + std::to_string(n) + " done");
    }
  }
  return trace.SerializeAsString();
}

int64_t sqlInt(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  if (!it->NextResultSet() || !it->NextRow()) return -1;
  return it->Get(0).i;
}

}  // namespace

class LogPanelTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir dir_;
  QString path_;
  TraceProcessor tp_;
  std::unique_ptr<TraceSession> session_;
  std::unique_ptr<LogPanel> panel_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    path_ = dir_.filePath("logs.pftrace");
    const std::string bytes = MakeLogTrace();
    std::ofstream(path_.toStdString(), std::ios::binary) << bytes;
    QVERIFY(tp_.LoadFile(path_.toStdString()).ok());
    QCOMPARE(sqlInt(tp_, "select count(*) from android_logs"), 3000);
    session_ = std::make_unique<TraceSession>();
    session_->open(path_);
    QVERIFY(QTest::qWaitFor([&] { return session_->isLoaded() || !session_->isLoading(); }, 30000));
    QVERIFY(session_->isLoaded());
    panel_ = std::make_unique<LogPanel>(session_.get());
    panel_->resize(1200, 500);
    panel_->show();
    QTRY_VERIFY_WITH_TIMEOUT(panel_->isLoaded(), 10000);
  }

  void modelPassesTester() {
    QAbstractItemModelTester tester(panel_->model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(panel_->model()->rowCount(), 3000);
    panel_->setMinPriority(5);
    panel_->setTextFilter("frames");
    panel_->setTimeRange(session_->traceStart(), session_->traceEnd());
    panel_->setTagFilter("art");
    panel_->setTagFilter(QString());
    panel_->setTextFilter(QString());
    panel_->setMinPriority(0);
    panel_->setTimeRange(0, 0);
    QCOMPARE(panel_->model()->rowCount(), 3000);
  }

  void namesAndColours() {
    LogModel* m = panel_->model();
    // Every line names its process and thread through the process tree.
    for (int r = 0; r < m->rowCount(); r += 97) {
      QVERIFY(!m->index(r, LogModel::kProcess).data().toString().isEmpty());
      QVERIFY(!m->index(r, LogModel::kThread).data().toString().isEmpty());
      const int prio = m->index(r, LogModel::kPrio).data(Qt::UserRole).toInt();
      QCOMPARE(m->index(r, LogModel::kPrio).data().toString(), LogModel::prioLetter(prio));
      QCOMPARE(m->index(r, LogModel::kPrio).data(Qt::BackgroundRole).value<QBrush>().color(),
               LogModel::prioColor(prio));
    }
    QCOMPARE(LogModel::prioLetter(6), QString("E"));
    QVERIFY(LogModel::prioColor(6) != LogModel::prioColor(4));
    // Rows come in time order.
    for (int r = 1; r < m->rowCount(); ++r) QVERIFY(m->timestamp(r - 1) <= m->timestamp(r));
  }

  void filtersMatchSql_data() {
    QTest::addColumn<double>("from");  // fraction of the trace
    QTest::addColumn<double>("to");
    QTest::addColumn<int>("prio");
    QTest::addColumn<QString>("tag");
    QTest::addColumn<QString>("text");
    QTest::newRow("all") << 0.0 << 0.0 << 0 << ""
                         << "";
    QTest::newRow("time") << 0.25 << 0.6 << 0 << ""
                          << "";
    QTest::newRow("warn+") << 0.0 << 0.0 << 5 << ""
                           << "";
    QTest::newRow("error+ in time") << 0.1 << 0.5 << 6 << ""
                                    << "";
    QTest::newRow("tag") << 0.0 << 0.0 << 0 << "Choreographer"
                         << "";
    QTest::newRow("tag+prio+time") << 0.3 << 0.9 << 4 << "art"
                                   << "";
    QTest::newRow("text") << 0.0 << 0.0 << 0 << ""
                          << "SKIPPED 3";
    QTest::newRow("text matches tag") << 0.0 << 0.0 << 3 << ""
                                      << "chat";
  }

  void filtersMatchSql() {
    QFETCH(double, from);
    QFETCH(double, to);
    QFETCH(int, prio);
    QFETCH(QString, tag);
    QFETCH(QString, text);
    const qint64 s = session_->traceStart(), e = session_->traceEnd();
    const qint64 t0 = from == to ? 0 : s + qint64((e - s) * from);
    const qint64 t1 = from == to ? 0 : s + qint64((e - s) * to);
    panel_->setTimeRange(t0, t1);
    panel_->setMinPriority(prio);
    panel_->setTagFilter(tag);
    panel_->setTextFilter(text);
    std::string where = "prio >= " + std::to_string(prio);
    if (t1 > t0) where += " and ts >= " + std::to_string(t0) + " and ts < " + std::to_string(t1);
    if (!tag.isEmpty()) where += " and tag = '" + tag.toStdString() + "'";
    if (!text.isEmpty())  // LIKE is case-insensitive for ASCII, as the panel is
      where += " and (msg like '%" + text.toStdString() + "%' or tag like '%" + text.toStdString() +
               "%')";
    const int64_t expected = sqlInt(tp_, "select count(*) from android_logs where " + where);
    QVERIFY(expected > 0);
    QCOMPARE(int64_t(panel_->model()->rowCount()), expected);
    if (t1 > t0) {
      for (int r = 0; r < panel_->model()->rowCount(); ++r) {
        QVERIFY(panel_->model()->timestamp(r) >= t0);
        QVERIFY(panel_->model()->timestamp(r) < t1);
      }
    }
    const QString shot =
        QStringLiteral(FATHOM_SCREENSHOT_DIR "/logs_%1.png")
            .arg(QString(QTest::currentDataTag()).replace(QRegularExpression("[^a-z0-9]+"), "_"));
    if (QByteArray(QTest::currentDataTag()) == "all" ||
        QByteArray(QTest::currentDataTag()) == "error+ in time") {
      QDir().mkpath(FATHOM_SCREENSHOT_DIR);
      QCoreApplication::processEvents();
      QVERIFY(panel_->grab().save(shot));
    }
  }

  void emptyTrace() {
    // A trace without logs says so instead of showing an empty table.
    TraceSession s;
    s.open(QStringLiteral(FATHOM_SHARED_DIR "/testdata/lmk_lmkd_atrace.pb"));
    QVERIFY(QTest::qWaitFor([&] { return s.isLoaded() || !s.isLoading(); }, 30000));
    LogPanel p(&s);
    QSignalSpy spy(&p, &LogPanel::logsLoaded);
    QVERIFY(spy.wait(10000));
    QCOMPARE(spy.first().first().toInt(), 0);
    QCOMPARE(p.model()->rowCount(), 0);
    QVERIFY(!p.view()->isVisibleTo(&p));
  }
};

QTEST_MAIN(LogPanelTest)
#include "log_panel_test.moc"
