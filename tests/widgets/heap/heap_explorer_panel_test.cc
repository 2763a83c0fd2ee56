// The heap explorer panel on a real JDK 17 heap dump (ExplorerFixture, dumped
// with `jcmd GC.heap_dump` here): the histogram, a class's instances, an
// instance's fields and path from a GC root, the dominator tree, duplicates
// (with the strings' text), bitmaps drawn from their mBuffer, leaks, Cancel
// and a new analysis after it, all after the work ran on the session's
// worker; then an ART-style dump made here (a PNG in Bitmap$DumpData, a
// bitmap whose pixels are not in the dump) and the same dump moved away.
// Screenshots at 1024x700 to build/screenshots/heapx/ for a human to look
// at. Skips the JDK parts without a JDK.
#include "widgets/heap/heap_explorer_panel.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QDirIterator>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include "core/storage/trace_storage.h"
#include "tests/core/art_bitmap_dump.h"
#include "widgets/heap/bitmap_view.h"
#include "widgets/heap/delta_model.h"
#include "widgets/heap/dominator_model.h"

using namespace fathom;
using namespace fathom::gui;

namespace {

bool haveJdk() {
  for (const char* tool : {"javac", "java", "jcmd"})
    if (QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty()) return false;
  return true;
}

// Compiles and runs ExplorerFixture, dumps its heap; the path, or empty.
QString dumpFixture(const QTemporaryDir& dir) {
  QStringList sources;
  QDirIterator it(QStringLiteral(FATHOM_EXPLORER_FIXTURE_DIR), {QStringLiteral("*.java")},
                  QDir::Files, QDirIterator::Subdirectories);
  while (it.hasNext()) sources << it.next();
  if (QProcess::execute(QStringLiteral("javac"), QStringList{"-d", dir.path()} + sources) != 0)
    return {};
  QProcess jvm;
  jvm.start(QStringLiteral("java"), {"-Xmx64m", "-cp", dir.path(), "ExplorerFixture"});
  if (!jvm.waitForReadyRead(30000) || !jvm.readAll().contains("READY")) return {};
  const QString dump = dir.filePath(QStringLiteral("explorer.hprof"));
  QProcess::execute(QStringLiteral("jcmd"),
                    {QString::number(jvm.processId()), "GC.heap_dump", dump});
  jvm.kill();
  jvm.waitForFinished();
  return QFile::exists(dump) ? dump : QString();
}

void settle(HeapExplorerPanel* p) {
  QVERIFY(QTest::qWaitFor([&] { return !p->isBusy(); }, 60000));
  QCoreApplication::processEvents();
}

void shot(QWidget* w, const QString& name) {
  QDir().mkpath(QStringLiteral(FATHOM_SCREENSHOT_DIR));
  w->grab().save(QStringLiteral(FATHOM_SCREENSHOT_DIR "/") + name + QStringLiteral(".png"));
}

int rowNamed(QAbstractItemModel* m, const QString& name, int column = 0) {
  for (int r = 0; r < m->rowCount(); ++r)
    if (m->index(r, column).data().toString() == name) return r;
  return -1;
}

// A panel of its own on `path`, shown at 1024x700, once its contents are read.
struct OwnPanel {
  std::unique_ptr<TraceSession> session = std::make_unique<TraceSession>();
  std::unique_ptr<HeapExplorerPanel> panel;
  explicit OwnPanel(const QString& path) {
    panel = std::make_unique<HeapExplorerPanel>(session.get());
    panel->resize(1024, 700);
    panel->show();
    QSignalSpy done(panel.get(), &HeapExplorerPanel::contentsShown);
    session->open(path);
    if (!done.wait(60000) && done.count() == 0) qWarning("no contents shown");
    settle(panel.get());
  }
};

}  // namespace

class HeapExplorerPanelTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (!haveJdk()) QSKIP("no JDK (javac, java, jcmd) on PATH");
    QVERIFY(dir_.isValid());
    path_ = dumpFixture(dir_);
    QVERIFY(!path_.isEmpty());
    session_ = std::make_unique<TraceSession>();
    panel_ = std::make_unique<HeapExplorerPanel>(session_.get());
    panel_->resize(1024, 700);
    panel_->show();
    QSignalSpy shown(panel_.get(), &HeapExplorerPanel::dumpShown);
    session_->open(path_);
    QVERIFY(shown.wait(60000) || shown.count() > 0);
    settle(panel_.get());
  }

  void histogramInstancesAndPathToRoot() {
    HeapExplorerPanel* p = panel_.get();
    if (!panel_ || !panel_->dumpView()) QFAIL("no dump from initTestCase");
    HistogramModel* h = p->histogramModel();
    QAbstractItemModelTester tester(h, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const int row = rowNamed(h, QStringLiteral("ExplorerFixture$MainActivity"));
    QVERIFY(row >= 0);
    QCOMPARE(h->index(row, HistogramModel::kCount).data(kSortRole).toLongLong(), 3);
    // Through the view, as a click would: the proxy row of that class.
    QAbstractItemModel* shown = p->histogramView()->model();
    const int view_row = rowNamed(shown, QStringLiteral("ExplorerFixture$MainActivity"));
    p->histogramView()->setCurrentIndex(shown->index(view_row, 0));
    settle(p);
    QCOMPARE(p->instancesModel()->rowCount(), 3);
    shot(p, QStringLiteral("histogram_instances"));

    // An instance that is not itself a GC root (main's locals are), so its
    // path has steps.
    const auto& a = *p->dumpView()->analysis;
    int pick = -1;
    for (int r = 0; r < p->instancesModel()->rowCount() && pick < 0; ++r)
      if (!a.is_root[p->instancesModel()->objectAt(r)]) pick = r;
    QVERIFY(pick >= 0);
    QSignalSpy inspected(p, &HeapExplorerPanel::objectInspected);
    p->instancesView()->setCurrentIndex(p->instancesModel()->index(pick, 1));
    settle(p);
    QCOMPARE(inspected.count(), 1);
    const uint32_t obj = p->inspected();
    QCOMPARE(obj, p->instancesModel()->objectAt(pick));
    bool has_cache = false;
    for (int r = 0; r < p->fieldsModel()->rowCount(); ++r)
      has_cache |= p->fieldsModel()->index(r, 0).data().toString() ==
                   QStringLiteral("ExplorerFixture$MainActivity.cache");
    QVERIFY(has_cache);
    ObjectListModel* path = p->pathModel();
    QVERIFY(path->rowCount() >= 2);
    QCOMPARE(path->objectAt(path->rowCount() - 1), obj);
    QVERIFY(p->dumpView()->analysis->is_root[path->objectAt(0)]);
    QVERIFY(p->referrersModel()->rowCount() >= 1);
    p->inspectorTabs()->setCurrentIndex(2);
    shot(p, QStringLiteral("path_to_root"));
  }

  void packagesDominatorsDuplicatesLeaks() {
    HeapExplorerPanel* p = panel_.get();
    if (!panel_ || !panel_->dumpView()) QFAIL("no dump from initTestCase");
    p->setGrouping(heap::Grouping::kPackage);
    settle(p);
    QVERIFY(rowNamed(p->histogramModel(), QStringLiteral("java.lang")) >= 0);
    QVERIFY(rowNamed(p->histogramModel(), QStringLiteral("android.app")) >= 0);
    shot(p, QStringLiteral("packages"));
    p->setGrouping(heap::Grouping::kClass);
    settle(p);

    DominatorModel* d = p->dominatorModel();
    QVERIFY(d->rowCount() > 0);
    // Largest retained first, children of the first node lazily available.
    const QModelIndex top = d->index(0, 0);
    QVERIFY(d->index(1, 0).isValid());
    QVERIFY(p->dumpView()->analysis->retained_size[d->objectAt(top)] >=
            p->dumpView()->analysis->retained_size[d->objectAt(d->index(1, 0))]);
    if (d->hasChildren(top)) {
      const QModelIndex child = d->index(0, 0, top);
      QCOMPARE(d->parent(child), top);
    }
    p->views()->setCurrentIndex(1);
    p->dominatorView()->expand(p->dominatorView()->model()->index(0, 0));
    QCoreApplication::processEvents();
    shot(p, QStringLiteral("dominator_tree"));

    // Contents read back from the file: equal strings, int[9] and bitmaps.
    QVERIFY2(p->contentsNote().isEmpty(), qPrintable(p->contentsNote()));
    QVERIFY(p->duplicatesModel()->rowCount() >= 3);
    p->views()->setCurrentIndex(2);
    // The strings show their text; the 5 made copies and the literal.
    QAbstractItemModel* dups = p->duplicatesView()->model();
    const int text_row =
        rowNamed(dups, QStringLiteral("\u201Cduplicate me, please\u201D"), DuplicatesModel::kText);
    QVERIFY(text_row >= 0);
    QCOMPARE(dups->index(text_row, DuplicatesModel::kCopies).data(kSortRole).toLongLong(), 6);
    QVERIFY(rowNamed(dups, QStringLiteral("\u201C\u017C\u00F3\u0142w \u2713 \u65E5\u672C\u201D"),
                     DuplicatesModel::kText) >= 0);
    p->duplicatesView()->setCurrentIndex(dups->index(text_row, 0));
    settle(p);
    shot(p, QStringLiteral("duplicates"));

    // Bitmaps: all five have their pixels in mBuffer; the picture is drawn.
    p->views()->setCurrentIndex(3);
    QCOMPARE(p->bitmapsModel()->rowCount(), 5);
    QAbstractItemModel* bms = p->bitmapsView()->model();
    const int picture = rowNamed(bms, QStringLiteral("96 \u00D7 64"), BitmapsModel::kSize);
    QVERIFY(picture >= 0);
    QSignalSpy drawn(p, &HeapExplorerPanel::bitmapShown);
    p->bitmapsView()->setCurrentIndex(bms->index(picture, 0));
    QVERIFY(drawn.wait(10000) || drawn.count() > 0);
    settle(p);
    const QImage img = p->bitmapPreview()->image();
    QCOMPARE(img.size(), QSize(96, 64));
    QCOMPARE(img.pixelColor(0, 0), QColor(0, 0, 160));          // x 0, y 0: R 0, G 0
    QCOMPARE(img.pixelColor(95, 63), QColor(255, 255, 160));    // far corner
    QCOMPARE(img.pixelColor(48, 32 + 21), QColor(20, 20, 20));  // the ring
    shot(p, QStringLiteral("bitmaps"));

    // Two finished Activities, one detached Fragment.
    QCOMPARE(p->leaksModel()->rowCount(), 3);
    p->views()->setCurrentIndex(4);
    p->leaksView()->setCurrentIndex(p->leaksModel()->index(0, 1));
    settle(p);
    shot(p, QStringLiteral("leaks"));
  }

  // Cancel while analysing: the views empty, the status says so, the
  // button offers a new analysis, which then completes.
  void cancelThenAnalyseAgain() {
    HeapExplorerPanel* p = panel_.get();
    if (!panel_ || !panel_->dumpView()) QFAIL("no dump from initTestCase");
    p->views()->setCurrentIndex(0);
    p->showDump(0);
    QCOMPARE(p->phase(), HeapExplorerPanel::Phase::kAnalysing);
    QVERIFY(p->cancelButton()->isVisible());
    QVERIFY(p->progressBar()->isVisible());
    QSignalSpy cancelled(p, &HeapExplorerPanel::analysisCancelled);
    QTest::mouseClick(p->cancelButton(), Qt::LeftButton);
    QCOMPARE(cancelled.count(), 1);
    QCOMPARE(p->phase(), HeapExplorerPanel::Phase::kCancelled);
    QCOMPARE(p->statusText(), QStringLiteral("Analysis cancelled."));
    QCOMPARE(p->cancelButton()->text(), QStringLiteral("Analyse again"));
    settle(p);  // the worker stops; its late answer is dropped
    QCOMPARE(p->histogramModel()->rowCount(), 0);
    QCOMPARE(p->phase(), HeapExplorerPanel::Phase::kCancelled);
    shot(p, QStringLiteral("cancelled"));

    QSignalSpy contents(p, &HeapExplorerPanel::contentsShown);
    QTest::mouseClick(p->cancelButton(), Qt::LeftButton);
    QVERIFY(p->phase() == HeapExplorerPanel::Phase::kAnalysing);
    QVERIFY(contents.wait(60000) || contents.count() > 0);
    settle(p);
    QCOMPARE(p->phase(), HeapExplorerPanel::Phase::kIdle);
    QVERIFY(!p->cancelButton()->isVisible());
    QVERIFY(rowNamed(p->histogramModel(), QStringLiteral("ExplorerFixture$MainActivity")) >= 0);
    QVERIFY(p->duplicatesModel()->rowCount() >= 3);
    QCOMPARE(p->leaksModel()->rowCount(), 3);
  }

  // An ART-style dump (tests/core/art_bitmap_dump.h): the PNG in
  // Bitmap$DumpData is drawn; the native-only bitmap says its pixels are
  // not in the dump; then the file moves away and a new analysis says so.
  void artBitmapsAndAMovedFile() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("art_bitmaps.hprof"));
    {
      QFile f(path);
      QVERIFY(f.open(QIODevice::WriteOnly));
      const std::string bytes = fathom::testing::ArtBitmapDump();
      f.write(bytes.data(), qint64(bytes.size()));
    }
    OwnPanel own(path);
    HeapExplorerPanel* p = own.panel.get();
    QVERIFY2(p->contentsNote().isEmpty(), qPrintable(p->contentsNote()));
    p->views()->setCurrentIndex(3);
    QCOMPARE(p->bitmapsModel()->rowCount(), 4);
    QAbstractItemModel* bms = p->bitmapsView()->model();
    const int png = rowNamed(bms, QStringLiteral("32 \u00D7 32"), BitmapsModel::kSize);
    QVERIFY(png >= 0);
    QCOMPARE(bms->index(png, BitmapsModel::kPixels).data().toString(),
             QStringLiteral("encoded (PNG)"));
    QSignalSpy drawn(p, &HeapExplorerPanel::bitmapShown);
    p->bitmapsView()->setCurrentIndex(bms->index(png, 0));
    QVERIFY(drawn.wait(10000) || drawn.count() > 0);
    settle(p);
    QCOMPARE(p->bitmapPreview()->image().size(), QSize(32, 32));
    QCOMPARE(p->bitmapPreview()->image().pixelColor(2, 2), QColor(220, 40, 40));
    shot(p, QStringLiteral("bitmaps_art_png"));

    const int native = rowNamed(bms, QStringLiteral("40 \u00D7 30"), BitmapsModel::kSize);
    QVERIFY(native >= 0);
    QCOMPARE(bms->index(native, BitmapsModel::kPixels).data().toString(),
             QStringLiteral("not in the dump"));
    p->bitmapsView()->setCurrentIndex(bms->index(native, 0));
    settle(p);
    QVERIFY(p->bitmapPreview()->image().isNull());
    QVERIFY2(p->bitmapPreview()->caption().contains(QStringLiteral("native memory")),
             qPrintable(p->bitmapPreview()->caption()));
    shot(p, QStringLiteral("bitmaps_art_native"));

    QVERIFY(QFile::rename(path, dir.filePath(QStringLiteral("moved.hprof"))));
    QSignalSpy again(p, &HeapExplorerPanel::contentsShown);
    p->showDump(0);
    QVERIFY(again.wait(20000) || again.count() > 0);
    settle(p);
    QVERIFY2(p->contentsNote().contains(QStringLiteral("moved or deleted")),
             qPrintable(p->contentsNote()));
    QVERIFY(p->statusText().contains(QStringLiteral("moved or deleted")));
    QCOMPARE(p->bitmapsModel()->rowCount(), 4);  // listed, without pixels
    p->views()->setCurrentIndex(3);
    p->bitmapsView()->setCurrentIndex(p->bitmapsView()->model()->index(0, 0));
    settle(p);
    shot(p, QStringLiteral("moved_file"));
  }

  // Two Perfetto heap graphs of one process (two_dumps.textproto): the
  // second compared with the first in the Changes tab; Perfetto heap
  // graphs hold no contents, and the other tabs say so.
  void changesTabOnTwoHeapGraphs() {
    OwnPanel own(QStringLiteral(FATHOM_TWO_DUMPS));
    HeapExplorerPanel* p = own.panel.get();
    QCOMPARE(p->dumps().size(), size_t(2));
    p->showDump(1);
    settle(p);
    p->compareWith(0);
    settle(p);
    DeltaModel* d = p->deltaModel();
    const int entry = rowNamed(d, QStringLiteral("com.example.Cache$Entry"));
    QVERIFY(entry >= 0);
    QCOMPARE(d->index(entry, DeltaModel::kCountDelta).data().toString(), QStringLiteral("+18"));
    const int listener = rowNamed(d, QStringLiteral("com.other.Listener"));
    QVERIFY(listener >= 0);
    QCOMPARE(d->index(listener, DeltaModel::kCountDelta).data().toString(), QStringLiteral("+7"));
    QVERIFY(p->contentsNote().contains(QStringLiteral("no object contents")));
    p->views()->setCurrentIndex(5);
    QVERIFY(p->views()->tabText(5).startsWith(QStringLiteral("Changes since")));
    shot(p, QStringLiteral("changes"));
  }

  // The Changes tab's model on two dumps made by hand (an HPROF file has
  // one): Foo grows by one instance, Bar appears; growth is red.
  void changesBetweenTwoDumps() {
    TraceStorage s;
    auto& classes = s.profile.heap_graph_class;
    auto& objects = s.profile.heap_graph_object;
    auto& refs = s.profile.heap_graph_reference;
    const StringId kind = s.Intern("KIND_NORMAL");
    const uint32_t holder = classes.Insert(s.Intern("com.a.Holder"), kNullStringId, kind);
    const uint32_t foo = classes.Insert(s.Intern("com.a.Foo"), kNullStringId, kind);
    const uint32_t bar = classes.Insert(s.Intern("com.b.Bar"), kNullStringId, kind);
    for (auto [ts, types] : {std::pair<int64_t, std::vector<uint32_t>>{1, {foo, foo}},
                             std::pair<int64_t, std::vector<uint32_t>>{2, {foo, foo, foo, bar}}}) {
      const uint32_t root = objects.Insert(1, ts);
      objects.type_id.Set(root, holder);
      objects.self_size.Set(root, 100);
      objects.reachable.Set(root, 1);
      objects.root_type.Set(root, s.Intern("ROOT_JAVA_FRAME"));
      const uint32_t set = refs.row_count();
      for (uint32_t t : types) {
        const uint32_t o = objects.Insert(1, ts);
        objects.type_id.Set(o, t);
        objects.self_size.Set(o, t == foo ? 10 : 7);
        objects.reachable.Set(o, 1);
        refs.Insert(set, root, o, s.Intern("x"), kNullStringId);
      }
      objects.reference_set_id.Set(root, set);
    }
    auto dumps = heap::ListHeapDumps(s);
    QCOMPARE(dumps.size(), size_t(2));
    auto a = heap::AnalyzeHeapDump(s, dumps[0], nullptr);
    auto b = heap::AnalyzeHeapDump(s, dumps[1], nullptr);
    QVERIFY(a.ok() && b.ok());
    DeltaModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows(heap::CompareHistograms(s, **a, **b, heap::Grouping::kClass), false);
    QCOMPARE(model.rowCount(), 3);
    const int row = rowNamed(&model, QStringLiteral("com.a.Foo"));
    QVERIFY(row >= 0);
    QCOMPARE(model.index(row, DeltaModel::kCountDelta).data().toString(), QStringLiteral("+1"));
    QCOMPARE(model.index(row, DeltaModel::kRetainedDelta).data(kSortRole).toLongLong(), 10);
    QCOMPARE(model.index(row, DeltaModel::kCount).data().toString(), QStringLiteral("3"));
    QCOMPARE(model.index(row, DeltaModel::kCountDelta).data(Qt::ForegroundRole).value<QColor>(),
             QColor(0xc6, 0x28, 0x28));
    QCOMPARE(model.headerData(0, Qt::Horizontal, Qt::DisplayRole).toString(),
             QStringLiteral("Class"));
  }

 private:
  QTemporaryDir dir_;
  QString path_;
  std::unique_ptr<TraceSession> session_;
  std::unique_ptr<HeapExplorerPanel> panel_;
};

QTEST_MAIN(HeapExplorerPanelTest)
#include "heap_explorer_panel_test.moc"
