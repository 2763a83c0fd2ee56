#include "app/gui/screenshot.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QPixmap>
#include <QTimer>
#include <cstdio>

#include "app/gui/main_window.h"
#include "app/gui/trace_workspace.h"
#include "widgets/common/trace_session.h"
#include "widgets/query/query_page.h"
#include "widgets/timeline/timeline_view.h"

namespace fathom::gui {
namespace {

// Lets queued results land and widgets ask for more, until both lanes have
// been idle through a whole round of event processing.
void Settle(TraceSession* session) {
  for (int round = 0; round < 20; ++round) {
    session->waitForIdle();
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < 60) QApplication::processEvents(QEventLoop::AllEvents, 20);
  }
  session->waitForIdle();
  QApplication::processEvents();
}

}  // namespace

int TakeScreenshot(MainWindow* window, const ScreenshotRequest& request) {
  window->resize(request.size);
  window->show();
  bool ok = false;
  QEventLoop loop;
  QObject::connect(window, &MainWindow::traceOpened, &loop, [&](bool opened) {
    ok = opened;
    loop.quit();
  });
  window->openTrace(request.trace);
  loop.exec();
  TraceSession* session = window->session();
  if (!ok) {
    std::fprintf(stderr, "fathom: %s\n", qPrintable(session->outcome().error));
    return 1;
  }
  TraceWorkspace* ws = window->workspace();
  if (!request.select.isEmpty()) {
    const QStringList parts = request.select.split(QLatin1Char(','));
    bool ok0 = false, ok1 = false;
    const double s0 = parts.value(0).toDouble(&ok0), s1 = parts.value(1).toDouble(&ok1);
    if (parts.size() != 2 || !ok0 || !ok1 || s1 <= s0) {
      std::fprintf(stderr, "fathom: --select wants START,END in seconds from the trace start\n");
      return 2;
    }
    const qint64 t0 = session->traceStart() + qint64(s0 * 1e9);
    const qint64 t1 = session->traceStart() + qint64(s1 * 1e9);
    ws->timeline()->setSelection(t0, t1);
  }
  const QString v = request.view;
  if (v == QLatin1String("flamegraph")) {
    ws->setView(TraceWorkspace::View::kFlamegraph);
  } else if (v == QLatin1String("query")) {
    ws->setView(TraceWorkspace::View::kQuery);
    ws->query()->setQuery(request.sql.isEmpty()
                              ? QStringLiteral("select p.name as process, count(*) as slices, "
                                               "sum(s.dur) as cpu_ns from sched s join thread t "
                                               "using(utid) left join process p using(upid) "
                                               "group by 1 order by 3 desc")
                              : request.sql);
    ws->query()->runQuery();
  } else if (v == QLatin1String("logs")) {
    ws->setView(TraceWorkspace::View::kLogs);
  } else if (v != QLatin1String("timeline")) {
    std::fprintf(stderr, "fathom: --view must be timeline, flamegraph, query or logs\n");
    return 2;
  }
  Settle(session);
  QPixmap pixmap = window->grab();
  if (!pixmap.save(request.out)) {
    std::fprintf(stderr, "fathom: cannot write %s\n", qPrintable(request.out));
    return 1;
  }
  return 0;
}

}  // namespace fathom::gui
