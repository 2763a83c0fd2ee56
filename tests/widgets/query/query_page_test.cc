// The Query page and its lazy model on real traces: QAbstractItemModelTester,
// a million-row result that arrives page by page within a memory budget,
// errors with positions, cancel through sqlite3_interrupt, CSV export equal
// to core's CSV printer, history, Ctrl+Enter on a selection, and every
// example query on the shared trace it is written for.
#include "widgets/query/query_page.h"

#include <QAbstractItemModelTester>
#include <QAbstractItemView>
#include <QCompleter>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QPlainTextEdit>
#include <QSettings>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"
#include "widgets/common/sql_package_settings.h"
#include "widgets/query/example_queries.h"
#include "widgets/query/query_result_model.h"
#include "widgets/query/sql_editor.h"

using namespace fathom;
using namespace fathom::gui;
using State = QueryResultModel::State;

namespace {

const char kSchedTrace[] = "android_sched_binder_10s.perfetto-trace";

QString tracePath(const QString& name) {
  return QStringLiteral(FATHOM_SHARED_DIR "/testdata/") + name;
}

std::unique_ptr<TraceSession> openSession(const QString& name) {
  auto s = std::make_unique<TraceSession>();
  s->open(tracePath(name));
  (void)QTest::qWaitFor([&] { return s->isLoaded() || !s->isLoading(); }, 30000);
  return s;
}

bool waitDone(QueryResultModel* m, int ms = 30000) {
  return QTest::qWaitFor([&] { return m->state() != State::kRunning; }, ms);
}

qint64 rssKb() {
#ifdef __linux__
  QFile f("/proc/self/status");
  if (!f.open(QIODevice::ReadOnly)) return -1;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').first().toLongLong();
#endif
  return -1;
}

// Minimal RFC 4180 reader for the round trip.
QList<QStringList> parseCsv(const QString& text) {
  QList<QStringList> rows;
  QStringList row;
  QString cell;
  bool quoted = false, wasQuoted = false;
  for (int i = 0; i < text.size(); ++i) {
    const QChar c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
        cell += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        cell += c;
    } else if (c == '"') {
      quoted = wasQuoted = true;
    } else if (c == ',') {
      row << cell, cell.clear();
    } else if (c == '\n') {
      row << cell, cell.clear();
      rows << row, row.clear();
    } else {
      cell += c;
    }
  }
  Q_UNUSED(wasQuoted);
  return rows;
}

}  // namespace

