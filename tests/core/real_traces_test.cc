// Every Perfetto trace in ../shared/testdata must load, and what the loader
// built must agree with facts computed here independently: the Trace framing
// walked by hand and the packets decoded with libprotobuf's generated classes
// (never core's decoder). Counts that depend on parsers still being written
// are listed in kPending with the missing piece; the lead removes entries as
// parsers land.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using namespace fathom::testing;
namespace fs = std::filesystem;

// Facts about one trace, computed without the code under test.
struct Facts {
  uint64_t framed_packets = 0;
  int parsed_packets = -1;  // libprotobuf; -1 = did not parse
  uint64_t ftrace_events = 0, sched_switch = 0, sched_waking = 0, cpu_frequency = 0, cpu_idle = 0,
           print = 0, print_begin = 0, print_end = 0, print_counter = 0;
  uint64_t compact_switch = 0, compact_waking = 0;
  std::set<uint32_t> compact_cpus;
  uint64_t track_slice_begin = 0, track_slice_end = 0, track_instant = 0, track_counter = 0;
  std::set<int32_t> tree_pids, tree_tids, switch_tids;
  int64_t min_ftrace_ts = std::numeric_limits<int64_t>::max();
  int64_t max_ftrace_ts = std::numeric_limits<int64_t>::min();
  bool has_ftrace_ts() const { return min_ftrace_ts <= max_ftrace_ts; }
  // ftrace clock (when not the boot clock) -> boot clock offsets, from the
  // bundles' (ftrace_timestamp, boot_timestamp) pairs.
  bool nondefault_ftrace_clock = false;
  int64_t min_clock_offset = std::numeric_limits<int64_t>::max();
  int64_t max_clock_offset = std::numeric_limits<int64_t>::min();
  bool has_clock_offsets() const { return min_clock_offset <= max_clock_offset; }

  void FtraceTs(int64_t ts) {
    min_ftrace_ts = std::min(min_ftrace_ts, ts);
    max_ftrace_ts = std::max(max_ftrace_ts, ts);
  }
  // Compact sched, per CPU: upstream keeps no row for a CPU's first switch
  // (it has no prev_* fields) nor for wakings before it (no known waker), so
  // those do not extend the trace bounds. (first switch ts, wakings).
  std::map<uint32_t, std::pair<int64_t, std::vector<int64_t>>> compact_by_cpu;
  void FinishCompact() {
    for (auto& [cpu, c] : compact_by_cpu) {
      auto& [first_switch, wakings] = c;
      for (int64_t ts : wakings)
        if (ts >= first_switch) FtraceTs(ts);
    }
  }
};

void CountPrint(const std::string& buf, Facts* f) {
  ++f->print;
  // atrace markers: "B|pid|name", "E|pid", "C|pid|name|value" (trailing \n).
  if (buf.size() < 2 || buf[1] != '|') return;
  if (buf[0] == 'B') ++f->print_begin;
  if (buf[0] == 'E') ++f->print_end;
  if (buf[0] == 'C') ++f->print_counter;
}

