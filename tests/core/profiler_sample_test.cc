// The generic profiler sample model (__intrinsic_profiler_* tables and the
// perf_sample / perf_counter_track / stack_sample* views) for PerfSample
// counters and StackSample streams. Expected rows were produced by upstream's
// trace_processor_shell v58.2 on the same traces.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using namespace fathom::testing;
using Rows = std::vector<std::string>;

std::unique_ptr<TraceProcessor> LoadText(const std::string& text) {
  perfetto::protos::Trace trace;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &trace));
  std::string bytes = trace.SerializeAsString();
  auto tp = std::make_unique<TraceProcessor>();
  Status st = tp->LoadBuffer(AsBytes(bytes), bytes.size());
  EXPECT_TRUE(st.ok()) << st.message();
  return tp;
}

// Three perf streams: one with followers of every event kind (counter,
// named, tracepoint), one on cpu-clock with a period, one without defaults.
constexpr const char* kPerfTrace = R"(
packet { trusted_packet_sequence_id: 1 incremental_state_cleared: true timestamp: 1000
  trace_packet_defaults { perf_sample_defaults {
    timebase { counter: HW_CPU_CYCLES frequency: 1000 }
    followers { counter: SW_PAGE_FAULTS }
    followers { name: "myfollow" counter: HW_CACHE_MISSES }
    followers { tracepoint { name: "sched:sched_switch" } } } }
  interned_data {
    function_names { iid: 1 str: "f1" }
    mappings { iid: 1 }
    frames { iid: 1 mapping_id: 1 rel_pc: 16 function_name_id: 1 }
    callstacks { iid: 1 frame_ids: 1 } } }
packet { trusted_packet_sequence_id: 1 timestamp: 3000 perf_sample { cpu: 1 pid: 1 tid: 42
  cpu_mode: MODE_UNKNOWN timebase_count: 5 follower_counts: 6 follower_counts: 7
  follower_counts: 8 callstack_iid: 1 } }
packet { trusted_packet_sequence_id: 1 timestamp: 3500
  perf_sample { pid: 1 tid: 42 timebase_count: 5 follower_counts: 6 } }
packet { trusted_packet_sequence_id: 1 timestamp: 4000 perf_sample { cpu: 2 pid: 1 tid: 42
  sample_skipped_reason: PROFILER_SKIP_NOT_IN_SCOPE } }
packet { trusted_packet_sequence_id: 1 timestamp: 4500
  perf_sample { cpu: 2 pid: 1 tid: 42 cpu_mode: MODE_KERNEL kernel_records_lost: 3 } }
packet { trusted_packet_sequence_id: 2 timestamp: 5000 incremental_state_cleared: true
  trace_packet_defaults { perf_sample_defaults { timebase { counter: SW_CPU_CLOCK period: 5 } } } }
packet { trusted_packet_sequence_id: 2 timestamp: 6000
  perf_sample { cpu: 2 pid: 1 tid: 43 cpu_mode: MODE_KERNEL timebase_count: 9 } }
packet { trusted_packet_sequence_id: 3 timestamp: 6000
  perf_sample { cpu: 2 pid: 1 tid: 43 cpu_mode: MODE_USER timebase_count: 9 } }
)";

