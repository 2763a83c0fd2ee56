// A load that reads ahead, merges and builds thread_state on helper threads
// must give exactly the tables of a load on one thread. Small chunks, a small
// headroom and no size threshold run every threaded path (read-ahead with
// prepended leftovers and joined long packets, the batched merge, the
// thread_state worker) on the real test traces.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using testing::JoinedRows;
using testing::TempDir;

// Every table the threaded paths feed, in a stable row order.
const char* const kDumps[] = {
    "select * from sched order by id",
    "select * from thread_state order by id",
    "select * from ftrace_event order by id",
    "select * from args order by id",
    "select * from slice order by id",
    "select * from counter order by id",
    "select * from track order by id",
    "select * from thread order by utid",
    "select * from process order by upid",
    "select * from flow order by id",
    "select * from android_logs order by id",
    // parse_trace_duration_ns is wall time: no two loads share it.
    "select name, idx, value from stats where value != 0 and name != 'parse_trace_duration_ns' "
    "order by name, idx",
    "select * from trace_bounds",
};

std::vector<std::string> DumpAll(TraceProcessor& tp) {
  std::vector<std::string> all;
  for (const char* sql : kDumps) {
    all.push_back(std::string("== ") + sql);
    for (std::string& row : JoinedRows(tp, sql)) all.push_back(std::move(row));
  }
  return all;
}

std::vector<std::string> LoadAndDump(const std::string& path, const LoadTuning& tuning,
                                     std::string* error) {
  TraceProcessor tp;
  tp.set_load_tuning(tuning);
  Status st = tp.LoadFile(path);
  if (!st.ok()) *error = st.message();
  return DumpAll(tp);
}

LoadTuning SingleThreaded() {
  LoadTuning t;
  t.threads = false;
  return t;
}

LoadTuning ThreadedSmall() {
  LoadTuning t;
  t.threads = true;
  t.chunk_bytes = 64 << 10;
  t.read_ahead_headroom = 8 << 10;  // packets longer than 8 KiB take the join path
  t.threaded_merge_min_events = 0;
  return t;
}

void ExpectSameTables(const std::string& path) {
  std::string err1, err2;
  auto single = LoadAndDump(path, SingleThreaded(), &err1);
  auto threaded = LoadAndDump(path, ThreadedSmall(), &err2);
  ASSERT_EQ(err1, "") << path;
  ASSERT_EQ(err2, "") << path;
  // A real trace fills these; an empty dump would prove nothing.
  ASSERT_GT(single.size(), 1000u) << path;
  ASSERT_EQ(single.size(), threaded.size()) << path;
  for (size_t i = 0; i < single.size(); ++i)
    ASSERT_EQ(single[i], threaded[i]) << path << ": first difference at dump line " << i;
}

TEST(ThreadedLoad, BinderTraceSameTables) {
  ExpectSameTables(testing::TestData("android_sched_binder_10s.perfetto-trace").string());
}

TEST(ThreadedLoad, AtraceLogTraceSameTables) {
  ExpectSameTables(testing::TestData("android_frametimeline_atrace_log.perfetto-trace").string());
}

TEST(ThreadedLoad, CompactSchedTraceSameTables) {
  ExpectSameTables(testing::TestData("linux_compact_sched_perf_samples.pftrace").string());
}

// Systrace text: most lines become FtraceEvent protos, the rest (events without a
// proto field) rows of their own, and both kinds of raw row must reach ftrace_event
// through the one writer thread (they once raced it from the parsing thread and lost
// rows).
TEST(ThreadedLoad, SystraceTextSameTables) {
  // The real text trace is small; a written one has enough rows for the threads to
  // overlap: switches and wakings between events the importer has no proto field
  // for (which only name their thread).
  TempDir dir;
  std::string text = "# tracer: nop\n#\n";
  constexpr int kLines = 60000;
  int generic = 0, switches = 0;
  for (int i = 0; i < kLines; ++i) {
    int cpu = i % 4, a = 100 + i % 16, b = 100 + (i + 1) % 16;
    char line[256];
    double t = 1000.0 + i * 0.00001;
    if (i % 3 == 0) {
      snprintf(line, sizeof line,
               "  w-%d ( %d) [%03d] d..3 %.6f: sched_switch: prev_comm=w prev_pid=%d "
               "prev_prio=120 prev_state=S ==> next_comm=w next_pid=%d next_prio=120\n",
               a, a, cpu, t, a, b);
      ++switches;
    } else if (i % 3 == 1) {
      snprintf(line, sizeof line,
               "  w-%d ( %d) [%03d] d..4 %.6f: sched_waking: comm=w pid=%d prio=120 "
               "target_cpu=%03d\n",
               a, a, cpu, t, b, cpu);
    } else {
      snprintf(line, sizeof line, "  w-%d ( %d) [%03d] ...1 %.6f: fathom_test_event: n=%d\n", a, a,
               cpu, t, i);
      ++generic;
    }
    text += line;
  }
  auto path = dir.Write("big.systrace.txt", text);
  ExpectSameTables(path.string());
  TraceProcessor tp;
  tp.set_load_tuning(ThreadedSmall());
  ASSERT_TRUE(tp.LoadFile(path.string()).ok());
  // As upstream, only the sched_switch lines keep raw rows; every line names its thread.
  EXPECT_EQ(testing::QueryInt(tp, "SELECT COUNT(*) FROM ftrace_event"), switches);
  EXPECT_EQ(testing::QueryInt(tp, "SELECT COUNT(*) FROM thread WHERE name = 'w'"), 16);
  EXPECT_GT(generic, 0);
  EXPECT_EQ(testing::QueryInt(tp, "SELECT COUNT(*) FROM sched"), switches);
}

TEST(ThreadedLoad, GzipTraceSameTables) {
  // The read-ahead thread inflates: the chunks then come from the decompressor.
  TempDir dir;
  std::string bytes =
      testing::ReadFileBytes(testing::TestData("android_sched_binder_10s.perfetto-trace"));
  auto path = dir.Write("binder.pftrace.gz", testing::Deflate(bytes, true));
  ExpectSameTables(path.string());
}

TEST(ThreadedLoad, TruncatedTraceKeepsWhatCameBefore) {
  // Cut mid-packet past several chunks: both loads keep the same rows and
  // report the same dropped tail.
  TempDir dir;
  std::string bytes =
      testing::ReadFileBytes(testing::TestData("android_sched_binder_10s.perfetto-trace"));
  auto path = dir.Write("cut.pftrace", bytes.substr(0, bytes.size() * 2 / 3 + 17));
  ExpectSameTables(path.string());
  TraceProcessor tp;
  tp.set_load_tuning(ThreadedSmall());
  ASSERT_TRUE(tp.LoadFile(path.string()).ok());
  bool reported = false;
  for (const std::string& w : tp.report().warnings)
    reported |= w.find("truncated") != std::string::npos;
  EXPECT_TRUE(reported);
}

TEST(ThreadedLoad, CancelStopsTheHelperThreads) {
  // Cancelling from the progress callback returns (the helpers are joined)
  // instead of hanging or crashing.
  TraceProcessor tp;
  tp.set_load_tuning(ThreadedSmall());
  int calls = 0;
  Status st = tp.LoadFile(testing::TestData("android_sched_binder_10s.perfetto-trace").string(),
                          [&](const LoadProgress&) { return ++calls < 3; });
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cancelled"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace fathom
