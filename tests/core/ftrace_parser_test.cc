// Real-data checks of the ftrace parser. Expected numbers are computed here by
// decoding the trace files with libprotobuf's generated classes (independent
// of core's zero-copy decoder and of the parser under test).
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "core/import/systrace_marker.h"
#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using fathom::testing::ReadFileBytes;
using fathom::testing::TestData;

struct SchedFacts {
  uint64_t full_switches = 0;
  uint64_t full_wakings = 0;
  uint64_t full_wakeups = 0;          // sched_wakeup + sched_wakeup_new
  uint64_t switches_to_non_idle = 0;  // Running thread_state rows expected
  std::set<uint32_t> full_switch_cpus;
  uint64_t compact_switches = 0;
  uint64_t compact_wakings = 0;
  std::set<uint32_t> compact_switch_cpus;
  // prev_state of every full switch except the first per CPU (these become
  // the end_state of the slice the switch closes).
  std::map<int64_t, uint64_t> closing_prev_states;
  std::string kernel_release;
};

SchedFacts ComputeSchedFacts(const std::string& path) {
  SchedFacts f;
  perfetto::protos::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(ReadFileBytes(path)));
  std::set<uint32_t> seen_cpu;
  for (const auto& packet : trace.packet()) {
    if (packet.has_system_info() && packet.system_info().has_utsname())
      f.kernel_release = packet.system_info().utsname().release();
    if (!packet.has_ftrace_events()) continue;
    const auto& bundle = packet.ftrace_events();
    uint32_t cpu = bundle.cpu();
    for (const auto& ev : bundle.event()) {
      if (ev.has_sched_switch()) {
        ++f.full_switches;
        f.full_switch_cpus.insert(cpu);
        if (ev.sched_switch().next_pid() != 0) ++f.switches_to_non_idle;
        if (!seen_cpu.insert(cpu).second) ++f.closing_prev_states[ev.sched_switch().prev_state()];
      }
      if (ev.has_sched_waking()) ++f.full_wakings;
      if (ev.has_sched_wakeup() || ev.has_sched_wakeup_new()) ++f.full_wakeups;
    }
    if (bundle.has_compact_sched()) {
      const auto& cs = bundle.compact_sched();
      f.compact_switches += static_cast<uint64_t>(cs.switch_timestamp_size());
      f.compact_wakings += static_cast<uint64_t>(cs.waking_timestamp_size());
      if (cs.switch_timestamp_size() > 0) f.compact_switch_cpus.insert(cpu);
    }
  }
  return f;
}

int64_t QueryInt(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  EXPECT_TRUE(it->NextResultSet() && it->NextRow()) << sql << ": " << it->status().message();
  return it->Get(0).i;
}

class AndroidSchedBinder : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    path_ = TestData("android_sched_binder_10s.perfetto-trace").string();
    facts_ = new SchedFacts(ComputeSchedFacts(path_));
    tp_ = new TraceProcessor();
    status_ok_ = tp_->LoadFile(path_).ok();
  }
  static void TearDownTestSuite() {
    delete tp_;
    delete facts_;
  }
  void SetUp() override { ASSERT_TRUE(status_ok_); }
  static std::string path_;
  static SchedFacts* facts_;
  static TraceProcessor* tp_;
  static bool status_ok_;
};
std::string AndroidSchedBinder::path_;
SchedFacts* AndroidSchedBinder::facts_;
TraceProcessor* AndroidSchedBinder::tp_;
bool AndroidSchedBinder::status_ok_;

TEST_F(AndroidSchedBinder, OneSchedRowPerSwitchAndOneOpenRowPerCpu) {
  ASSERT_GT(facts_->full_switches, 1000u);
  EXPECT_EQ(QueryInt(*tp_, "select count(*) from sched"),
            static_cast<int64_t>(facts_->full_switches));
  EXPECT_EQ(QueryInt(*tp_, "select count(*) from sched where dur = -1"),
            static_cast<int64_t>(facts_->full_switch_cpus.size()));
}

TEST_F(AndroidSchedBinder, SlicesOnACpuAreContiguous) {
  // Every closed slice ends exactly where the next one on its CPU starts.
  EXPECT_EQ(QueryInt(*tp_,
                     "select count(*) from (select ts, dur, lead(ts) over (partition by cpu "
                     "order by ts) as next_ts from sched) where dur != -1 and ts + dur != next_ts"),
            0);
  EXPECT_EQ(tp_->storage().stats.Get(Stat::kMismatchedSchedSwitchTids), 0);
}