TEST(ProfilerSampleTest, PerfSamplesCarryCounterSetsOnPerCpuTracks) {
  auto tp = LoadText(kPerfTrace);
  EXPECT_EQ(JoinedRows(*tp,
                       "select id, ts, cpu, cpu_mode, callsite_id is not null, "
                       "perf_session_id from perf_sample order by id"),
            (Rows{"0|3000|1|unknown|1|0", "1|3500|NULL|unknown|0|0", "2|4000|2|unknown|0|0",
                  "3|6000|2|kernel|0|1", "4|6000|2|user|0|2"}));
  EXPECT_EQ(JoinedRows(*tp, "select source, timebase_unit from __intrinsic_profiler_session"),
            (Rows{"linux.perf|cycles", "linux.perf|ns", "linux.perf|ns"}));
  EXPECT_EQ(JoinedRows(*tp, "select perf_session_id from perf_session"), (Rows{"0", "1", "2"}));
  EXPECT_EQ(JoinedRows(*tp, "select ucpu, cpu_mode from __intrinsic_profiler_execution_context"),
            (Rows{"1|NULL", "2|NULL", "2|kernel", "2|user"}));
  EXPECT_EQ(JoinedRows(*tp,
                       "select execution_context_id, session_id, counter_set_id "
                       "from __intrinsic_profiler_sample"),
            (Rows{"0|0|0", "NULL|0|4", "1|0|NULL", "2|1|6", "3|2|7"}));
  EXPECT_EQ(
      JoinedRows(*tp,
                 "select name, perf_session_id, cpu, is_timebase "
                 "from perf_counter_track order by id"),
      (Rows{"cpu-cycles|0|1|1", "page-faults|0|1|0", "myfollow|0|1|0", "sched:sched_switch|0|1|0",
            "cpu-cycles|0|0|1", "page-faults|0|0|0", "myfollow|0|0|0", "sched:sched_switch|0|0|0",
            "cpu-cycles|0|2|1", "page-faults|0|2|0", "myfollow|0|2|0", "sched:sched_switch|0|2|0",
            "cpu-clock|1|2|1", "cpu-clock|2|2|1"}));
  EXPECT_EQ(JoinedRows(*tp,
                       "select c.ts, t.name, t.cpu, cast(c.value as int) from counter c "
                       "join perf_counter_track t on c.track_id = t.id order by c.id"),
            (Rows{"3000|cpu-cycles|1|5", "3000|page-faults|1|6", "3000|myfollow|1|7",
                  "3000|sched:sched_switch|1|8", "3500|cpu-cycles|0|5", "3500|page-faults|0|6",
                  "6000|cpu-clock|2|9", "6000|cpu-clock|2|9"}));
  EXPECT_EQ(JoinedRows(*tp,
                       "select counter_set_id, counter_id from "
                       "__intrinsic_profiler_counter_set"),
            (Rows{"0|0", "0|1", "0|2", "0|3", "4|4", "4|5", "6|6", "7|7"}));
  // Samples with a callstack are stack samples too, with their counters.
  EXPECT_EQ(JoinedRows(*tp, "select id, source, session_id from stack_sample"),
            (Rows{"0|linux.perf|0"}));
  EXPECT_EQ(JoinedRows(*tp, "select stack_sample_id, cast(value as int) from stack_sample_counter"),
            (Rows{"0|5", "0|6", "0|7", "0|8"}));
  EXPECT_EQ(JoinedRows(*tp, "select id, session_id, cpu from stack_sample_counter_track"),
            (Rows{"0|0|1", "1|0|1", "2|0|1", "3|0|1"}));
  EXPECT_EQ(JoinedRows(*tp, "select id, timebase_unit from stack_sample_session"),
            (Rows{"0|cycles"}));
}

// StackSample streams: units by enum and by string, interned contexts and
// descriptors, follower weights, samples without a callstack.
constexpr const char* kStackTrace = R"(
packet { trusted_packet_sequence_id: 1 incremental_state_cleared: true timestamp: 1000
  trace_packet_defaults { stack_sample_defaults { source: "s4"
    primary_descriptor { name: "p4" unit: UNIT_BYTES } } } }
packet { trusted_packet_sequence_id: 1 timestamp: 2000
  stack_sample { primary_weight: 3 callstack { frames { function_name: "x" } } } }
packet { trusted_packet_sequence_id: 20 incremental_state_cleared: true timestamp: 1000
  trace_packet_defaults { stack_sample_defaults {
    primary_descriptor { name: "pm" unit_str: "widgets" unit_multiplier: 7 description: "dd" }
    follower_descriptors { name: "f1" unit: UNIT_BYTES unit_multiplier: 3 } } } }
packet { trusted_packet_sequence_id: 20 timestamp: 2000 stack_sample { primary_weight: 3
  follower_weights: 5 follower_weights: 6 unwind_error: "boom" task_context { pid: 5 }
  execution_context { cpu: 3 } } }
