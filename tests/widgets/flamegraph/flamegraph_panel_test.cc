// The flamegraph panel on real traces: root totals against SQL sums for every
// native view, the Java heap graph and CPU samples; search share, zoom
// history, bottom-up, focus/hide, diff, exports; the callers/callees model
// under QAbstractItemModelTester; screenshots for a human to look at.
#include "widgets/flamegraph/flamegraph_panel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QSignalSpy>
#include <QtTest>
#include <set>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "widgets/flamegraph/caller_model.h"
#include "widgets/flamegraph/flame_view.h"

using namespace fathom;
using namespace fathom::gui;

namespace {

const QString kTestdata = QStringLiteral(FATHOM_SHARED_DIR "/testdata/");

// SQL on an independent TraceProcessor: the numbers the panel must match.
int64_t sqlInt(const QString& trace, const std::string& sql) {
  TraceProcessor tp;
  if (!tp.LoadFile((kTestdata + trace).toStdString()).ok()) return -1;
  auto it = tp.Query(sql);
  if (!it->NextResultSet() || !it->NextRow()) return -1;
  return it->Get(0).i;
}

struct Opened {
  std::unique_ptr<TraceSession> session;
  std::unique_ptr<FlamegraphPanel> panel;
};

void settle(FlamegraphPanel* p) {
  if (!QTest::qWaitFor([&] { return !p->isBusy() && p->tree(); }, 20000))
    qWarning("settle: the panel is still busy or has no tree after 20 s");
  QCoreApplication::processEvents();
}

// The panel exists before the load, as in the app: it opens a default
// profile by itself once the trace has loaded.
Opened openPath(const QString& path) {
  Opened o;
  o.session = std::make_unique<TraceSession>();
  o.panel = std::make_unique<FlamegraphPanel>(o.session.get());
  o.panel->resize(1400, 700);
  o.panel->show();
  o.session->open(path);
  if (!QTest::qWaitFor([&] { return o.session->isLoaded() || !o.session->isLoading(); }, 30000))
    qWarning("openPath: the trace is still loading after 30 s");
  settle(o.panel.get());
  return o;
}
Opened open(const QString& name) { return openPath(kTestdata + name); }

void screenshot(FlamegraphPanel* p, const char* name) {
  QDir().mkpath(QStringLiteral(FATHOM_SCREENSHOT_DIR));
  settle(p);
  p->grab().save(QStringLiteral(FATHOM_SCREENSHOT_DIR "/flamegraph_%1.png").arg(name));
}

// Total under frames named `name`, a frame under another one counted once:
// what search, focus and the callers table must all report.
double outermostTotal(const FlameTree* t, const QString& name) {
  double sum = 0;
  for (int i = 1; i < t->size(); ++i) {
    if (t->node(i).name != name) continue;
    bool nested = false;
    for (int a = t->node(i).parent; a > 0 && !nested; a = t->node(a).parent)
      nested = t->node(a).name == name;
    if (!nested) sum += t->node(i).total;
  }
  return sum;
}

QString exact(const QString& name) { return QStringLiteral("^") + escapeRegex(name) + "$"; }

QSet<QString> childNames(const FlameTree* t, int node) {
  QSet<QString> out;
  for (int c : t->node(node).children) out.insert(t->node(c).name);
  return out;
}

}  // namespace

class FlamegraphPanelTest : public QObject {
  Q_OBJECT
 private slots:
  void nativeViewsMatchSql();
  void searchZoomInvertFocusHide();
  void diffAgainstEarlierDump();
  void callerModelAndExports();
  void javaHeapGraph();
  void cpuSamples();
  void largeTreePaints();
  void pprofSampleTypes();
  void everythingFreedIsExplained();
};

