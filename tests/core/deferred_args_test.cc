// Raw ftrace events' args are written when the args table is first read
// (core/import/ftrace_raw_args.h). These tests load real traces and check,
// against libprotobuf's decoding of the same files, that what the args table
// then holds is what the events carried, and that any first reader (SQL scan,
// string filter, EXTRACT_ARG) sees every row.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using namespace fathom::testing;

struct SqlRow {
  std::vector<std::string> cells;  // text of every column ("NULL" for NULL)
};

std::vector<SqlRow> Rows(TraceProcessor& tp, const std::string& sql) {
  std::vector<SqlRow> out;
  auto it = tp.Query(sql);
  if (!it->NextResultSet()) {
    ADD_FAILURE() << sql << ": " << it->status().message();
    return out;
  }
  while (it->NextRow()) {
    SqlRow r;
    for (int i = 0; i < it->column_count(); ++i) {
      SqlValue v = it->Get(i);
      switch (v.type) {
        case SqlValue::kNull:
          r.cells.push_back("NULL");
          break;
        case SqlValue::kInt:
          r.cells.push_back(std::to_string(v.i));
          break;
        case SqlValue::kDouble:
          r.cells.push_back(std::to_string(v.d));
          break;
        default:
          r.cells.emplace_back(v.s);
          break;
      }
    }
    out.push_back(std::move(r));
  }
  EXPECT_TRUE(it->status().ok()) << sql << ": " << it->status().message();
  return out;
}

perfetto::protos::Trace ParseTrace(const std::string& name) {
  perfetto::protos::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(ReadFileBytes(TestData(name)))) << name;
  return trace;
}

// (next_pid, prev_state) of every sched_switch and the buf of every print
// event, from libprotobuf. (Values only: the loader moves timestamps to the
// trace clock.)
struct ProtoFacts {
  std::multiset<std::pair<std::string, std::string>> switches;
  std::multiset<std::string> prints;
};

ProtoFacts FactsOf(const perfetto::protos::Trace& trace) {
  ProtoFacts f;
  for (const auto& p : trace.packet()) {
    if (!p.has_ftrace_events()) continue;
    for (const auto& e : p.ftrace_events().event()) {
      if (e.has_sched_switch())
        f.switches.insert({std::to_string(e.sched_switch().next_pid()),
                           std::to_string(e.sched_switch().prev_state())});
      if (e.has_print()) f.prints.insert(e.print().buf());
    }
  }
  return f;
}

TEST(DeferredArgs, FullEventsArgsMatchTheirProtoFields) {
  const std::string name = "android_sched_binder_10s.perfetto-trace";
  ProtoFacts facts = FactsOf(ParseTrace(name));
  ASSERT_FALSE(facts.switches.empty());
  ASSERT_FALSE(facts.prints.empty());

  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(TestData(name).string()).ok());
  // The first read of the args table is EXTRACT_ARG.
  auto switches = Rows(tp,
                       "SELECT ts, EXTRACT_ARG(arg_set_id, 'next_pid'), "
                       "EXTRACT_ARG(arg_set_id, 'prev_state') FROM ftrace_event "
                       "WHERE name = 'sched_switch'");
  int64_t dropped = 0;
  for (const auto& r : Rows(tp, "SELECT value FROM stats WHERE name = 'sched_switch_out_of_order'"))
    dropped += std::stoll(r.cells[0]);
  EXPECT_EQ(switches.size() + static_cast<size_t>(dropped), facts.switches.size());
  for (const auto& r : switches) {
    auto it = facts.switches.find({r.cells[1], r.cells[2]});
    ASSERT_NE(it, facts.switches.end()) << "sched_switch at " << r.cells[0] << " next_pid "
                                        << r.cells[1] << " prev_state " << r.cells[2];
    facts.switches.erase(it);
  }

  auto prints = Rows(tp,
                     "SELECT ts, EXTRACT_ARG(arg_set_id, 'buf') FROM ftrace_event "
                     "WHERE name = 'print'");
  EXPECT_EQ(prints.size(), facts.prints.size());
  for (const auto& r : prints) {
    auto it = facts.prints.find(r.cells[1]);
    ASSERT_NE(it, facts.prints.end()) << "print at " << r.cells[0] << ": " << r.cells[1];
    facts.prints.erase(it);
  }

  // Rows are in set order with consecutive ids, and every raw event's set
  // has rows.
  auto args = Rows(tp, "SELECT id, arg_set_id FROM args");
  ASSERT_FALSE(args.empty());
  for (size_t i = 0; i < args.size(); ++i) {
    ASSERT_EQ(args[i].cells[0], std::to_string(i));
    if (i) {
      ASSERT_LE(std::stoll(args[i - 1].cells[1]), std::stoll(args[i].cells[1]));
    }
  }
  auto orphans = Rows(tp,
                      "SELECT count(*) FROM ftrace_event e WHERE e.arg_set_id IS NOT NULL AND "
                      "NOT EXISTS (SELECT 1 FROM args a WHERE a.arg_set_id = e.arg_set_id)");
  EXPECT_EQ(orphans.at(0).cells[0], "0");
}