void CollectPacket(const perfetto::protos::TracePacket& p, Facts* f) {
  // A bundle without its cpu is dropped whole by upstream (a tokenizer error).
  if (p.has_ftrace_events() && p.ftrace_events().has_cpu()) {
    const auto& b = p.ftrace_events();
    if (b.has_ftrace_clock() && b.ftrace_clock() != 0) f->nondefault_ftrace_clock = true;
    if (b.has_ftrace_timestamp() && b.has_boot_timestamp()) {
      int64_t off = b.boot_timestamp() - b.ftrace_timestamp();
      f->min_clock_offset = std::min(f->min_clock_offset, off);
      f->max_clock_offset = std::max(f->max_clock_offset, off);
    }
    for (const auto& e : b.event()) {
      ++f->ftrace_events;
      f->FtraceTs(static_cast<int64_t>(e.timestamp()));
      if (e.has_sched_switch()) {
        ++f->sched_switch;
        f->switch_tids.insert(e.sched_switch().prev_pid());
        f->switch_tids.insert(e.sched_switch().next_pid());
      }
      if (e.has_sched_waking()) {
        ++f->sched_waking;
        f->switch_tids.insert(e.sched_waking().pid());
      }
      if (e.has_cpu_frequency()) ++f->cpu_frequency;
      if (e.has_cpu_idle()) ++f->cpu_idle;
      if (e.has_print()) CountPrint(e.print().buf(), f);
    }
    if (b.has_compact_sched()) {
      const auto& c = b.compact_sched();
      f->compact_switch += static_cast<uint64_t>(c.switch_timestamp_size());
      f->compact_waking += static_cast<uint64_t>(c.waking_timestamp_size());
      if (c.switch_timestamp_size() > 0) f->compact_cpus.insert(b.cpu());
      auto [it, first_bundle] = f->compact_by_cpu.try_emplace(
          b.cpu(), std::numeric_limits<int64_t>::max(), std::vector<int64_t>{});
      auto& [first_switch, wakings] = it->second;
      int64_t ts = 0;
      for (uint64_t d : c.switch_timestamp()) {
        ts += static_cast<int64_t>(d);
        if (first_switch == std::numeric_limits<int64_t>::max()) {
          first_switch = ts;  // primes the CPU, no row
        } else {
          f->FtraceTs(ts);
        }
      }
      ts = 0;
      for (uint64_t d : c.waking_timestamp()) wakings.push_back(ts += static_cast<int64_t>(d));
      for (int32_t pid : c.switch_next_pid()) f->switch_tids.insert(pid);
      for (int32_t pid : c.waking_pid()) f->switch_tids.insert(pid);
    }
  }
  if (p.has_process_tree()) {
    for (const auto& proc : p.process_tree().processes()) {
      f->tree_pids.insert(proc.pid());
      f->tree_tids.insert(proc.pid());  // the main thread
    }
    for (const auto& t : p.process_tree().threads()) f->tree_tids.insert(t.tid());
  }
  if (p.has_track_event()) {
    switch (p.track_event().type()) {
      case perfetto::protos::TrackEvent::TYPE_SLICE_BEGIN:
        ++f->track_slice_begin;
        break;
      case perfetto::protos::TrackEvent::TYPE_SLICE_END:
        ++f->track_slice_end;
        break;
      case perfetto::protos::TrackEvent::TYPE_INSTANT:
        ++f->track_instant;
        break;
      case perfetto::protos::TrackEvent::TYPE_COUNTER:
        ++f->track_counter;
        break;
      default:
        break;
    }
  }
}

Facts ComputeFacts(const std::string& bytes) {
  Facts f;
  f.framed_packets = WalkTraceFraming(AsBytes(bytes), bytes.size()).packets;
  perfetto::protos::Trace trace;
  if (!trace.ParseFromString(bytes)) return f;
  f.parsed_packets = trace.packet_size();
  for (const auto& p : trace.packet()) CollectPacket(p, &f);
  f.FinishCompact();
  return f;
}

std::vector<std::string> AllPerfettoTraces() {
  std::vector<std::string> names;
  fs::path dir = SharedDir() / "testdata";
  if (!fs::exists(dir)) return names;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".perfetto-trace" || ext == ".pftrace" || ext == ".pb"))
      names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// "<file>:<fact>" (or "*:<fact>") -> what is missing. GTEST_SKIP()s the check.
const std::map<std::string, std::string>& Pending() {
  // Example entry: {"*:slice", "TODO(C): TrackEvent slices (track_event_parser)"}.
  // Empty: every check passes with the parsers as they are.
  static const std::map<std::string, std::string> kPending = {};
  return kPending;
}

// GTEST_SKIP() must run in the test body itself to end the test.
#define SKIP_IF_PENDING(fact)              \
  do {                                     \
    std::string why = PendingReason(fact); \
    if (!why.empty()) GTEST_SKIP() << why; \
  } while (0)

