// ftrace/atrace text dumps. Expected numbers are counted in the file's text
// (one event per line), not taken from Fathom's output.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/import/systrace_text_tokenizer.h"
#include "core/trace_processor.h"
#include "perfetto/trace/ftrace/ftrace_event_bundle.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

size_t CountLinesWith(const std::string& path, const std::string& needle) {
  std::ifstream in(path);
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) n += line.find(needle) != std::string::npos;
  return n;
}

int64_t QueryInt(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  EXPECT_TRUE(it->NextResultSet()) << it->status().message();
  EXPECT_TRUE(it->NextRow()) << sql;
  return it->Get(0).i;
}

TEST(SystraceText, CatapultDumpLoadsEverySchedEvent) {
  std::string path = std::string(FATHOM_SHARED_DIR) + "/testdata/systrace_android.txt";
  size_t switches = CountLinesWith(path, ": sched_switch: ");
  size_t wakeups = CountLinesWith(path, ": sched_wakeup: ");
  ASSERT_GT(switches, 0u);
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(path).ok());
  EXPECT_EQ(tp.report().format, "systrace text");
  // Every text switch opens one sched slice (the last per CPU stays open).
  EXPECT_EQ(QueryInt(tp, "select count(*) from sched"), static_cast<int64_t>(switches));
  EXPECT_EQ(QueryInt(tp, "select count(*) from ftrace_event where name = 'sched_switch'"),
            static_cast<int64_t>(switches));
  // As upstream, text sched_wakeup lines keep no raw row.
  EXPECT_EQ(QueryInt(tp, "select count(*) from ftrace_event where name = 'sched_wakeup'"), 0);
  // Seconds.microseconds become exact nanoseconds: first line is 50260.647576.
  EXPECT_EQ(QueryInt(tp, "select min(ts) from sched"), 50260647576000);
  // Thread names come from the comms.
  EXPECT_EQ(QueryInt(tp, "select count(*) from thread where name = 'WebViewCoreThre'"), 1);
  // Every S switch-out closes a slice with end_state S, except the file's
  // first switch (all events are on CPU 0): no slice was open for its prev.
  ASSERT_EQ(CountLinesWith(path, "[000]"), switches + wakeups);
  EXPECT_EQ(QueryInt(tp, "select count(*) from sched where end_state = 'S'"),
            static_cast<int64_t>(CountLinesWith(path, "prev_state=S ")) - 1);
}

TEST(SystraceText, LegacyHtmlPageWithEscapedJavaScriptString) {
  std::string path = std::string(FATHOM_SHARED_DIR) + "/testdata/systrace_trivial.html";
  size_t counters = CountLinesWith(path, ": C|");
  ASSERT_GT(counters, 0u);
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(path).ok());
  EXPECT_EQ(tp.report().format, "systrace html");
  EXPECT_EQ(QueryInt(tp, "select count(*) from counter"), static_cast<int64_t>(counters));
  EXPECT_EQ(QueryInt(tp, "select count(*) from counter_track where name = 'VSYNC'"), 1);
}

TEST(SystraceText, LineGrammarWithTgidFlagsAndPreemption) {
  std::string bytes;
  uint32_t cpu = 0;
  int64_t ts = 0;
  ASSERT_TRUE(SystraceLineToFtraceEvent(
      "  surfaceflinger-598   (  598) [002] d..3 1234.000001: sched_switch: prev_comm=surface "
      "flinger prev_pid=598 prev_prio=112 prev_state=R+ ==> next_comm=swapper/2 next_pid=0 "
      "next_prio=120",
      &bytes, &cpu, &ts));
  perfetto::protos::FtraceEvent ev;
  ASSERT_TRUE(ev.ParseFromString(bytes));
  EXPECT_EQ(cpu, 2u);
  EXPECT_EQ(ts, 1234000001000);
  EXPECT_EQ(ev.pid(), 598u);
  EXPECT_EQ(ev.sched_switch().prev_comm(), "surface flinger");
  EXPECT_EQ(ev.sched_switch().prev_state(), 0x800);  // runnable, preempted
  EXPECT_EQ(ev.sched_switch().next_comm(), "swapper/2");

  ASSERT_TRUE(SystraceLineToFtraceEvent(
      "RenderThread-1234 [001] 99.5: tracing_mark_write: B|1200|draw", &bytes, &cpu, &ts));
  ASSERT_TRUE(ev.ParseFromString(bytes));
  EXPECT_EQ(ev.print().buf(), "B|1200|draw\n");
  EXPECT_EQ(ts, 99500000000);

  EXPECT_FALSE(SystraceLineToFtraceEvent("# tracer: nop", &bytes, &cpu, &ts));
  EXPECT_FALSE(SystraceLineToFtraceEvent("garbage without brackets", &bytes, &cpu, &ts));
}

