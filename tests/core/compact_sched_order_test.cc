// compact_sched bundles reach the parser in timestamp order whichever way
// the sorter stages them: a bundle that continues its CPU's earlier ones is
// queued as one run of its bytes, one that starts earlier goes event by
// event. Ties follow upstream's order (as its trace_processor_shell gives
// it for this trace): a CPU's compact switches and its compact wakings are
// separate sources, and at equal ts the source that emitted the event
// before goes on first.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {
namespace {

struct Compact {
  uint32_t cpu;
  std::vector<uint64_t> switch_ts;  // absolute; written as deltas
  std::vector<int32_t> switch_pid;
  std::vector<uint64_t> waking_ts;
  std::vector<int32_t> waking_pid;
};

void AddBundle(perfetto::protos::Trace* trace, const Compact& b) {
  auto* bundle = trace->add_packet()->mutable_ftrace_events();
  bundle->set_cpu(b.cpu);
  auto* cs = bundle->mutable_compact_sched();
  cs->add_intern_table("comm_a");
  cs->add_intern_table("comm_b");
  uint64_t prev = 0;
  for (size_t i = 0; i < b.switch_ts.size(); ++i) {
    cs->add_switch_timestamp(b.switch_ts[i] - prev);
    prev = b.switch_ts[i];
    cs->add_switch_prev_state(1);
    cs->add_switch_next_pid(b.switch_pid[i]);
    cs->add_switch_next_prio(120);
    cs->add_switch_next_comm_index(static_cast<uint32_t>(b.switch_pid[i] % 2));
  }
  prev = 0;
  for (size_t i = 0; i < b.waking_ts.size(); ++i) {
    cs->add_waking_timestamp(b.waking_ts[i] - prev);
    prev = b.waking_ts[i];
    cs->add_waking_pid(b.waking_pid[i]);
    cs->add_waking_target_cpu(0);
    cs->add_waking_prio(120);
    cs->add_waking_comm_index(static_cast<uint32_t>(b.waking_pid[i] % 2));
  }
}

TEST(CompactSched, BundleRunsMergeInTimestampOrder) {
  perfetto::protos::Trace trace;
  AddBundle(&trace, {0, {1000, 2000}, {10, 11}, {1000, 1500}, {20, 21}});
  AddBundle(&trace, {1, {1500}, {30}, {1500}, {31}});
  AddBundle(&trace, {0, {3000}, {12}, {2500}, {22}});
  AddBundle(&trace, {0, {1200}, {13}, {1200}, {23}});  // behind cpu 0's earlier bundles
  std::string bytes = trace.SerializeAsString();

  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadBuffer(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()).ok());
  auto it = tp.Query(
      "SELECT ts, name, cpu, COALESCE(EXTRACT_ARG(arg_set_id, 'next_pid'), "
      "EXTRACT_ARG(arg_set_id, 'pid')), COALESCE(EXTRACT_ARG(arg_set_id, 'next_comm'), "
      "EXTRACT_ARG(arg_set_id, 'comm')) FROM ftrace_event ORDER BY id");
  ASSERT_TRUE(it->NextResultSet()) << it->status().message();
  std::vector<std::string> rows;
  while (it->NextRow()) {
    rows.push_back(std::to_string(it->Get(0).i) + " " + std::string(it->Get(1).s) + " " +
                   std::to_string(it->Get(2).i) + " " + std::to_string(it->Get(3).i) + " " +
                   std::string(it->Get(4).s));
  }
  // The first switch per CPU only tells who runs (no row).
  std::vector<std::string> expected = {
      "1000 sched_waking 0 20 comm_a", "1200 sched_waking 0 23 comm_b",
      "1200 sched_switch 0 13 comm_b", "1500 sched_waking 0 21 comm_b",
      "1500 sched_waking 1 31 comm_b", "2000 sched_switch 0 11 comm_b",
      "2500 sched_waking 0 22 comm_a", "3000 sched_switch 0 12 comm_a",
  };
  EXPECT_EQ(rows, expected);
  EXPECT_EQ(tp.storage().stats.Get(Stat::kSchedSwitchOutOfOrder), 0);
}

}  // namespace
}  // namespace fathom
