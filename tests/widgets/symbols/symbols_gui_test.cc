// Symbolize… from the flamegraph panel on a real unsymbolized heap profile:
// frames of the -g test program (addresses from `nm`) and one frame in a
// library nobody has. After the run the panel's own tree names the
// functions, and the report lists the missing library with its build id.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "core/symbols/elf_build_id.h"
#include "perfetto/trace/trace.pb.h"
#include "widgets/common/trace_session.h"
#include "widgets/flamegraph/flame_tree.h"
#include "widgets/flamegraph/flamegraph_panel.h"
#include "widgets/symbols/symbols_controller.h"
#include "widgets/symbols/symbols_report_dialog.h"

using namespace fathom;
using namespace fathom::gui;

namespace {

const QString kProg = QStringLiteral(SYMBOLS_TESTPROG);
const char* const kMangled[] = {"main", "_Z11MiddleFramei", "_Z14AllocateInLeafi"};

quint64 nmAddress(const QString& symbol) {
  QProcess nm;
  nm.start(QStringLiteral("nm"), {kProg});
  nm.waitForFinished();
  const QString out = QString::fromUtf8(nm.readAllStandardOutput());
  QRegularExpression re(QStringLiteral("([0-9a-f]+) [Tt] %1\n").arg(symbol));
  auto m = re.match(out);
  return m.hasMatch() ? m.captured(1).toULongLong(nullptr, 16) : 0;
}

// A heapprofd-style ProfilePacket: main -> MiddleFrame -> AllocateInLeaf in
// /data/app/libsymtest.so (the test program's build id), then a frame in
// /system/lib64/libmissing.so whose build id no file has.
std::string unsymbolizedTrace() {
  perfetto::protos::Trace trace;
  // A dump's own timestamp is MONOTONIC_COARSE: without a clock snapshot readers
  // drop the dump.
  auto* snapshot = trace.add_packet();
  snapshot->set_trusted_packet_sequence_id(2);
  for (uint32_t clock : {6u /* BOOTTIME */, 4u /* MONOTONIC_COARSE */}) {
    auto* c = snapshot->mutable_clock_snapshot()->add_clocks();
    c->set_clock_id(clock);
    c->set_timestamp(50);
  }
  auto* packet = trace.add_packet();
  packet->set_timestamp(100);
  packet->set_trusted_packet_sequence_id(1);
  auto* pp = packet->mutable_profile_packet();
  uint64_t next_string = 1;
  auto str = [&](const std::string& s) {
    auto* e = pp->add_strings();
    e->set_iid(next_string);
    e->set_str(s);
    return next_string++;
  };
  auto build_id = symbols::ReadElfBuildId(kProg.toStdString());
  auto mapping = [&](uint64_t iid, const std::string& build, std::vector<std::string> parts,
                     uint64_t start) {
    auto* m = pp->add_mappings();
    m->set_iid(iid);
    m->set_build_id(str(build));
    m->set_start(start);
    m->set_end(start + 0x100000);
    for (const std::string& p : parts) m->add_path_string_ids(str(p));
  };
  mapping(1, build_id.ok() ? *build_id : "", {"data", "app", "libsymtest.so"}, 0x7000000000);
  mapping(2, "nobody-has-this-id", {"system", "lib64", "libmissing.so"}, 0x7100000000);
  auto* cs = pp->add_callstacks();
  cs->set_iid(1);
  uint64_t frame = 1;
  for (const char* fn : kMangled) {
    auto* f = pp->add_frames();
    f->set_iid(frame);
    f->set_mapping_id(1);
    f->set_rel_pc(nmAddress(QString::fromLatin1(fn)));
    cs->add_frame_ids(frame++);
  }
  auto* f = pp->add_frames();
  f->set_iid(frame);
  f->set_mapping_id(2);
  f->set_rel_pc(0x1234);
  cs->add_frame_ids(frame);
  auto* dump = pp->add_process_dumps();
  dump->set_pid(42);
  dump->set_timestamp(100);
  auto* sample = dump->add_samples();
  sample->set_callstack_id(1);
  sample->set_self_allocated(4096);
  sample->set_alloc_count(2);
  return trace.SerializeAsString();
}

QStringList names(const FlameTree* t) {
  QStringList out;
  for (int i = 0; t && i < t->size(); ++i) out << t->node(i).name;
  return out;
}

void settle(FlamegraphPanel* p) {
  QVERIFY(QTest::qWaitFor([&] { return !p->isBusy() && p->tree(); }, 20000));
}

}  // namespace

