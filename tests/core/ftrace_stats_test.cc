// FtraceStats packets become per-machine `stats` rows, and ftrace bundles'
// last_read_event_timestamp the per-machine ftrace_latest_data_start_ns
// metadata. Expected values come from upstream's trace processor (v58.2) on
// the same text protos.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using fathom::testing::AsBytes;

std::unique_ptr<TraceProcessor> Load(const char* text) {
  perfetto::protos::Trace trace;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &trace));
  std::string bytes = trace.SerializeAsString();
  auto tp = std::make_unique<TraceProcessor>();
  EXPECT_TRUE(tp->LoadBuffer(AsBytes(bytes), bytes.size()).ok());
  return tp;
}

// The query's rows as "a,b,c;" text (NULL as "-").
std::string Rows(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  std::string out;
  if (!it->NextResultSet()) return "<" + std::string(it->status().message()) + ">";
  while (it->NextRow()) {
    for (int i = 0; i < it->column_count(); ++i) {
      SqlValue v = it->Get(i);
      if (i) out += ",";
      if (v.type == SqlValue::kNull) out += "-";
      if (v.type == SqlValue::kInt) out += std::to_string(v.i);
      if (v.type == SqlValue::kString) out += std::string(v.s);
    }
    out += ";";
  }
  return out;
}

constexpr char kBeginEnd[] = R"(
packet {
  ftrace_stats {
    phase: START_OF_TRACE
    cpu_stats { cpu: 0 entries: 7 overrun: 1 commit_overrun: 2 bytes_read: 3 oldest_event_ts: 4.5
                now_ts: 5.25 dropped_events: 6 read_events: 8 }
    cpu_stats { cpu: 1 entries: 9 }
    kprobe_stats { hits: 3 misses: 4 }
  }
  trusted_packet_sequence_id: 1
}
packet {
  ftrace_stats {
    phase: END_OF_TRACE
    cpu_stats { cpu: 0 entries: 17 overrun: 11 commit_overrun: 12 bytes_read: 13
                oldest_event_ts: 14.5 now_ts: 15.25 dropped_events: 16 read_events: 18 }
    kprobe_stats { hits: 13 misses: 14 }
  }
  trusted_packet_sequence_id: 1
  %MACHINE%
}
)";

std::string WithMachine(const char* machine) {
  std::string text = kBeginEnd;
  text.replace(text.find("%MACHINE%"), 9, machine);
  return text;
}

TEST(FtraceStats, BeginEndAndDeltaPerCpu) {
  auto tp = Load(WithMachine("").c_str());
  EXPECT_EQ(Rows(*tp,
                 "select idx, value, severity from stats where name = "
                 "'ftrace_cpu_entries_begin' order by idx"),
            "0,7,info;1,9,info;");
  EXPECT_EQ(Rows(*tp,
                 "select idx, value from stats where name = 'ftrace_cpu_now_ts_begin' "
                 "and idx = 0"),
            "0,5250000000;");
  EXPECT_EQ(Rows(*tp,
                 "select idx, value, severity from stats where name = "
                 "'ftrace_cpu_commit_overrun_delta'"),
            "0,10,error;");
  // cpu 1 has no end of trace counters, so no delta.
  EXPECT_EQ(Rows(*tp, "select count(*) from stats where name = 'ftrace_cpu_entries_delta'"), "1;");
  EXPECT_EQ(Rows(*tp,
                 "select value, severity, machine_id, trace_id from stats where name = "
                 "'ftrace_kprobe_misses_delta'"),
            "10,data_loss,0,0;");
}

TEST(FtraceStats, EachMachineKeepsItsOwnStats) {
  auto tp = Load(WithMachine("machine_id: 5").c_str());
  EXPECT_EQ(Rows(*tp,
                 "select idx, value, machine_id from stats where name = "
                 "'ftrace_cpu_entries_end'"),
            "0,17,1;");
  EXPECT_EQ(Rows(*tp,
                 "select machine_id, value from stats where name = "
                 "'ftrace_kprobe_hits_begin' order by machine_id"),
            "0,3;1,0;");
  // Start and end came from different machines: no delta.
  EXPECT_EQ(Rows(*tp,
                 "select count(*) from stats where name like 'ftrace_%_delta' and value "
                 "!= 0"),
            "0;");
}

TEST(FtraceStats, LatestDataStartIsTheLatestReadPositionPerMachine) {
  auto tp = Load(R"(
packet {
  ftrace_events { cpu: 0 event { timestamp: 1000 pid: 100 print { buf: "a" } }
                  last_read_event_timestamp: 900 }
  trusted_packet_sequence_id: 3
}
packet {
  ftrace_events { cpu: 1 event { timestamp: 1200 pid: 100 print { buf: "a" } }
                  last_read_event_timestamp: 5000 }
  trusted_packet_sequence_id: 3
}
packet {
  ftrace_events { cpu: 0 event { timestamp: 3000 pid: 100 print { buf: "a" } }
                  last_read_event_timestamp: 700 }
  trusted_packet_sequence_id: 3
}
packet {
  ftrace_events { cpu: 0 event { timestamp: 2000 pid: 200 print { buf: "b" } }
                  last_read_event_timestamp: 2000 }
  machine_id: 1001
  trusted_packet_sequence_id: 4
}
)");
  EXPECT_EQ(Rows(*tp,
                 "select int_value, machine_id, trace_id from metadata where name = "
                 "'ftrace_latest_data_start_ns' order by machine_id"),
            "5000,0,0;2000,1,0;");
}

TEST(FtraceStats, LatestDataStartIsInTraceTime) {
  auto tp = Load(R"(
packet {
  ftrace_events {
    cpu: 0
    ftrace_clock: FTRACE_CLOCK_MONO_RAW
    ftrace_timestamp: 1000
    boot_timestamp: 101000
    event { timestamp: 1000 pid: 100 print { buf: "host" } }
    last_read_event_timestamp: 900
  }
  trusted_packet_sequence_id: 3
}
)");
  EXPECT_EQ(Rows(*tp,
                 "select int_value from metadata where name = "
                 "'ftrace_latest_data_start_ns'"),
            "100900;");
}

}  // namespace
}  // namespace fathom