TEST_F(AndroidSchedBinder, EndStatesUseThePre414Layout) {
  // Kernel 3.18: TASK_STATE_MAX (preempted) is 0x800, TASK_WAKEKILL 0x80.
  ASSERT_TRUE(facts_->kernel_release.empty() || facts_->kernel_release.rfind("3.", 0) == 0)
      << facts_->kernel_release;
  uint64_t preempted = 0, sleeping = 0, disk = 0;
  for (auto [state, n] : facts_->closing_prev_states) {
    if (state == 0x800) preempted += n;
    if (state == 0x1) sleeping += n;
    if (state == 0x2) disk += n;
  }
  ASSERT_GT(preempted + sleeping, 0u);
  EXPECT_EQ(QueryInt(*tp_, "select count(*) from sched where end_state = 'R+'"),
            static_cast<int64_t>(preempted));
  EXPECT_EQ(QueryInt(*tp_, "select count(*) from sched where end_state = 'S'"),
            static_cast<int64_t>(sleeping));
  EXPECT_EQ(QueryInt(*tp_, "select count(*) from sched where end_state = 'D'"),
            static_cast<int64_t>(disk));
}

TEST_F(AndroidSchedBinder, RawTableHasEverySwitchAndWakingWithArgs) {
  EXPECT_EQ(QueryInt(*tp_, "select count(*) from ftrace_event where name = 'sched_switch'"),
            static_cast<int64_t>(facts_->full_switches));
  EXPECT_EQ(QueryInt(*tp_, "select count(*) from raw where name = 'sched_waking'"),
            static_cast<int64_t>(facts_->full_wakings));
  // Seven args per switch, in proto order.
  EXPECT_EQ(QueryInt(*tp_,
                     "select count(*) from ftrace_event e join args a using(arg_set_id) "
                     "where e.name = 'sched_switch'"),
            static_cast<int64_t>(7 * facts_->full_switches));
  EXPECT_EQ(QueryInt(*tp_,
                     "select count(*) from ftrace_event where name = 'sched_switch' and "
                     "extract_arg(arg_set_id, 'next_pid') is null"),
            0);
}

TEST_F(AndroidSchedBinder, ThreadStateHasARunningRowPerSwitchToATask) {
  EXPECT_EQ(QueryInt(*tp_, "select count(*) from thread_state where state = 'Running'"),
            static_cast<int64_t>(facts_->switches_to_non_idle));
  EXPECT_EQ(QueryInt(*tp_,
                     "select count(*) from thread_state where state = 'Running' and "
                     "cpu is null"),
            0);
  EXPECT_EQ(QueryInt(*tp_, "select count(*) from thread_state where utid = 0"), 0);
  // Runnable rows opened by wakings carry the waker (a switch with prev_state
  // 0 also ends in "R", without one). Wakings of running tasks are ignored,
  // so there can be fewer than there were wakings.
  int64_t woken = QueryInt(*tp_, "select count(*) from thread_state where waker_utid is not null");
  if (facts_->full_wakings + facts_->full_wakeups > 0) {
    EXPECT_GT(woken, 0);
  }
  EXPECT_LE(woken, static_cast<int64_t>(facts_->full_wakings + facts_->full_wakeups));
  EXPECT_EQ(QueryInt(*tp_,
                     "select count(*) from thread_state where waker_utid is not null "
                     "and state != 'R'"),
            0);
}

TEST(CompactSched, SwitchesMinusFirstPerCpuBecomeSchedRows) {
  std::string path = TestData("linux_compact_sched_perf_samples.pftrace").string();
  SchedFacts f = ComputeSchedFacts(path);
  ASSERT_GT(f.compact_switches, 0u);
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(path).ok());
  uint64_t cpus = f.compact_switch_cpus.size();
  EXPECT_EQ(QueryInt(tp, "select count(*) from sched"),
            static_cast<int64_t>(f.full_switches + f.compact_switches - cpus));
  EXPECT_EQ(tp.storage().stats.Get(Stat::kCompactSchedSwitchSkipped), static_cast<int64_t>(cpus));
  // Every waking either reaches the raw table or is counted as skipped.
  EXPECT_EQ(QueryInt(tp, "select count(*) from ftrace_event where name = 'sched_waking'") +
                tp.storage().stats.Get(Stat::kCompactSchedWakingSkipped),
            static_cast<int64_t>(f.compact_wakings + f.full_wakings));
  EXPECT_EQ(QueryInt(tp, "select count(*) from ftrace_event where name = 'sched_switch'"),
            static_cast<int64_t>(f.full_switches + f.compact_switches - cpus));
}