void FlamegraphPanelTest::nativeViewsMatchSql() {
  const QString trace = QStringLiteral("heapprofd_continuous_legacy.pb");
  Opened o = open(trace);
  QVERIFY(o.panel->tree());
  const FlameSource src = o.panel->source();
  QCOMPARE(src.kind, ProfileKind::kNative);
  QVERIFY(src.upid.has_value());
  // heapprofd rows are deltas since the previous dump: a dump is the sum of
  // every row up to its ts (upstream's experimental_flamegraph semantics).
  const std::string where =
      "where upid = " + std::to_string(*src.upid) + " and ts <= " + std::to_string(src.ts);
  struct Case {
    FlamegraphView view;
    std::string expr;
  };
  const Case cases[] = {
      {FlamegraphView::kUnreleasedSize, "sum(size)"},
      {FlamegraphView::kTotalSize, "sum(case when size > 0 then size else 0 end)"},
      {FlamegraphView::kUnreleasedCount, "sum(count)"},
      {FlamegraphView::kTotalCount, "sum(case when count > 0 then count else 0 end)"},
  };
  for (const Case& c : cases) {
    o.panel->setView(c.view);
    settle(o.panel.get());
    const int64_t expected =
        sqlInt(trace, "select " + c.expr + " from heap_profile_allocation " + where);
    QVERIFY2(expected > 0, c.expr.c_str());
    QCOMPARE(o.panel->flamegraphView(), c.view);
    QCOMPARE(int64_t(o.panel->tree()->total()), expected);
  }
  // The largest dump opened by itself: the later one of the process.
  QCOMPARE(src.ts, sqlInt(trace, "select max(ts) from heap_profile_allocation"));
  o.panel->setView(FlamegraphView::kUnreleasedSize);
  settle(o.panel.get());
  // Tooltip: name, library, total and self with percent.
  const FlameTree* t = o.panel->tree();
  const int top = t->node(0).children.front();
  const QString tip = o.panel->view()->describe(top);
  QVERIFY2(tip.contains(t->node(top).name) && tip.contains(t->node(top).library) &&
               tip.contains("total: ") && tip.contains("self: ") && tip.contains(" %"),
           qPrintable(tip));
  // No CPU samples in this trace: a CPU-track selection keeps the dump.
  QVERIFY(!o.panel->hasCpuSamples());
  o.panel->showCpuSamples(0, 1000, {0});
  settle(o.panel.get());
  QCOMPARE(o.panel->source().kind, ProfileKind::kNative);
  screenshot(o.panel.get(), "heapprofd");
}