class RealTrace : public ::testing::TestWithParam<std::string> {
 protected:
  struct Loaded {
    Facts facts;
    std::unique_ptr<TraceProcessor> tp;
    Status status;
  };
  // Each trace is loaded once and shared by its checks.
  static Loaded& Get(const std::string& name) {
    static std::map<std::string, Loaded> cache;
    auto it = cache.find(name);
    if (it != cache.end()) return it->second;
    Loaded& l = cache[name];
    fs::path path = TestData(name);
    l.facts = ComputeFacts(ReadFileBytes(path));
    l.tp = std::make_unique<TraceProcessor>();
    l.status = l.tp->LoadFile(path.string());
    return l;
  }
  // Why `fact` is not checked yet for this trace ("" = check it).
  // FATHOM_RUN_PENDING=1 checks everything (to see what can be unskipped).
  std::string PendingReason(const std::string& fact) {
    if (getenv("FATHOM_RUN_PENDING")) return "";
    for (const std::string& key : {GetParam() + ":" + fact, "*:" + fact}) {
      auto it = Pending().find(key);
      if (it != Pending().end()) return it->second;
    }
    return "";
  }
  const Facts& facts() { return Get(GetParam()).facts; }
  TraceProcessor& tp() { return *Get(GetParam()).tp; }
  void SetUp() override {
    const Loaded& l = Get(GetParam());
    ASSERT_TRUE(l.status.ok()) << l.status.message();
  }
};

TEST_P(RealTrace, LoadsEveryPacketCleanly) {
  const Facts& f = facts();
  ASSERT_GT(f.framed_packets, 0u);
  EXPECT_EQ(f.parsed_packets, static_cast<int>(f.framed_packets)) << "libprotobuf disagrees";
  EXPECT_EQ(tp().report().packets, f.framed_packets);
  // The only warnings are the error stats upstream counts too (the oracle's
  // `select name from stats where severity = 'error' and value > 0`), each
  // reported with where it happened.
  static const std::map<std::string, std::set<std::string>> kOracleErrorStats = {
      {"process_stats_multiuser.pb",
       {"ftrace_bundle_tokenizer_errors", "mismatched_sched_switch_tids"}},
  };
  const auto it = kOracleErrorStats.find(GetParam());
  const std::set<std::string> expected =
      it == kOracleErrorStats.end() ? std::set<std::string>() : it->second;
  std::set<std::string> named;
  for (const std::string& w : tp().report().warnings) {
    bool known = false;
    for (const std::string& stat : expected)
      if (w.find("byte offset ") != std::string::npos &&
          w.find(": " + stat + ": ") != std::string::npos) {
        named.insert(stat);
        known = true;
      }
    EXPECT_TRUE(known) << w;
  }
  EXPECT_EQ(named, expected);
  EXPECT_EQ(tp().storage().stats.Get(Stat::kTraceTruncated), 0);
  EXPECT_EQ(tp().storage().stats.Get(Stat::kProtoDecodeErrors), 0);
}

TEST_P(RealTrace, TraceBoundsCoverFtraceEvents) {
  const Facts& f = facts();
  const TraceStorage& s = tp().storage();
  if (s.has_bounds()) {
    EXPECT_LE(s.min_ts(), s.max_ts());
  }
  if (!f.has_ftrace_ts()) return;
  SKIP_IF_PENDING("ftrace_event");
  // With a non-boot ftrace clock the events move by the bundles' sync offset.
  int64_t lo = 0, hi = 0;
  if (f.nondefault_ftrace_clock) {
    ASSERT_TRUE(f.has_clock_offsets()) << "non-boot ftrace clock without sync timestamps";
    lo = f.min_clock_offset;
    hi = f.max_clock_offset;
  }
  ASSERT_TRUE(s.has_bounds());
  EXPECT_LE(s.min_ts(), f.min_ftrace_ts + hi);
  EXPECT_GE(s.max_ts(), f.max_ftrace_ts + lo);
  // ...and the SQL view agrees with storage.
  auto it = tp().Query("select start_ts, end_ts from trace_bounds");
  ASSERT_TRUE(it->NextResultSet() && it->NextRow()) << it->status().message();
  EXPECT_EQ(it->Get(0).i, s.min_ts());
  EXPECT_EQ(it->Get(1).i, s.max_ts());
}

TEST_P(RealTrace, SchedRowsMatchSwitches) {
  const Facts& f = facts();
  if (f.sched_switch + f.compact_switch == 0) return;
  SKIP_IF_PENDING("sched");
  uint64_t rows = tp().storage().sched.row_count();
  // One row per full-form switch; compact_sched may spend the first switch of
  // each CPU priming the previous task.
  EXPECT_LE(rows, f.sched_switch + f.compact_switch);
  EXPECT_GE(rows, f.sched_switch + f.compact_switch - f.compact_cpus.size());
}