TEST(SystraceMarker, ParsesEveryPhase) {
  SystraceMarker m;
  ASSERT_EQ(ParseSystraceMarker("B|42|name|with|bars\n", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.phase, 'B');
  EXPECT_EQ(m.tgid, 42);
  EXPECT_EQ(m.name, "name|with|bars");
  ASSERT_EQ(ParseSystraceMarker("E", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.tgid, 0);
  ASSERT_EQ(ParseSystraceMarker("E|7", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.tgid, 7);
  ASSERT_EQ(ParseSystraceMarker("C|1|cnt|-5|cat", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.name, "cnt");
  EXPECT_EQ(m.value, -5);
  EXPECT_EQ(m.category, "cat");
  ASSERT_EQ(ParseSystraceMarker("S|3|a b|12", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.name, "a b");
  EXPECT_EQ(m.cookie, 12);
  ASSERT_EQ(ParseSystraceMarker("H|1|track|2048", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.track, "track");
  EXPECT_EQ(m.name, "");
  EXPECT_EQ(m.cookie, 2048);
  ASSERT_EQ(ParseSystraceMarker("G|1|track|ev|1024", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.name, "ev");
  ASSERT_EQ(ParseSystraceMarker("N|1|track|ev", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.track, "track");
  EXPECT_EQ(m.name, "ev");
  EXPECT_EQ(ParseSystraceMarker("C|1|cnt|notanumber", &m), SystraceParseResult::kFailure);
  EXPECT_EQ(ParseSystraceMarker("another random print", &m), SystraceParseResult::kUnsupported);
  EXPECT_EQ(ParseSystraceMarker("B|x|name", &m), SystraceParseResult::kFailure);
}

// Field boundaries and malformed lines as trace_processor_shell v58.2 treats
// them in ftrace print events (each line checked with the oracle: the slice,
// instant or counter it made, or a systrace_parse_failure).
TEST(SystraceMarker, FieldsEndAtTheNextBarExceptBeginNames) {
  SystraceMarker m;
  ASSERT_EQ(ParseSystraceMarker("I|1|a b|c|d\n", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.name, "a b");
  ASSERT_EQ(ParseSystraceMarker("N|1|trk|nm|extra\n", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.track, "trk");
  EXPECT_EQ(m.name, "nm");
  ASSERT_EQ(ParseSystraceMarker("S|1|a|5|x\n", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.name, "a");
  EXPECT_EQ(m.cookie, 5);
  ASSERT_EQ(ParseSystraceMarker("G|1|t|a|7|x\n", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.name, "a");
  EXPECT_EQ(m.cookie, 7);
  ASSERT_EQ(ParseSystraceMarker("C|1|a|5|cat|x\n", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.name, "a");
  EXPECT_EQ(m.value, 5);
  // A begin without a name still begins a slice.
  ASSERT_EQ(ParseSystraceMarker("B|1|\n", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.name, "[empty slice name]");
  ASSERT_EQ(ParseSystraceMarker("B|1\n", &m), SystraceParseResult::kOk);
  EXPECT_EQ(m.name, "[empty slice name]");
  ASSERT_EQ(ParseSystraceMarker("H|1|trk||7\n", &m), SystraceParseResult::kOk);
  for (const char* bad :
       {"I|1|\n", "I|1\n", "N|1|trk|\n", "N|1||nm\n", "S|1||5\n", "F|1||5\n",
        "S|1|a|b|5\n", "G|1|trk||7\n", "G|1||a|7\n", "G|1|trk|a|b|7\n", "C|1||5\n",
        "B\n", "B|\n", "B||x\n", "I||x\n", "C||x|5\n", "S||x|5\n", "N||t|x\n"})
    EXPECT_EQ(ParseSystraceMarker(bad, &m), SystraceParseResult::kFailure) << bad;
}

}  // namespace
}  // namespace fathom
