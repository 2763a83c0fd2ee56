// Fetches a large SQL result through the Query page's lazy model (pages read
// on the query lane, stored within a memory budget, spilled past it) and
// prints rows/s, the model's resident/spilled bytes and peak RSS.
//   fathom-bench-query TRACE [--rows N] [--sql "select * from sched"]
// Default SQL: a recursive CTE generating N (1e6) rows of 4 columns.
#include <sys/resource.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QTest>
#include <cstdio>

#include "widgets/query/query_result_model.h"

using namespace fathom::gui;

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TRACE [--rows N] [--sql SQL]\n", argv[0]);
    return 2;
  }
  long long rows = 1000000;
  QString sql;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (QByteArray(argv[i]) == "--rows") rows = std::atoll(argv[i + 1]);
    if (QByteArray(argv[i]) == "--sql") sql = QString::fromUtf8(argv[i + 1]);
  }
  if (sql.isEmpty())
    sql = QStringLiteral(
              "with recursive c(x) as (select 1 union all select x + 1 from c where "
              "x < %1) select x, x * 2 as y, 'row ' || x as label, x / 3.0 from c")
              .arg(rows);
  TraceSession session;
  session.open(QString::fromLocal8Bit(argv[1]));
  if (!QTest::qWaitFor([&] { return !session.isLoading(); }, 600000) || !session.isLoaded()) {
    std::fprintf(stderr, "cannot load %s\n", argv[1]);
    return 1;
  }
  QueryResultModel model(&session);
  QElapsedTimer t;
  t.start();
  model.run(sql);
  model.fetchAll();
  QEventLoop loop;
  QObject::connect(&model, &QueryResultModel::stateChanged, &loop, [&] {
    if (model.state() != QueryResultModel::State::kRunning) loop.quit();
  });
  if (model.state() == QueryResultModel::State::kRunning) loop.exec();
  const double s = t.nsecsElapsed() / 1e9;
  if (model.state() != QueryResultModel::State::kDone) {
    std::fprintf(stderr, "query failed: %s\n", qPrintable(model.errorMessage()));
    return 1;
  }
  // Random access over the whole result, as a scrolling view would do.
  QElapsedTimer r;
  r.start();
  qint64 sum = 0;
  const int n = model.rowCount();
  for (int i = 0; i < 20000; ++i) sum += model.value(int((i * 7919LL) % n), 0).toLongLong();
  const double rs = r.nsecsElapsed() / 1e9;
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  std::printf("rows %d, columns %d\n", n, model.columnCount());
  std::printf("first page after %.1f ms, all rows in %.3f s: %.0f rows/s\n",
              model.firstPageNs() / 1e6, s, n / s);
  std::printf("model memory: %.1f MB resident, %.1f MB spilled to disk\n",
              model.residentBytes() / 1048576.0, model.spilledBytes() / 1048576.0);
  std::printf("20000 random cell reads: %.1f us each (checksum %lld)\n", rs / 20000 * 1e6, sum);
  std::printf("peak RSS %.1f MB\n", ru.ru_maxrss / 1024.0);
  return 0;
}