class QueryPageTest : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<TraceSession> session_;

 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName("fathom-tests");
    QCoreApplication::setApplicationName("query_page_test");
    QSettings().clear();
    session_ = openSession(kSchedTrace);
    QVERIFY(session_->isLoaded());
  }

  void modelPassesTester() {
    QueryResultModel m(session_.get());
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.setAutoFetchRows(0);
    m.run("select ts, dur, cpu, utid, end_state from sched order by ts limit 5000");
    QTRY_VERIFY_WITH_TIMEOUT(m.rowCount() > 0, 10000);
    m.fetchAll();
    QVERIFY(waitDone(&m));
    QCOMPARE(m.state(), State::kDone);
    QCOMPARE(m.rowCount(), 5000);
    QCOMPARE(m.columnNames(), QStringList({"ts", "dur", "cpu", "utid", "end_state"}));
    m.run("select 1 as a, null as b, 2.5 as c, 'x' as d");
    QVERIFY(waitDone(&m));
    QCOMPARE(m.rowCount(), 1);
    QCOMPARE(m.value(0, 0).toLongLong(), 1);
    QVERIFY(m.value(0, 1).isNull());
    QCOMPARE(m.index(0, 1).data().toString(), QString("NULL"));
    QCOMPARE(m.value(0, 2).toDouble(), 2.5);
    QCOMPARE(m.value(0, 3).toString(), QString("x"));
    m.run("select * from sched where 0");
    QVERIFY(waitDone(&m));
    QCOMPARE(m.rowCount(), 0);
    QVERIFY(m.columnCount() > 0);
  }

  // Several statements: the last one's rows are shown (Perfetto's rule), views made by earlier
  // statements are usable, and trailing comments/semicolons do not count as a statement.
  void lastStatementIsShown() {
    QueryResultModel m(session_.get());
    m.run(
        "create view if not exists busy_cpu as select cpu, count(*) n from sched group by cpu;\n"
        "select 1 as first;\n"
        "select count(*) as cpus, sum(n) as slices from busy_cpu; -- the answer\n/* end */ ;");
    QVERIFY(waitDone(&m));
    QCOMPARE(m.columnNames(), QStringList({"cpus", "slices"}));
    QCOMPARE(m.rowCount(), 1);
    TraceProcessor tp;
    QVERIFY(tp.LoadFile(tracePath(kSchedTrace).toStdString()).ok());
    auto it = tp.Query("select count(distinct cpu), count(*) from sched");
    QVERIFY(it->NextResultSet() && it->NextRow());
    QCOMPARE(m.value(0, 0).toLongLong(), it->Get(0).i);
    QCOMPARE(m.value(0, 1).toLongLong(), it->Get(1).i);
    // The last statement returns nothing: no rows, no stale columns from the one before.
    m.run("select 1 as a; drop view busy_cpu");
    QVERIFY(waitDone(&m));
    QCOMPARE(m.rowCount(), 0);
    QVERIFY(m.state() != State::kError);
  }

  void millionRowsArriveInPages() {
    QueryResultModel m(session_.get());
    // (No QAbstractItemModelTester here: it calls fetchMore() on every
    // insert, which would read the whole result; modelPassesTester covers it.)
    const qint64 budget = 4 << 20;
    m.setMemoryBudget(budget);
    m.setAutoFetchRows(0);  // only what views (here: the test) ask for
    int maxInsert = 0, inserts = 0;
    connect(&m, &QAbstractItemModel::rowsInserted, this, [&](const QModelIndex&, int a, int b) {
      maxInsert = std::max(maxInsert, b - a + 1);
      ++inserts;
    });
    const qint64 rss0 = rssKb();
    m.run(
        "with recursive c(x) as (select 1 union all select x + 1 from c where x < 1000000) "
        "select x, x * 2 as y, 'row ' || x as label, x / 3.0 as third from c");
    QTRY_VERIFY_WITH_TIMEOUT(m.rowCount() >= QueryResultModel::kPageRows, 10000);
    for (int i = 0; i < 5; ++i) {
      session_->waitForIdle();
      QCoreApplication::processEvents();
    }
    // Nothing more than the first page until a view asks.
    const int asked = m.rowCount();
    QCOMPARE(asked, QueryResultModel::kPageRows);
    QVERIFY(m.canFetchMore());
    m.fetchMore();
    QTRY_COMPARE_WITH_TIMEOUT(m.rowCount(), asked + 4 * QueryResultModel::kPageRows, 10000);
    QElapsedTimer timer;
    timer.start();
    m.fetchAll();
    QVERIFY(waitDone(&m, 50000));
    qInfo("fetched the rest in %lld ms", timer.elapsed());
    QCOMPARE(m.state(), State::kDone);
    QCOMPARE(m.rowCount(), 1000000);
    QVERIFY(!m.canFetchMore());
    QVERIFY(maxInsert <= QueryResultModel::kPageRows);
    QVERIFY(inserts >= 1000000 / QueryResultModel::kPageRows);
    // Memory: the store keeps at most its budget (plus the page in use);
    // the rest went to the spill file and reads back correctly.
    QVERIFY2(m.residentBytes() <= budget + QueryResultModel::kPageBytes + 64 * 1024,
             qPrintable(QString::number(m.residentBytes())));
    QVERIFY(m.spilledBytes() > 8 * budget);
    QCOMPARE(m.value(0, 0).toLongLong(), 1);
    QCOMPARE(m.value(999999, 0).toLongLong(), 1000000);
    QCOMPARE(m.value(500000, 1).toLongLong(), 1000002);
    QCOMPARE(m.value(500000, 2).toString(), QString("row 500001"));
    QCOMPARE(m.value(2, 3).toDouble(), 1.0);
    QCOMPARE(m.index(12345, 2).data().toString(), QString("row 12346"));
    const qint64 total = m.residentBytes() + m.spilledBytes();
    const qint64 rss1 = rssKb();
    qInfo("1e6 rows: %lld KB of rows, resident %lld KB, RSS grew %lld KB", total / 1024,
          m.residentBytes() / 1024, rss1 - rss0);
    if (rss0 > 0) QVERIFY2((rss1 - rss0) * 1024 < total, "RSS grew by more than the whole result");
  }

  void errorsAreShownWithPosition() {
    QueryPage page(session_.get());
    page.setQuery("select ts, dur\nfrom sched\nwhere cpu = = 1");
    page.runQuery();
    QVERIFY(waitDone(page.model()));
    QCOMPARE(page.model()->state(), State::kError);
    QVERIFY2(page.errorText().contains("syntax error"), qPrintable(page.errorText()));
    QVERIFY(page.model()->errorPosition() >= 0);
    QVERIFY2(page.errorText().contains("line 3"), qPrintable(page.errorText()));
    QCOMPARE(page.editor()->extraSelections().size(), 1);

    page.setQuery("select * from no_such_table");
    page.runQuery();
    QVERIFY(waitDone(page.model()));
    QCOMPARE(page.model()->state(), State::kError);
    QVERIFY(page.errorText().contains("no such table: no_such_table"));
    // A good query clears the error.
    page.setQuery("select count(*) from sched");
    page.runQuery();
    QVERIFY(waitDone(page.model()));
    QCOMPARE(page.model()->state(), State::kDone);
    QVERIFY(page.errorText().isEmpty());
    page.resize(1000, 500);
    page.setQuery("select ts, dur\nfrom sched\nwhere cpu = = 1");
    page.runQuery();
    QVERIFY(waitDone(page.model()));
    page.show();
    QCoreApplication::processEvents();
    QDir().mkpath(FATHOM_SCREENSHOT_DIR);
    QVERIFY(page.grab().save(FATHOM_SCREENSHOT_DIR "/query_error.png"));
  }

  void cancelInterruptsSqlite() {
    QueryResultModel m(session_.get());
    // Its first row needs 2e9 steps: only sqlite3_interrupt ends it in time.
    m.run(
        "with recursive c(x) as (select 1 union all select x + 1 from c where x < 2000000000) "
        "select sum(x) from c");
    QTest::qWait(300);
    QCOMPARE(m.state(), State::kRunning);
    m.cancel();
    QCOMPARE(m.state(), State::kCancelled);
    session_->waitForIdle();  // would take minutes without the interrupt
    // The connection works again afterwards.
    m.run("select count(*) from sched");
    QVERIFY(waitDone(&m));
    QCOMPARE(m.state(), State::kDone);
    QVERIFY(m.value(0, 0).toLongLong() > 0);
    // Cancel between pages (the statement is not stepping): closes the cursor.
    m.setAutoFetchRows(0);
    m.run("select * from sched");
    QTRY_VERIFY_WITH_TIMEOUT(m.rowCount() > 0, 10000);
    m.cancel();
    QCOMPARE(m.state(), State::kCancelled);
    session_->waitForIdle();
    m.run("select 7");
    QVERIFY(waitDone(&m));
    QCOMPARE(m.value(0, 0).toLongLong(), 7);
  }

  void csvExportMatchesCorePrinter() {
    QTemporaryDir dir;
    const std::string sql =
        "select s.ts, s.dur, s.cpu, t.name, s.end_state, s.priority, 1.0 * s.dur / 3 as third "
        "from sched s join thread t using(utid) order by s.ts limit 20000";
    QueryResultModel m(session_.get());
    m.setMemoryBudget(256 << 10);  // make the export read spilled pages too
    QSignalSpy spy(&m, &QueryResultModel::exportFinished);
    m.run(QString::fromStdString(sql));
    const QString path = dir.filePath("out.csv");
    m.exportCsv(path);  // before the end: fetches the rest first
    QVERIFY(spy.wait(30000));
    QCOMPARE(spy.first().at(1).toString(), QString());
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray ours = f.readAll();
    TraceProcessor tp;
    QVERIFY(tp.LoadFile(tracePath(kSchedTrace).toStdString()).ok());
    std::string core;
    auto it = tp.Query(sql);
    QVERIFY(PrintResults(it.get(), ResultFormat::kCsv, &core).ok());
    QCOMPARE(ours.size(), qsizetype(core.size()));
    QVERIFY(ours == QByteArray::fromStdString(core));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList({"out.csv"}));  // no temp left

    // Quotes, commas and newlines survive a round trip (doubled quotes).
    spy.clear();
    m.run("select 'a,\"b\"' as s, 'two\nlines' as t, null as n, 42 as i, -1.25 as d");
    m.exportCsv(path);
    QVERIFY(spy.wait(10000));
    f.close();
    QFile g(path);
    QVERIFY(g.open(QIODevice::ReadOnly));
    const QList<QStringList> rows = parseCsv(QString::fromUtf8(g.readAll()));
    QCOMPARE(rows.size(), 2);
    QCOMPARE(rows[0], QStringList({"s", "t", "n", "i", "d"}));
    QCOMPARE(rows[1], QStringList({"a,\"b\"", "two\nlines", "[NULL]", "42", "-1.250000"}));
  }

  // Settings → Perfetto standard library folder, then a module included on the Query page: the
  // rows equal trace_processor_shell v58.2's answer to the same SQL on the same trace
  // (expected/include_thread_level_parallelism.{sql,csv}). Completion then offers the module's
  // names, its table and that table's columns.
  void includeModuleMatchesOracleAndCompletes() {
    const QString stdlib = QStringLiteral(FATHOM_SHARED_DIR "/perfetto-stdlib");
    if (!QDir(stdlib).exists()) QSKIP("needs ../shared/perfetto-stdlib");
    SqlPackageSettings settings;
    settings.stdlib = stdlib;
    settings.save();
    auto session = openSession(kSchedTrace);  // a new session takes the saved settings
    QVERIFY(session->isLoaded());
    QueryPage page(session.get());
    QFile sql(QStringLiteral(FATHOM_EXPECTED_DIR "/include_thread_level_parallelism.sql"));
    QFile want(QStringLiteral(FATHOM_EXPECTED_DIR "/include_thread_level_parallelism.csv"));
    QVERIFY(sql.open(QIODevice::ReadOnly) && want.open(QIODevice::ReadOnly));
    QSignalSpy refreshed(&page, &QueryPage::completionsRefreshed);
    page.setQuery(QString::fromUtf8(sql.readAll()));
    page.runQuery();
    QVERIFY(waitDone(page.model()));
    QCOMPARE(page.errorText(), QString());
    QTemporaryDir dir;
    QSignalSpy exported(page.model(), &QueryResultModel::exportFinished);
    page.exportCsv(dir.filePath("rows.csv"));
    QVERIFY(exported.wait(10000));
    QFile got(dir.filePath("rows.csv"));
    QVERIFY(got.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(got.readAll()), QString::fromUtf8(want.readAll()));

    QVERIFY(QTest::qWaitFor([&] { return !page.refreshingCompletions(); }, 10000));
    SqlEditor* editor = page.sqlEditor();
    auto completeAtEnd = [&](const QString& text) {
      editor->setPlainText(text);
      editor->moveCursor(QTextCursor::End);
      return editor->completions();
    };
    QVERIFY(completeAtEnd("INCLUDE PERFETTO MODULE sched.thread_l")
                .contains("sched.thread_level_parallelism"));
    QVERIFY(completeAtEnd("INCLUDE PERFETTO MODULE android.startup.st")
                .contains("android.startup.startups"));
    QVERIFY(
        completeAtEnd("SELECT * FROM sched_runnable_th").contains("sched_runnable_thread_count"));
    editor->setPlainText("SELECT r.runn FROM sched_runnable_thread_count r");
    QTextCursor c = editor->textCursor();
    c.setPosition(int(QString("SELECT r.runn").size()));
    editor->setTextCursor(c);
    QCOMPARE(editor->completions(), QStringList({"runnable_thread_count"}));
    // Functions: the prelude's and the library's own (PERFETTO FUNCTION).
    QVERIFY(completeAtEnd("SELECT trace_st").contains("trace_start"));
    // Typing opens the list; Tab takes the first entry.
    page.show();
    editor->setFocus();
    editor->setPlainText("SELECT * FROM sched_runnable_th");
    editor->moveCursor(QTextCursor::End);
    QTest::keyClick(editor, Qt::Key_R);
    QTRY_VERIFY(editor->completer()->popup()->isVisible());
    QTest::keyClick(editor->completer()->popup(), Qt::Key_Tab);
    QTRY_COMPARE(editor->toPlainText(), QString("SELECT * FROM sched_runnable_thread_count"));
    QSettings().remove("sql");
  }

  void historyAndCtrlEnterSelection() {
    QSettings().remove("query/history");
    QueryPage page(session_.get());
    page.show();
    page.setQuery("select 1 as first;\nselect 2 as second");
    // Select the second line, Ctrl+Enter runs only it.
    QTextCursor c = page.editor()->textCursor();
    c.movePosition(QTextCursor::Start);
    c.movePosition(QTextCursor::Down);
    c.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
    page.editor()->setTextCursor(c);
    page.editor()->setFocus();
    QTest::keyClick(page.editor(), Qt::Key_Return, Qt::ControlModifier);
    QVERIFY(waitDone(page.model()));
    QCOMPARE(page.model()->columnNames(), QStringList({"second"}));
    QCOMPARE(page.model()->value(0, 0).toLongLong(), 2);
    page.setQuery("select 3 as third");
    QTest::keyClick(page.editor(), Qt::Key_Enter, Qt::ControlModifier);
    QVERIFY(waitDone(page.model()));
    QCOMPARE(page.model()->columnNames(), QStringList({"third"}));
    page.setQuery("select 2 as second");
    page.runQuery();
    QVERIFY(waitDone(page.model()));
    // Most recent first, no duplicates; kept in QSettings for the next run.
    QCOMPARE(QueryPage::history(), QStringList({"select 2 as second", "select 3 as third"}));
    QueryPage next(session_.get());
    QCOMPARE(next.query(), QString("select 2 as second"));
  }

  void examplesRunOnTheirTraces() {
    std::map<QString, std::unique_ptr<TraceSession>> sessions;
    QueryPage* page = nullptr;
    int n = 0;
    for (const ExampleQuery& e : ExampleQueries()) {
      const QString trace = QString::fromUtf8(e.trace);
      if (trace.isEmpty()) continue;  // android_logs: covered by the log panel test
      auto& s = sessions[trace];
      if (!s) s = openSession(trace);
      QVERIFY2(s->isLoaded(), e.trace);
      QueryPage p(s.get());
      p.setQuery(QString::fromUtf8(e.sql));
      p.runQuery();
      QVERIFY(waitDone(p.model()));
      QVERIFY2(p.model()->state() == State::kDone,
               qPrintable(QString("%1: %2").arg(e.title, p.model()->errorMessage())));
      QVERIFY2(p.model()->rowCount() > 0, e.title);
      ++n;
    }
    QVERIFY(n >= 10);
    Q_UNUSED(page);
    // The Examples menu offers every one of them.
    QueryPage p(session_.get());
    QCOMPARE(p.examplesMenu()->actions().size(), qsizetype(ExampleQueries().size()));
  }

  void screenshots() {
    QueryPage page(session_.get());
    page.resize(1200, 720);
    page.show();
    page.setQuery(QString::fromUtf8(ExampleQueries()[0].sql));
    page.runQuery();
    QVERIFY(waitDone(page.model()));
    QCoreApplication::processEvents();
    QDir().mkpath(FATHOM_SCREENSHOT_DIR);
    QVERIFY(page.grab().save(FATHOM_SCREENSHOT_DIR "/query_cpu_by_process.png"));
    page.setQuery("select * from sched");
    page.runQuery();
    QVERIFY(waitDone(page.model()));
    page.resultView()->scrollTo(page.model()->index(page.model()->rowCount() / 2, 0));
    QCoreApplication::processEvents();
    QVERIFY(page.grab().save(FATHOM_SCREENSHOT_DIR "/query_sched.png"));
  }
};

QTEST_MAIN(QueryPageTest)
#include "query_page_test.moc"
