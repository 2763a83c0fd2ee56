// TraceSession's worker lanes against widgets that close while their work
// runs: the result must be dropped, never delivered to (or posted through) a
// destroyed object. Before the fix the worker tested the QPointer guard on its
// own thread and then posted to the object, racing the GUI thread's delete
// (a segfault seen in CI when a view closed during a fetch).
#include "widgets/common/trace_session.h"

#include <QtTest>
#include <atomic>
#include <memory>
#include <thread>

using namespace fathom::gui;

class TraceSessionTest : public QObject {
  Q_OBJECT
 private slots:
  void resultsForDestroyedContextsAreDropped();
  void resultsForLiveContextsArrive();
};

namespace {
bool openSample(TraceSession& s) {
  s.open(QStringLiteral(FATHOM_SHARED_DIR "/testdata/android_sched_binder_10s.perfetto-trace"));
  return QTest::qWaitFor([&] { return s.isLoaded() || !s.isLoading(); }, 60000) && s.isLoaded();
}
}  // namespace

void TraceSessionTest::resultsForDestroyedContextsAreDropped() {
  TraceSession session;
  QVERIFY(openSample(session));
  int delivered = 0;
  // Each round: the work finishes at the moment the GUI thread deletes the
  // context, so the worker's post and the delete overlap as tightly as possible.
  // The GUI thread's delete is staggered by a sweep of short spins so that it
  // lands at every point of the worker's hand-off in some round.
  for (int round = 0; round < 20000; ++round) {
    auto* context = new QObject;
    auto go = std::make_shared<std::atomic<bool>>(false);
    session.view<int>(
        [go](Core&) {
          while (!go->load()) std::this_thread::yield();
          return 1;
        },
        context, [&delivered](int) { ++delivered; });
    go->store(true);
    for (volatile int spin = 0; spin < round % 64; spin = spin + 1) {
    }
    delete context;
    if (round % 500 == 0) QCoreApplication::processEvents();
  }
  session.waitForIdle();
  QCoreApplication::processEvents();
  QCOMPARE(delivered, 0);
}

void TraceSessionTest::resultsForLiveContextsArrive() {
  TraceSession session;
  QVERIFY(openSample(session));
  QObject context;
  int sum = 0;
  for (int i = 1; i <= 10; ++i)
    session.query<int>([i](Core& c) { return c.storage().thread.row_count() > 0 ? i : 0; },
                       &context, [&sum](int v) { sum += v; });
  QVERIFY(QTest::qWaitFor([&] { return sum == 55; }, 30000));
}

QTEST_MAIN(TraceSessionTest)
#include "trace_session_test.moc"
