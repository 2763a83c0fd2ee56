// thread_state rows made by wakings, as upstream's trace processor (v58.2)
// makes them: expected values are the oracle's answers on the same text
// protos.
// - Only sched_waking opens an "R" row; sched_wakeup and sched_wakeup_new
//   stay raw ftrace_event rows and make no thread.
// - waker_id is the waker's Running row at the waking, NULL when the waker
//   has none (idle, not seen running yet, or last seen runnable).
// - irq_context comes from compact_sched's waking flags (hard or soft irq
//   set: 1); a full sched_waking event's flags are not used (NULL).
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using Rows = std::vector<std::string>;

std::unique_ptr<TraceProcessor> Load(const char* text) {
  perfetto::protos::Trace trace;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &trace));
  std::string bytes = trace.SerializeAsString();
  auto tp = std::make_unique<TraceProcessor>();
  EXPECT_TRUE(tp->LoadBuffer(testing::AsBytes(bytes), bytes.size()).ok());
  return tp;
}

constexpr char kStates[] =
    "select id, ts, utid, state, waker_utid, waker_id, irq_context from thread_state order by id";

TEST(SchedWakingState, FullEventsWakerIdAndNoIrqContext) {
  auto tp = Load(R"(
packet { ftrace_events { cpu: 0
  event { timestamp: 1000 pid: 0 sched_switch { prev_comm: "swapper/0" prev_pid: 0
          prev_prio: 120 prev_state: 0 next_comm: "a" next_pid: 10 next_prio: 120 } }
  event { timestamp: 1500 pid: 10 sched_wakeup { comm: "x" pid: 20 prio: 120 target_cpu: 0 } }
  event { timestamp: 1600 pid: 10 sched_wakeup_new { comm: "y" pid: 21 prio: 120 } }
  event { timestamp: 2000 pid: 10 sched_waking { comm: "b" pid: 11 prio: 120 target_cpu: 0 } }
  event { timestamp: 3000 pid: 10 common_flags: 16
          sched_waking { comm: "c" pid: 12 prio: 120 target_cpu: 0 } }
  event { timestamp: 7000 pid: 99 sched_waking { comm: "g" pid: 16 prio: 120 target_cpu: 0 } }
} })");
  EXPECT_EQ(testing::JoinedRows(*tp, kStates, ""),
            (Rows{"0|1000|1|Running|||", "1|2000|2|R|1|0|", "2|3000|3|R|1|0|", "3|7000|5|R|4||"}));
  EXPECT_EQ(testing::QueryInt(*tp, "select count(*) from thread where tid in (20, 21)"), 0);
  EXPECT_EQ(
      testing::QueryInt(*tp, "select count(*) from ftrace_event where name glob 'sched_wak*'"), 5);
}

TEST(SchedWakingState, CompactWakingsIrqContextFromFlags) {
  auto tp = Load(R"(
packet { ftrace_events { cpu: 0
  compact_sched {
    intern_table: "a" intern_table: "b"
    switch_timestamp: 1000 switch_prev_state: 0 switch_next_pid: 10 switch_next_prio: 120
    switch_next_comm_index: 0
    waking_timestamp: 2000 waking_timestamp: 1000 waking_timestamp: 1000
    waking_timestamp: 1000 waking_timestamp: 1000
    waking_pid: 11 waking_pid: 12 waking_pid: 13 waking_pid: 14 waking_pid: 15
    waking_target_cpu: 0 waking_target_cpu: 0 waking_target_cpu: 0 waking_target_cpu: 0
    waking_target_cpu: 0
    waking_prio: 120 waking_prio: 120 waking_prio: 120 waking_prio: 120 waking_prio: 120
    waking_comm_index: 1 waking_comm_index: 1 waking_comm_index: 1 waking_comm_index: 1
    waking_comm_index: 1
    waking_common_flags: 0 waking_common_flags: 1 waking_common_flags: 8
    waking_common_flags: 16 waking_common_flags: 32
  }
} })");
  EXPECT_EQ(testing::JoinedRows(*tp, kStates, ""),
            (Rows{"0|2000|2|R|1||0", "1|3000|3|R|1||0", "2|4000|4|R|1||1", "3|5000|5|R|1||1",
                  "4|6000|6|R|1||0"}));
}

}  // namespace
}  // namespace fathom