// On the CPU-sample trace: its stacks are deep (the heapprofd one has a
// single frame).
void FlamegraphPanelTest::searchZoomInvertFocusHide() {
  Opened o = open(QStringLiteral("linux_compact_sched_perf_samples.pftrace"));
  QVERIFY(o.panel->tree() && o.panel->tree()->size() > 2);
  const FlameTree topDown = *o.panel->tree();  // a copy: rebuilds replace the panel's
  const FlameTree* t = &topDown;
  const double total = t->total();
  // Pick the deepest frame whose function is not in every stack (this
  // tracer's own frame is): search for it, zoom to it, focus on it.
  int leaf = -1;
  for (int i = 1; i < t->size(); ++i) {
    const double v = outermostTotal(t, t->node(i).name);
    if (v > 0 && v < total && t->node(i).depth >= 2 &&
        (leaf < 0 || t->node(i).depth > t->node(leaf).depth))
      leaf = i;
  }
  QVERIFY(leaf > 0);
  const QString leafName = t->node(leaf).name;
  const double leafTotal = outermostTotal(t, leafName);

  o.panel->setSearch(exact(leafName));
  settle(o.panel.get());
  QCOMPARE(o.panel->matchedShare(), leafTotal / total);
  o.panel->setSearch(QStringLiteral("no-such-frame-xyz"));
  settle(o.panel.get());
  QCOMPARE(o.panel->matchedShare(), 0.0);
  o.panel->setSearch(QString());
  settle(o.panel.get());

  // Zoom and history.
  QCOMPARE(o.panel->zoomNode(), 0);
  const int parent = t->node(leaf).parent;
  o.panel->zoomToNode(parent);
  o.panel->zoomToNode(leaf);
  QCOMPARE(o.panel->zoomNode(), leaf);
  QVERIFY(o.panel->back());
  QCOMPARE(o.panel->zoomNode(), parent);
  QVERIFY(o.panel->back());
  QCOMPARE(o.panel->zoomNode(), 0);
  QVERIFY(!o.panel->back());
  QVERIFY(o.panel->forward());
  QCOMPARE(o.panel->zoomNode(), parent);
  // The zoomed frame fills the canvas width.
  const QRect r = o.panel->view()->nodeRect(parent);
  QCOMPARE(r.width(), o.panel->view()->width());
  // A click on a frame zooms to it.
  o.panel->resetZoom();
  QCoreApplication::processEvents();
  o.panel->view()->repaint();
  const QRect leafRect = o.panel->view()->nodeRect(leaf);
  QVERIFY(!leafRect.isEmpty());
  QTest::mouseClick(o.panel->view(), Qt::LeftButton, {}, leafRect.center());
  settle(o.panel.get());
  QCOMPARE(o.panel->zoomNode(), leaf);
  QCOMPARE(o.panel->view()->selectedNode(), leaf);

  // Bottom-up: same total, the roots are the frames with self value.
  QSet<QString> selfFrames;
  for (int i = 1; i < t->size(); ++i)
    if (t->node(i).self != 0) selfFrames.insert(t->node(i).name);
  o.panel->setBottomUp(true);
  settle(o.panel.get());
  QCOMPARE(o.panel->tree()->total(), total);
  QCOMPARE(childNames(o.panel->tree(), 0), selfFrames);
  // Bottom-up, a frame's callers are still its real callers (the frames that
  // call it in the top-down tree, recursion counted once), and its callers
  // add up to its total, not its self value.
  const FlameTree* up = o.panel->tree();
  int busy = -1;  // a root of the inverted tree that has callers
  for (int c : up->node(0).children)
    if (!up->node(c).children.empty() && (busy < 0 || up->node(c).total > up->node(busy).total))
      busy = c;
  QVERIFY(busy > 0);
  const QString busyName = up->node(busy).name;
  QSet<QString> realCallers;
  for (int i = 1; i < t->size(); ++i) {
    if (t->node(i).name != busyName) continue;
    bool nested = false;
    for (int a = t->node(i).parent; a > 0 && !nested; a = t->node(a).parent)
      nested = t->node(a).name == busyName;
    if (!nested)
      realCallers.insert(t->node(i).parent > 0 ? t->node(t->node(i).parent).name
                                               : QStringLiteral("<root>"));
  }
  o.panel->selectNode(busy);
  settle(o.panel.get());
  QSet<QString> shownCallers;
  double callersSum = 0;
  for (int r = 0; r < o.panel->callersModel()->rowCount(); ++r) {
    shownCallers.insert(o.panel->callersModel()->row(r).name);
    callersSum += o.panel->callersModel()->row(r).value;
  }
  QCOMPARE(shownCallers, realCallers);
  QCOMPARE(callersSum, outermostTotal(t, busyName));
  QVERIFY(childNames(up, busy).subtract(shownCallers).isEmpty());
  o.panel->setBottomUp(false);
  settle(o.panel.get());

  // Focus on the leaf: only its stacks remain, re-rooted at it.
  o.panel->setFocusRegex(exact(leafName));
  settle(o.panel.get());
  QCOMPARE(o.panel->tree()->total(), leafTotal);
  QVERIFY(o.panel->lastError().isEmpty());
  o.panel->setFocusRegex(QString());
  // Hide the outermost frame: it disappears, the total stays.
  const QString top = t->node(t->node(0).children.front()).name;
  o.panel->setHideRegex(exact(top));
  settle(o.panel.get());
  QCOMPARE(o.panel->tree()->total(), total);
  for (int i = 1; i < o.panel->tree()->size(); ++i) QVERIFY(o.panel->tree()->node(i).name != top);
  // A broken regex is reported, not fatal.
  o.panel->setHideRegex(QStringLiteral("(("));
  settle(o.panel.get());
  QVERIFY(!o.panel->lastError().isEmpty());
  QCOMPARE(o.panel->tree()->total(), total);
  o.panel->setHideRegex(QString());
  settle(o.panel.get());
  // Collapse recursion: same total, no frame directly under its namesake.
  o.panel->setCollapseRecursion(true);
  settle(o.panel.get());
  const FlameTree* c = o.panel->tree();
  QCOMPARE(c->total(), total);
  for (int i = 1; i < c->size(); ++i)
    QVERIFY(c->node(i).parent == 0 || c->node(c->node(i).parent).name != c->node(i).name);
  o.panel->setCollapseRecursion(false);
  settle(o.panel.get());
  o.panel->setIcicle(false);
  o.panel->setSearch(QStringLiteral("sched|irq"));
  screenshot(o.panel.get(), "cpu_flame_search");
}