TEST_P(RealTrace, FtraceEventRowsWithinEventCount) {
  const Facts& f = facts();
  if (f.ftrace_events + f.compact_switch + f.compact_waking == 0) return;
  SKIP_IF_PENDING("ftrace_event");
  uint64_t rows = tp().storage().ftrace_event.row_count();
  // sched_switch/sched_waking always reach the raw table; nothing else can.
  EXPECT_GE(rows, f.sched_switch + f.sched_waking);
  EXPECT_LE(rows, f.ftrace_events + f.compact_switch + f.compact_waking);
}

TEST_P(RealTrace, CounterRowsCoverFtraceCounters) {
  const Facts& f = facts();
  uint64_t expected = f.cpu_frequency + f.cpu_idle + f.print_counter;
  if (expected == 0) return;
  SKIP_IF_PENDING("counter");
  EXPECT_GE(tp().storage().counter.row_count(), expected);
}

TEST_P(RealTrace, SliceRowsCoverBeginsAndInstants) {
  const Facts& f = facts();
  if (f.track_slice_begin + f.track_instant + f.print_begin == 0) return;
  SKIP_IF_PENDING("slice");
  uint64_t rows = tp().storage().slice.row_count();
  EXPECT_GE(rows, f.track_slice_begin + f.track_instant + f.print_begin);
  if (f.ftrace_events == 0) {
    // A pure TrackEvent trace: exactly one slice per begin or instant.
    EXPECT_EQ(rows, f.track_slice_begin + f.track_instant);
  }
}

TEST_P(RealTrace, ProcessRowsCoverProcessTree) {
  const Facts& f = facts();
  if (f.tree_pids.empty()) return;
  SKIP_IF_PENDING("process");
  std::set<int32_t> pids = f.tree_pids;
  pids.insert(0);  // upid 0 is always the idle/swapper placeholder
  EXPECT_GE(tp().storage().process.row_count(), pids.size());
}

TEST_P(RealTrace, ThreadRowsCoverEveryTid) {
  const Facts& f = facts();
  std::set<int32_t> tids = f.tree_tids;
  tids.insert(f.switch_tids.begin(), f.switch_tids.end());
  if (tids.empty()) return;
  SKIP_IF_PENDING("thread");
  tids.insert(0);  // utid 0 is the idle/swapper thread
  EXPECT_GE(tp().storage().thread.row_count(), tids.size());
}

INSTANTIATE_TEST_SUITE_P(SharedTestdata, RealTrace, ::testing::ValuesIn(AllPerfettoTraces()),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(RealTraceSet, SharedTracesArePresent) {
  EXPECT_GE(AllPerfettoTraces().size(), 8u) << "expected the shared traces in " FATHOM_SHARED_DIR;
}

// Pins the independent facts for the two documented traces to the numbers in
// testdata/README.md, so a broken fact extractor cannot make the checks above
// vacuous.
TEST(RealTraceSet, FactsMatchTheTestdataReadme) {
  Facts sched = ComputeFacts(ReadFileBytes(TestData("android_sched_binder_10s.perfetto-trace")));
  EXPECT_EQ(sched.framed_packets, 441u);
  EXPECT_EQ(sched.sched_switch, 27960u);
  EXPECT_EQ(sched.cpu_idle, 35844u);
  EXPECT_EQ(sched.cpu_frequency, 176u);
  EXPECT_EQ(sched.print, 102u);
  EXPECT_EQ(sched.compact_switch, 0u);
  Facts compact = ComputeFacts(ReadFileBytes(TestData("linux_compact_sched_perf_samples.pftrace")));
  EXPECT_EQ(compact.framed_packets, 739u);
  EXPECT_GT(compact.compact_switch, 0u);
  Facts nested = ComputeFacts(ReadFileBytes(TestData("track_event_nested_tracks.perfetto-trace")));
  EXPECT_EQ(nested.track_slice_begin + nested.track_slice_end, 2728u);  // 1,364 slices
}

}  // namespace
}  // namespace fathom