class SymbolsGuiTest : public QObject {
  Q_OBJECT
 private slots:
  void symbolizeFromThePanel();
  void deobfuscateFromThePanel();
};

void SymbolsGuiTest::symbolizeFromThePanel() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  for (const char* fn : kMangled) QVERIFY2(nmAddress(QString::fromLatin1(fn)) != 0, fn);
  const QString tracePath = dir.filePath(QStringLiteral("trace.pftrace"));
  {
    QFile f(tracePath);
    QVERIFY(f.open(QIODevice::WriteOnly));
    const std::string bytes = unsymbolizedTrace();
    f.write(bytes.data(), qint64(bytes.size()));
  }
  QDir(dir.path()).mkpath(QStringLiteral("bin"));
  QVERIFY(QFile::copy(kProg, dir.filePath(QStringLiteral("bin/libsymtest.so"))));

  TraceSession session;
  FlamegraphPanel panel(&session);
  panel.resize(1000, 500);
  panel.show();
  session.open(tracePath);
  QVERIFY(QTest::qWaitFor([&] { return session.isLoaded(); }, 20000));
  settle(&panel);
  QVERIFY2(!names(panel.tree()).join(QLatin1Char(',')).contains(QStringLiteral("MiddleFrame")),
           qPrintable(names(panel.tree()).join(QLatin1Char(','))));

  SymbolsController* c = panel.symbolsController();
  QVERIFY(c);
  c->setOutputDir(dir.filePath(QStringLiteral("out")));
  QSignalSpy finished(c, &SymbolsController::finished);
  symbols::SymbolizeOptions options;
  options.binary_path = {dir.filePath(QStringLiteral("bin")).toStdString()};
  options.debug_dirs.clear();
  options.use_local_path = false;
  c->runSymbolize(options);
  QVERIFY(finished.wait(30000));
  QCOMPARE(finished.at(0).at(0).toBool(), true);
  settle(&panel);

  // The panel's tree, re-queried in place: the functions by name.
  const QString shown = names(panel.tree()).join(QLatin1Char(','));
  for (const char* fn : {"main", "MiddleFrame(int)", "AllocateInLeaf(int)"})
    QVERIFY2(names(panel.tree()).contains(QString::fromLatin1(fn)), qPrintable(shown));
  QCOMPARE(session.path(), c->lastOutcome().outputPath);

  // The report: one row, the library nobody has, with its build id and why.
  QTableWidget* table = c->reportDialog()->table();
  QCOMPARE(table->rowCount(), 1);
  QCOMPARE(table->item(0, 0)->text(), QStringLiteral("/system/lib64/libmissing.so"));
  QVERIFY(!table->item(0, 1)->text().isEmpty());
  QCOMPARE(table->item(0, 2)->text(), QStringLiteral("1"));
  QVERIFY(!table->item(0, 3)->text().isEmpty());
  QVERIFY2(c->reportDialog()->summary().contains(QStringLiteral("3 of 4")),
           qPrintable(c->reportDialog()->summary()));

  QDir().mkpath(QStringLiteral(FATHOM_SCREENSHOT_DIR "/symbols"));
  // The inputs too, to try the window by hand (Trace → Symbolize…).
  QFile::remove(QStringLiteral(FATHOM_SCREENSHOT_DIR "/symbols/unsymbolized.pftrace"));
  QFile::copy(tracePath, QStringLiteral(FATHOM_SCREENSHOT_DIR "/symbols/unsymbolized.pftrace"));
  panel.grab().save(QStringLiteral(FATHOM_SCREENSHOT_DIR "/symbols/panel_symbolized.png"));
  c->reportDialog()->grab().save(QStringLiteral(FATHOM_SCREENSHOT_DIR "/symbols/report.png"));
}