void FlamegraphPanelTest::diffAgainstEarlierDump() {
  const QString trace = QStringLiteral("heapprofd_continuous_legacy.pb");
  Opened o = open(trace);
  const FlameSource later = o.panel->source();
  std::optional<FlameSource> earlier;
  for (const DumpInfo& d : o.panel->dumps())
    if (d.source.kind == later.kind && d.source.upid == later.upid && d.source.ts < later.ts)
      earlier = d.source;
  QVERIFY(earlier);
  o.panel->compareWith(earlier);
  settle(o.panel.get());
  const FlameTree* t = o.panel->tree();
  QVERIFY(t->isDiff);
  const std::string upid = std::to_string(*later.upid);
  QCOMPARE(int64_t(t->total()),
           sqlInt(trace, "select sum(size) from heap_profile_allocation where upid = " + upid +
                             " and ts <= " + std::to_string(later.ts)));
  QCOMPARE(int64_t(t->node(0).baseTotal),
           sqlInt(trace, "select sum(size) from heap_profile_allocation where upid = " + upid +
                             " and ts <= " + std::to_string(earlier->ts)));
  screenshot(o.panel.get(), "heapprofd_diff");
  o.panel->compareWith(std::nullopt);
  settle(o.panel.get());
  QVERIFY(!o.panel->tree()->isDiff);
}