TEST(SystraceText, AtraceMarkersBecomeSlices) {
  std::string text =
      "# tracer: nop\n"
      "  app-100 (  100) [000] ...1 10.000000: tracing_mark_write: B|100|outer\n"
      "  app-100 (  100) [000] ...1 10.000500: tracing_mark_write: B|100|inner\n"
      "  app-100 (  100) [000] ...1 10.001000: tracing_mark_write: E|100\n"
      "  app-100 (  100) [000] ...1 10.002000: tracing_mark_write: E|100\n"
      "  app-100 (  100) [000] ...1 10.003000: tracing_mark_write: C|100|queued|7";  // no final
                                                                                     // newline
  TraceProcessor tp;
  ASSERT_TRUE(
      tp.LoadBuffer(reinterpret_cast<const uint8_t*>(text.data()), text.size(), "t.txt").ok());
  EXPECT_EQ(QueryInt(tp, "select count(*) from slice"), 2);
  EXPECT_EQ(QueryInt(tp, "select dur from slice where name = 'outer'"), 2000000);
  EXPECT_EQ(QueryInt(tp, "select depth from slice where name = 'inner'"), 1);
  EXPECT_EQ(QueryInt(tp, "select cast(value as int) from counter"), 7);
}

TEST(SystraceText, OnlySchedSwitchLinesBecomeRawRows) {
  // Upstream keeps a raw ftrace_event row of a text trace's sched_switch lines
  // only (checked with the oracle on this dump's kind of lines: sched_wakeup,
  // print, cpu_idle and unknown events make none).
  std::string path = std::string(FATHOM_SHARED_DIR) + "/testdata/systrace_android.txt";
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(path).ok());
  EXPECT_EQ(QueryInt(tp, "select count(*) from ftrace_event"),
            static_cast<int64_t>(CountLinesWith(path, ": sched_switch: ")));
  EXPECT_EQ(QueryInt(tp, "select count(*) from ftrace_event where common_flags != 0"), 0);
}

// The oracle's answers on these lines: each line names its thread from its
// task column before its event applies, a "(tgid)" column puts the thread in
// that process (making the process and its main thread), "(-----)" does not,
// and the idle task stays "swapper".
TEST(SystraceText, LineTaskColumnsNameThreadsAndProcesses) {
  const std::string text =
      "# tracer: nop\n#\n"
      "             aaa-100   (  100) [000] d..3 50260.647576: sched_switch: prev_comm=bbb "
      "prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=ccc next_pid=200 next_prio=120\n"
      "             ddd-200   (  150) [000] d..3 50260.647580: sched_switch: prev_comm=eee "
      "prev_pid=200 prev_prio=120 prev_state=S ==> next_comm=fff next_pid=100 next_prio=120\n"
      "          <idle>-0     (-----) [001] d..3 50260.647590: sched_switch: prev_comm=swapper/1 "
      "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ggg next_pid=300 next_prio=120\n"
      "             baz-555   [000] d..3 50260.647602: foo_event: a=1 b=hello\n"
      "             qux-556   (  550) [000] d..3 50260.647603: irq_handler_entry: irq=5\n"
      "             quy-556   (  550) [000] d..3 50260.647604: irq_handler_entry: irq=5\n";
  TraceProcessor tp;
  ASSERT_TRUE(
      tp.LoadBuffer(reinterpret_cast<const uint8_t*>(text.data()), text.size(), "t.txt").ok());
  using Rows = std::vector<std::string>;
  EXPECT_EQ(testing::JoinedRows(tp, "select utid, tid, name, upid from thread order by utid", ""),
            (Rows{"0|0|swapper|0", "1|100|fff|1", "2|200|eee|2", "3|150||2", "4|300|ggg|",
                  "5|555|baz|", "6|556|quy|3", "7|550||3"}));
  EXPECT_EQ(testing::JoinedRows(tp, "select upid, pid from process order by upid"),
            (Rows{"0|0", "1|100", "2|150", "3|550"}));
  EXPECT_EQ(
      testing::JoinedRows(tp, "select id, name, utid, common_flags from ftrace_event order by id"),
      (Rows{"0|sched_switch|1|0", "1|sched_switch|2|0", "2|sched_switch|0|0"}));
}

// Upstream derives thread states from sched_waking only: sched_wakeup and
// sched_wakeup_new make no thread, name or state (the oracle on this text and
// on the same events as protos).
TEST(SystraceText, SchedWakeupMakesNoThreadState) {
  const std::string text =
      "# tracer: nop\n#\n"
      "          <idle>-0     (-----) [000] d..3 50260.647576: sched_switch: prev_comm=swapper/0 "
      "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=foo next_pid=100 next_prio=120\n"
      "             foo-100   (  100) [000] d..3 50260.647600: sched_wakeup: comm=bar pid=101 "
      "prio=120 target_cpu=000\n"
      "             foo-100   (  100) [000] d..3 50260.647601: sched_wakeup_new: comm=bar "
      "pid=102 prio=120 target_cpu=000\n"
      "             foo-100   (  100) [000] d..3 50260.647602: sched_waking: comm=qux pid=103 "
      "prio=120 target_cpu=000\n";
  TraceProcessor tp;
  ASSERT_TRUE(
      tp.LoadBuffer(reinterpret_cast<const uint8_t*>(text.data()), text.size(), "t.txt").ok());
  using Rows = std::vector<std::string>;
  EXPECT_EQ(testing::JoinedRows(tp, "select utid, tid, name, upid from thread order by utid", ""),
            (Rows{"0|0|swapper|0", "1|100|foo|1", "2|103|qux|"}));
  EXPECT_EQ(testing::JoinedRows(
                tp, "select ts, utid, state, waker_utid from thread_state order by ts", ""),
            (Rows{"50260647576000|1|Running|", "50260647602000|2|R|1"}));
}

}  // namespace
}  // namespace fathom
