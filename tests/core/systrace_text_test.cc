// ftrace/atrace text dumps. Expected numbers are counted in the file's text
// (one event per line), not taken from Fathom's output.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/import/systrace_text_tokenizer.h"
#include "core/trace_processor.h"
#include "perfetto/trace/ftrace/ftrace_event_bundle.pb.h"

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
  EXPECT_EQ(QueryInt(tp, "select count(*) from ftrace_event where name = 'sched_wakeup'"),
            static_cast<int64_t>(wakeups));
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

TEST(SystraceText, EveryEventLineOfTheCatapultDumpIsARawRow) {
  // Every line that is not a '#' comment is one event (91 by grep -vc '^#').
  std::string path = std::string(FATHOM_SHARED_DIR) + "/testdata/systrace_android.txt";
  std::ifstream in(path);
  std::string line;
  int64_t events = 0;
  while (std::getline(in, line)) events += !line.empty() && line[0] != '#';
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(path).ok());
  EXPECT_EQ(QueryInt(tp, "select count(*) from ftrace_event"), events);
}

}  // namespace
}  // namespace fathom