TEST(DeferredArgs, FirstReadIsAStringFilter) {
  // A print buffer is interned only when the deferred rows are written: a
  // string filter as the very first query must still find it.
  const std::string name = "android_sched_binder_10s.perfetto-trace";
  ProtoFacts facts = FactsOf(ParseTrace(name));
  ASSERT_FALSE(facts.prints.empty());
  const std::string buf = *facts.prints.begin();
  // One row: equal arg sets are shared, and in this trace each distinct
  // print buffer sits in one set (the oracle: 102 prints, 5 print arg sets,
  // 5 `buf` rows with 5 distinct values).
  size_t expected = 1;

  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(TestData(name).string()).ok());
  std::string quoted;
  for (char c : buf) quoted += c == '\'' ? std::string("''") : std::string(1, c);
  auto rows = Rows(tp, "SELECT key FROM args WHERE string_value = '" + quoted + "'");
  EXPECT_EQ(rows.size(), expected);
  for (const auto& r : rows) EXPECT_EQ(r.cells[0], "buf");
}

TEST(DeferredArgs, CompactSchedArgsMatchPackedArrays) {
  const std::string name = "linux_compact_sched_perf_samples.pftrace";
  perfetto::protos::Trace trace = ParseTrace(name);
  // Multiset of woken pids and of switched-to pids.
  std::map<int64_t, int> waking_pids, switch_pids;
  for (const auto& p : trace.packet()) {
    if (!p.has_ftrace_events() || !p.ftrace_events().has_compact_sched()) continue;
    const auto& cs = p.ftrace_events().compact_sched();
    for (int32_t pid : cs.waking_pid()) ++waking_pids[pid];
    for (int32_t pid : cs.switch_next_pid()) ++switch_pids[pid];
  }
  ASSERT_FALSE(waking_pids.empty());

  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(TestData(name).string()).ok());
  // Only some events become raw rows (the first switch per CPU primes the
  // state, a waking before it has no waker): every row must be one of them.
  auto count_rows = [&](const std::string& event, const char* key,
                        const std::map<int64_t, int>& proto) {
    auto rows =
        Rows(tp, "SELECT EXTRACT_ARG(arg_set_id, '" + std::string(key) +
                     "'), count(*) FROM ftrace_event WHERE name = '" + event + "' GROUP BY 1");
    int64_t total = 0;
    for (const auto& r : rows) {
      auto it = proto.find(std::stoll(r.cells[0]));
      ASSERT_NE(it, proto.end()) << event << " " << key << " " << r.cells[0];
      EXPECT_LE(std::stoll(r.cells[1]), it->second);
      total += std::stoll(r.cells[1]);
    }
    EXPECT_GT(total, 0) << event;
  };
  count_rows("sched_waking", "pid", waking_pids);
  count_rows("sched_switch", "next_pid", switch_pids);
}