// Java frames of an allocation sample, `Foo.main` calling obfuscated `a.c`,
// and a ProGuard map that names `a` com.example.Widget and `c` draw. The
// process (pid 2) runs com.example.app: its uid is that package's in
// package_list, which is how a frame's mapping is chosen (as upstream).
void SymbolsGuiTest::deobfuscateFromThePanel() {
  QTemporaryDir dir;
  QVERIFY(dir.isValid());
  perfetto::protos::Trace trace;
  auto* proc = trace.add_packet()->mutable_process_tree()->add_processes();
  proc->set_pid(2);
  proc->set_ppid(1);
  proc->set_uid(10123);
  proc->add_cmdline("com.example.app");
  auto* package = trace.add_packet()->mutable_packages_list()->add_packages();
  package->set_name("com.example.app");
  package->set_uid(10123);
  // A dump's own timestamp is MONOTONIC_COARSE: without a clock snapshot readers
  // drop the dump.
  auto* snapshot = trace.add_packet();
  snapshot->set_trusted_packet_sequence_id(8);
  for (uint32_t clock : {6u /* BOOTTIME */, 4u /* MONOTONIC_COARSE */}) {
    auto* c = snapshot->mutable_clock_snapshot()->add_clocks();
    c->set_clock_id(clock);
    c->set_timestamp(10);
  }
  auto* packet = trace.add_packet();
  packet->set_timestamp(20);
  packet->set_trusted_packet_sequence_id(7);
  auto* pp = packet->mutable_profile_packet();
  // Frames need a mapping (readers drop a frame whose mapping is not defined).
  const char* strings[] = {"", "Foo.main", "a.c", "system", "framework", "framework.jar"};
  for (uint64_t i = 1; i <= 5; ++i) {
    auto* str = pp->add_strings();
    str->set_iid(i);
    str->set_str(strings[i]);
  }
  auto* mapping = pp->add_mappings();
  mapping->set_iid(1);
  mapping->set_start(0x70000000);
  mapping->set_end(0x70100000);
  for (uint64_t part = 3; part <= 5; ++part) mapping->add_path_string_ids(part);
  auto* cs = pp->add_callstacks();
  cs->set_iid(1);
  for (uint64_t i = 1; i <= 2; ++i) {
    auto* f = pp->add_frames();
    f->set_iid(i);
    f->set_function_name_id(i);
    f->set_mapping_id(1);
    f->set_rel_pc(i * 16);
    cs->add_frame_ids(i);
  }
  auto* dump = pp->add_process_dumps();
  dump->set_pid(2);
  dump->set_timestamp(20);
  auto* sample = dump->add_samples();
  sample->set_callstack_id(1);
  sample->set_self_allocated(1000);
  sample->set_alloc_count(1);
  const QString tracePath = dir.filePath(QStringLiteral("java.pftrace"));
  const QString mapPath = dir.filePath(QStringLiteral("mapping.txt"));
  {
    QFile f(tracePath), m(mapPath);
    QVERIFY(f.open(QIODevice::WriteOnly) && m.open(QIODevice::WriteOnly));
    const std::string bytes = trace.SerializeAsString();
    f.write(bytes.data(), qint64(bytes.size()));
    m.write("com.example.Widget -> a:\n    void draw() -> c\n");
  }
  TraceSession session;
  FlamegraphPanel panel(&session);
  panel.resize(1000, 500);
  panel.show();
  session.open(tracePath);
  QVERIFY(QTest::qWaitFor([&] { return session.isLoaded(); }, 20000));
  settle(&panel);
  QVERIFY2(names(panel.tree()).contains(QStringLiteral("a.c")),
           qPrintable(names(panel.tree()).join(QLatin1Char(','))));

  SymbolsController* c = panel.symbolsController();
  c->setOutputDir(dir.filePath(QStringLiteral("out")));
  QSignalSpy finished(c, &SymbolsController::finished);
  c->runDeobfuscate({{"com.example.app", mapPath.toStdString()}});
  QVERIFY(finished.wait(30000));
  QCOMPARE(finished.at(0).at(0).toBool(), true);
  settle(&panel);
  const QString shown = names(panel.tree()).join(QLatin1Char(','));
  QVERIFY2(shown.contains(QStringLiteral("com.example.Widget.draw")), qPrintable(shown));
  QVERIFY2(!names(panel.tree()).contains(QStringLiteral("a.c")), qPrintable(shown));
}

QTEST_MAIN(SymbolsGuiTest)
#include "symbols_gui_test.moc"