void FlamegraphPanelTest::callerModelAndExports() {
  Opened o = open(QStringLiteral("linux_compact_sched_perf_samples.pftrace"));
  const FlameTree* t = o.panel->tree();
  // A frame with a parent and a child: both tables have rows.
  int mid = -1;
  for (int i = 1; i < t->size() && mid < 0; ++i)
    if (t->node(i).parent > 0 && !t->node(i).children.empty()) mid = i;
  QVERIFY(mid > 0);
  QAbstractItemModelTester callersTester(o.panel->callersModel(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
  QAbstractItemModelTester calleesTester(o.panel->calleesModel(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
  o.panel->selectNode(mid);
  settle(o.panel.get());
  // Every call of the function once: the callers' values add up to its total,
  // and its parent here is one of them (likewise a child among the callees).
  CallerModel* callers = o.panel->callersModel();
  CallerModel* callees = o.panel->calleesModel();
  const QString name = t->node(mid).name;
  QVERIFY(callers->rowCount() >= 1 && callees->rowCount() >= 1);
  double sum = 0;
  QSet<QString> callerNames, calleeNames;
  for (int r = 0; r < callers->rowCount(); ++r) {
    sum += callers->row(r).value;
    callerNames.insert(callers->row(r).name);
  }
  for (int r = 0; r < callees->rowCount(); ++r)
    calleeNames.insert(
        callees->data(callees->index(r, CallerModel::kFunction), Qt::DisplayRole).toString());
  QCOMPARE(sum, outermostTotal(t, name));
  QVERIFY(callerNames.contains(t->node(t->node(mid).parent).name));
  QVERIFY(calleeNames.contains(t->node(t->node(mid).children.front()).name));
  // Copy stack: leaf first, one frame per line.
  const QStringList stack = o.panel->stackText(mid).split('\n');
  QCOMPARE(int(stack.size()), t->node(mid).depth);
  QVERIFY(stack.front().startsWith(t->node(mid).name));

  // Exports through the core exporters (and PNG from the canvas).
  const QString dir = QStringLiteral(FATHOM_SCREENSHOT_DIR "/flamegraph_export");
  QDir().mkpath(dir);
  QSignalSpy spy(o.panel.get(), &FlamegraphPanel::exportFinished);
  for (const char* f : {"folded", "svg", "pprof", "speedscope", "png"}) {
    const QString path = dir + "/out." + f;
    QFile::remove(path);
    spy.clear();
    o.panel->exportTo(path, QLatin1String(f));
    QVERIFY(spy.count() == 1 || spy.wait(10000));
    QVERIFY2(spy.at(0).at(1).toBool(), qPrintable(spy.at(0).at(2).toString()));
    QVERIFY2(QFileInfo(path).size() > 0, f);
  }
  // Folded totals equal the tree's total.
  QFile folded(dir + "/out.folded");
  QVERIFY(folded.open(QIODevice::ReadOnly));
  qint64 foldedSum = 0;
  for (const QByteArray& line : folded.readAll().split('\n'))
    if (!line.isEmpty()) foldedSum += line.mid(line.lastIndexOf(' ') + 1).toLongLong();
  QCOMPARE(double(foldedSum), t->total());
}

void FlamegraphPanelTest::javaHeapGraph() {
  const QString trace = QStringLiteral("java_heap_graph_legacy.pb");
  Opened o = open(trace);
  QVERIFY(o.panel->tree());
  const FlameSource src = o.panel->source();
  QCOMPARE(src.kind, ProfileKind::kJavaGraph);
  // The shortest-path tree holds every object reachable from a GC root.
  const std::string where =
      " from heap_graph_object where reachable and upid = " + std::to_string(*src.upid) +
      " and graph_sample_ts = " + std::to_string(src.ts);
  QCOMPARE(int64_t(o.panel->tree()->total()), sqlInt(trace, "select sum(self_size)" + where));
  o.panel->setView(FlamegraphView::kObjectCount);
  settle(o.panel.get());
  QCOMPARE(int64_t(o.panel->tree()->total()), sqlInt(trace, "select count(*)" + where));
  o.panel->setView(FlamegraphView::kRetainedSize);
  settle(o.panel.get());
  QCOMPARE(o.panel->flamegraphView(), FlamegraphView::kRetainedSize);
  QCOMPARE(int64_t(o.panel->tree()->total()), sqlInt(trace, "select sum(self_size)" + where));
  o.panel->setView(FlamegraphView::kObjectSize);
  screenshot(o.panel.get(), "java_heap_graph");
}

void FlamegraphPanelTest::cpuSamples() {
  const QString trace = QStringLiteral("linux_compact_sched_perf_samples.pftrace");
  Opened o = open(trace);
  QVERIFY(o.panel->tree());
  QCOMPARE(o.panel->source().kind, ProfileKind::kCpu);
  QCOMPARE(int64_t(o.panel->tree()->total()), sqlInt(trace, "select count(*) from perf_sample"));
  // A time selection over two CPUs (this tracer records no CPU per sample, so
  // the range alone filters).
  const int64_t t0 = sqlInt(trace, "select min(ts) from perf_sample");
  const int64_t t1 = sqlInt(trace, "select (min(ts) + max(ts)) / 2 from perf_sample");
  o.panel->showCpuSamples(t0, t1, {0, 1});
  settle(o.panel.get());
  const int64_t expected =
      sqlInt(trace, "select count(*) from perf_sample where ts >= " + std::to_string(t0) +
                        " and ts < " + std::to_string(t1));
  QVERIFY(expected > 0);
  QCOMPARE(int64_t(o.panel->tree()->total()), expected);
  o.panel->openDefault();
  screenshot(o.panel.get(), "cpu_samples");
  // Minimum share: small frames fold into their callers; the total stays, and every frame
  // left (but the root) is at least that share of it.
  const int frames_all = o.panel->tree()->size();
  const int64_t total_all = int64_t(o.panel->tree()->total());
  o.panel->setMinShare(1.0);
  settle(o.panel.get());
  QCOMPARE(o.panel->minShare(), 1.0);
  QVERIFY(o.panel->tree()->size() < frames_all);
  QCOMPARE(int64_t(o.panel->tree()->total()), total_all);
  const Flamegraph* core = o.panel->coreTree();
  for (uint32_t i = 0; i < core->size(); ++i)
    QVERIFY(core->node(i).cumulative_count * 100 >= total_all);
  screenshot(o.panel.get(), "cpu_samples_min_1pct");
  o.panel->setMinShare(0);
  settle(o.panel.get());
  QCOMPARE(o.panel->tree()->size(), frames_all);
  o.panel->setBottomUp(true);
  screenshot(o.panel.get(), "cpu_samples_bottom_up");
  // Hovering a kernel frame shows its name as the trace writes it, "<0x…>"
  // included (the status line once showed the tooltip's "&lt;0x…&gt;").
  auto* view = o.panel->findChild<FlameView*>();
  QVERIFY(view);
  int kernel = -1;
  for (int i = 1; i < o.panel->tree()->size() && kernel < 0; ++i)
    if (o.panel->tree()->node(i).name.contains(QStringLiteral(" <0x"))) kernel = i;
  QVERIFY(kernel > 0);
  emit view->nodeHovered(kernel);
  auto* status = o.panel->findChild<QLabel*>(QStringLiteral("flamegraphStatus"));
  QVERIFY(status);
  QVERIFY2(status->text().startsWith(o.panel->tree()->node(kernel).name + QStringLiteral(" · ")),
           qPrintable(status->text()));
}

// A synthetic 200 k-frame tree: the canvas merges what is narrower than two
// pixels, so a paint touches only what can be seen. Prints the paint time
// (not asserted: timing is not a pass/fail criterion) and checks the merge.
void FlamegraphPanelTest::largeTreePaints() {
  Flamegraph fg;
  const FgStringId lib = fg.Intern("libbig.so");
  uint64_t seed = 42;
  auto next = [&seed] {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return uint32_t(seed >> 33);
  };
  std::vector<FgStringId> names;
  for (int i = 0; i < 5000; ++i) names.push_back(fg.Intern("function_" + std::to_string(i)));
  for (int stack = 0; stack < 40000; ++stack) {
    std::optional<uint32_t> at;
    const int depth = 3 + int(next() % 30);
    for (int d = 0; d < depth; ++d)
      at = fg.Child(at, names[next() % (d < 3 ? 4 : names.size())], lib);
    fg.mutable_node(*at).count += 1 + next() % 100;
  }
  fg.Finalize(Metric::kCount);
  QVERIFY(fg.size() > 100000);
  auto tree = std::make_shared<const FlameTree>(
      FlameTree::fromCore(fg, Metric::kCount, FlameTree::Unit::kSamples));
  FlameView view;
  view.resize(1600, 900);
  view.setTree(tree);
  QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
  QElapsedTimer timer;
  timer.start();
  const int kFrames = 10;
  for (int i = 0; i < kFrames; ++i) {
    view.setZoomNode(i % 2 ? tree->node(0).children.front() : 0);
    view.render(&image);
  }
  qInfo("large tree: %d frames, average paint %.1f ms", tree->size() - 1,
        double(timer.elapsed()) / kFrames);
  // No box narrower than a pixel was drawn for a frame of its own.
  view.setZoomNode(0);
  int visible = 0;
  for (int i = 1; i < tree->size(); ++i) {
    const QRect r = view.nodeRect(i);
    if (r.isEmpty()) continue;
    ++visible;
    QVERIFY(r.width() >= 1);
  }
  QVERIFY(visible > 10 && visible < tree->size() / 10);
}

// A hand-written pprof heap profile (tests/core/pprof/heap.textproto, encoded
// and gzipped at build time): the panel opens its default sample type
// (inuse_space, 4382 bytes) and the profile combo lists every sample type.
void FlamegraphPanelTest::pprofSampleTypes() {
  Opened o;
  o.session = std::make_unique<TraceSession>();
  o.panel = std::make_unique<FlamegraphPanel>(o.session.get());
  o.panel->resize(1400, 700);
  o.panel->show();
  o.session->open(QStringLiteral(FATHOM_PPROF_DATA_DIR "/heap.pb.gz"));
  QVERIFY(QTest::qWaitFor([&] { return o.session->isLoaded() || !o.session->isLoading(); }, 30000));
  settle(o.panel.get());
  QVERIFY(o.panel->tree());
  QCOMPARE(o.panel->source().kind, ProfileKind::kAggregate);
  QCOMPARE(o.panel->tree()->unit, FlameTree::Unit::kBytes);
  QCOMPARE(int64_t(o.panel->tree()->total()), int64_t(4382));
  QCOMPARE(o.panel->dumps().size(), size_t(4));
  const DumpInfo* objects = nullptr;
  for (const DumpInfo& d : o.panel->dumps())
    if (d.sample_type == "alloc_objects") objects = &d;
  QVERIFY(objects);
  o.panel->showSource(objects->source);
  settle(o.panel.get());
  QCOMPARE(o.panel->tree()->unit, FlameTree::Unit::kCount);
  QCOMPARE(int64_t(o.panel->tree()->total()), int64_t(19));
  QVERIFY(childNames(o.panel->tree(), 0).contains(QStringLiteral("main")));
  screenshot(o.panel.get(), "pprof");
}

QTEST_MAIN(FlamegraphPanelTest)
// A native heap dump whose one allocation was freed, as a program that frees everything
// before it exits leaves (sort, most tools): the default view (unreleased) is empty and
// says to look at the total instead; the total shows the frame.
void FlamegraphPanelTest::everythingFreedIsExplained() {
  perfetto::protos::Trace trace;
  // A dump's own timestamp is MONOTONIC_COARSE: without a clock snapshot readers
  // drop the dump.
  auto* snapshot = trace.add_packet();
  snapshot->set_trusted_packet_sequence_id(2);
  for (uint32_t clock : {6u /* BOOTTIME */, 4u /* MONOTONIC_COARSE */}) {
    auto* c = snapshot->mutable_clock_snapshot()->add_clocks();
    c->set_clock_id(clock);
    c->set_timestamp(500);
  }
  auto* pkt = trace.add_packet();
  pkt->set_timestamp(1000);
  pkt->set_trusted_packet_sequence_id(1);
  auto* pp = pkt->mutable_profile_packet();
  auto* name = pp->add_strings();
  name->set_iid(1);
  name->set_str("AllocateAndFree");
  auto* path = pp->add_strings();
  path->set_iid(2);
  path->set_str("/usr/bin/prog");
  auto* m = pp->add_mappings();
  m->set_iid(1);
  m->add_path_string_ids(2);
  m->set_start(0x1000);
  m->set_end(0x2000);
  auto* f = pp->add_frames();
  f->set_iid(1);
  f->set_function_name_id(1);
  f->set_mapping_id(1);
  f->set_rel_pc(0x10);
  auto* cs = pp->add_callstacks();
  cs->set_iid(1);
  cs->add_frame_ids(1);
  auto* dump = pp->add_process_dumps();
  dump->set_pid(42);
  dump->set_timestamp(1000);
  auto* sample = dump->add_samples();
  sample->set_callstack_id(1);
  sample->set_self_allocated(4096);
  sample->set_self_freed(4096);
  sample->set_alloc_count(1);
  sample->set_free_count(1);
  const QString file = QDir::temp().filePath(
      QStringLiteral("fathom_all_freed_%1.pftrace").arg(QCoreApplication::applicationPid()));
  {
    QFile out(file);
    QVERIFY(out.open(QIODevice::WriteOnly));
    const std::string bytes = trace.SerializeAsString();
    out.write(bytes.data(), qint64(bytes.size()));
  }
  Opened o = openPath(file);
  QVERIFY(o.panel->tree());
  QCOMPARE(o.panel->source().kind, ProfileKind::kNative);
  QCOMPARE(o.panel->tree()->total(), 0.0);
  QVERIFY2(o.panel->view()->emptyText().contains(QStringLiteral("Total size")),
           qPrintable(o.panel->view()->emptyText()));
  o.panel->setView(FlamegraphView::kTotalSize);
  settle(o.panel.get());
  QCOMPARE(o.panel->tree()->total(), 4096.0);
  QVERIFY(o.panel->view()->emptyText().isEmpty());
  QFile::remove(file);
}

#include "flamegraph_panel_test.moc"