// Deferred compact_sched records keep prios in 16 bits and prev_state in 32; values that
// do not fit (corrupt or future kernels) go whole to a side list. Both kinds, interleaved,
// must come back exactly as the packed arrays held them.
TEST(DeferredArgs, CompactSchedValuesTooWideForTheNarrowRecordsComeBackWhole) {
  perfetto::protos::Trace trace;
  auto* bundle = trace.add_packet()->mutable_ftrace_events();
  bundle->set_cpu(1);
  auto* cs = bundle->mutable_compact_sched();
  cs->add_intern_table("a");
  cs->add_intern_table("b");
  // (next_pid, next_prio, prev_state): the first switch only primes the CPU.
  const std::vector<std::tuple<int32_t, int32_t, int64_t>> switches = {
      {10, 120, 0},     {11, 100000, 1},      {12, 120, int64_t{1} << 40},
      {13, -70000, -1}, {14, 98, 4294967295}, {15, 120, 2}};
  uint64_t ts = 1000;
  for (const auto& [pid, prio, state] : switches) {
    cs->add_switch_timestamp(ts == 1000 ? ts : 10);
    ts += 10;
    cs->add_switch_next_pid(pid);
    cs->add_switch_next_prio(prio);
    cs->add_switch_prev_state(state);
    cs->add_switch_next_comm_index(pid % 2);
  }
  // (pid, prio, target_cpu), after the first switch so each has a waker.
  const std::vector<std::tuple<int32_t, int32_t, int32_t>> wakings = {
      {20, 120, 3}, {21, 40000, 2}, {22, 120, 70000}, {23, -40000, 0}, {24, 110, 1}};
  for (size_t i = 0; i < wakings.size(); ++i) {
    cs->add_waking_timestamp(i == 0 ? 1005 : 10);
    cs->add_waking_pid(std::get<0>(wakings[i]));
    cs->add_waking_prio(std::get<1>(wakings[i]));
    cs->add_waking_target_cpu(std::get<2>(wakings[i]));
    cs->add_waking_comm_index(0);
  }
  std::string bytes = trace.SerializeAsString();
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadBuffer(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()).ok());

  auto sw =
      Rows(tp,
           "SELECT EXTRACT_ARG(arg_set_id, 'prev_pid'), EXTRACT_ARG(arg_set_id, 'prev_prio'), "
           "EXTRACT_ARG(arg_set_id, 'prev_state'), EXTRACT_ARG(arg_set_id, 'next_pid'), "
           "EXTRACT_ARG(arg_set_id, 'next_prio'), EXTRACT_ARG(arg_set_id, 'next_comm') "
           "FROM ftrace_event WHERE name = 'sched_switch' ORDER BY ts");
  ASSERT_EQ(sw.size(), switches.size() - 1);
  for (size_t i = 1; i < switches.size(); ++i) {
    const auto& [prev_pid, prev_prio, unused] = switches[i - 1];
    const auto& [next_pid, next_prio, prev_state] = switches[i];
    const auto& c = sw[i - 1].cells;
    EXPECT_EQ(c[0], std::to_string(prev_pid)) << i;
    EXPECT_EQ(c[1], std::to_string(prev_prio)) << i;
    EXPECT_EQ(c[2], std::to_string(prev_state)) << i;
    EXPECT_EQ(c[3], std::to_string(next_pid)) << i;
    EXPECT_EQ(c[4], std::to_string(next_prio)) << i;
    EXPECT_EQ(c[5], next_pid % 2 ? "b" : "a") << i;
  }
  auto wk = Rows(tp,
                 "SELECT EXTRACT_ARG(arg_set_id, 'pid'), EXTRACT_ARG(arg_set_id, 'prio'), "
                 "EXTRACT_ARG(arg_set_id, 'target_cpu'), EXTRACT_ARG(arg_set_id, 'comm') "
                 "FROM ftrace_event WHERE name = 'sched_waking' ORDER BY ts");
  ASSERT_EQ(wk.size(), wakings.size());
  for (size_t i = 0; i < wakings.size(); ++i) {
    const auto& [pid, prio, target_cpu] = wakings[i];
    EXPECT_EQ(wk[i].cells[0], std::to_string(pid)) << i;
    EXPECT_EQ(wk[i].cells[1], std::to_string(prio)) << i;
    EXPECT_EQ(wk[i].cells[2], std::to_string(target_cpu)) << i;
    EXPECT_EQ(wk[i].cells[3], "a") << i;
  }
}

}  // namespace
}  // namespace fathom