packet { trusted_packet_sequence_id: 20 timestamp: 2500 stack_sample { follower_weights: 5
  task_context { tid: 9 } execution_context { mode: MODE_GUEST_USER } } }
packet { trusted_packet_sequence_id: 21 incremental_state_cleared: true timestamp: 3000
  interned_data {
    stack_sample_task_contexts { iid: 1 pid: 5 tid: 6 }
    stack_sample_execution_contexts { iid: 2 cpu: 1 mode: MODE_HYPERVISOR }
    stack_sample_counter_descriptors { iid: 3 name: "alt" unit: UNIT_CPU_CYCLES } }
  stack_sample { task_context_iid: 1 execution_context_iid: 2 primary_descriptor_iid: 3
    primary_weight: 11 callstack { frames { function_name: "y" source_file: "f" } frames { } } } }
packet { trusted_packet_sequence_id: 21 timestamp: 3100
  stack_sample { primary_weight: 12 primary_descriptor { name: "inl" unit: UNIT_COUNT } } }
packet { trusted_packet_sequence_id: 21 timestamp: 3200 stack_sample { primary_weight: 13 } }
)";

TEST(ProfilerSampleTest, StackSampleStreamsAreSessionsWithCounterTracks) {
  auto tp = LoadText(kStackTrace);
  EXPECT_EQ(JoinedRows(*tp, "select id, source, timebase_unit from __intrinsic_profiler_session"),
            (Rows{"0|s4|bytes", "1|NULL|widgets", "2|NULL|cycles"}));
  EXPECT_EQ(JoinedRows(*tp,
                       "select ts, source, task_context_id, execution_context_id, "
                       "callsite_id, unwind_error, session_id, counter_set_id "
                       "from __intrinsic_profiler_sample"),
            (Rows{"2000|s4|NULL|NULL|0|NULL|0|0", "2000|NULL|0|0|NULL|NULL|1|1",
                  "2500|NULL|1|1|NULL|NULL|1|3", "3000|NULL|2|2|2|NULL|2|4",
                  "3100|NULL|NULL|NULL|NULL|NULL|2|5", "3200|NULL|NULL|NULL|NULL|NULL|2|NULL"}));
  EXPECT_EQ(JoinedRows(*tp,
                       "select t.name, t.unit, cast(c.value as int) from counter c "
                       "join counter_track t on c.track_id = t.id order by c.id"),
            (Rows{"p4|bytes|3", "pm|widgets|3", "f1|bytes|5", "f1|bytes|5", "alt|cycles|11",
                  "inl|count|12"}));
  // Only sessions, tracks and contexts of samples with a callstack.
  EXPECT_EQ(JoinedRows(*tp, "select id, timebase_unit from stack_sample_session"),
            (Rows{"0|bytes", "2|cycles"}));
  EXPECT_EQ(JoinedRows(*tp,
                       "select name, unit, session_id, is_timebase "
                       "from stack_sample_counter_track"),
            (Rows{"p4|bytes|0|1", "alt|cycles|2|1"}));
  EXPECT_EQ(JoinedRows(*tp,
                       "select t.tid, p.pid from stack_sample_task_context c "
                       "join thread t using(utid) join process p on p.upid = c.upid"),
            (Rows{"6|5"}));
  EXPECT_EQ(JoinedRows(*tp, "select ucpu, cpu_mode from stack_sample_execution_context"),
            (Rows{"1|hypervisor"}));
  EXPECT_EQ(JoinedRows(*tp,
                       "select m.name, m.end, f.name, s.source_file "
                       "from stack_profile_frame f join stack_profile_mapping m "
                       "on f.mapping = m.id join stack_profile_symbol s "
                       "using(symbol_set_id) order by f.id"),
            (Rows{"stack_sample_inline|-1|x|NULL", "stack_sample_inline|-1|y|f",
                  "stack_sample_inline|-1|NULL|NULL"}));
}

}  // namespace
}  // namespace fathom
