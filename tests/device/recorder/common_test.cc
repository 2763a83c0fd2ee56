// device/common: the generated field constants, the protobuf writer, the text-format parser
// and the crash-safe trace writer, each checked against libprotobuf.
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "gen/perfetto_fields.h"
#include "perfetto/config/trace_config.pb.h"
#include "perfetto/trace/trace.pb.h"
#include "proto_reader.h"
#include "proto_writer.h"
#include "test_util.h"
#include "text_format.h"
#include "trace_writer.h"

// Every generated constant equals protoc's (a compile error otherwise).
#include "gen_field_asserts.inc"

namespace fathom::recorder_test {
namespace {

using device::ProtoWriter;
namespace pp = perfetto::protos;

TEST(ProtoWriter, NestedMessagesParseWithLibprotobuf) {
  ProtoWriter w;
  w.Varint(pf::TracePacket::kTimestampFieldNumber, 1234567890123ull);
  size_t stats = w.BeginNested(pf::TracePacket::kProcessStatsFieldNumber);
  for (int pid : {1, 42, 99999}) {
    size_t p = w.BeginNested(pf::ProcessStats::kProcessesFieldNumber);
    w.Int(pf::ProcessStats::Process::kPidFieldNumber, pid);
    w.Varint(pf::ProcessStats::Process::kVmRssKbFieldNumber, 1000u * pid);
    w.Int(pf::ProcessStats::Process::kOomScoreAdjFieldNumber, -900);
    w.EndNested(p);
  }
  w.EndNested(stats);
  size_t bundle = w.BeginNested(pf::TracePacket::kFtraceEventsFieldNumber);
  size_t cs = w.BeginNested(pf::FtraceEventBundle::kCompactSchedFieldNumber);
  std::vector<int64_t> states = {0, 1, -1, 256};
  w.PackedVarints(pf::FtraceEventBundle::CompactSched::kSwitchPrevStateFieldNumber, states);
  w.EndNested(cs);
  w.EndNested(bundle);
  std::string big(100000, 'x');  // a nested length needing all 4 bytes' worth of varint
  size_t si = w.BeginNested(pf::TracePacket::kSystemInfoFieldNumber);
  w.String(pf::SystemInfo::kAndroidBuildFingerprintFieldNumber, big);
  w.EndNested(si);

  pp::TracePacket packet;
  ASSERT_TRUE(packet.ParseFromString(w.data()));
  EXPECT_EQ(packet.timestamp(), 1234567890123ull);
  ASSERT_EQ(packet.process_stats().processes_size(), 3);
  EXPECT_EQ(packet.process_stats().processes(2).pid(), 99999);
  EXPECT_EQ(packet.process_stats().processes(2).vm_rss_kb(), 99999000u);
  EXPECT_EQ(packet.process_stats().processes(0).oom_score_adj(), -900);
  const auto& c = packet.ftrace_events().compact_sched();
  ASSERT_EQ(c.switch_prev_state_size(), 4);
  EXPECT_EQ(c.switch_prev_state(2), -1);
  EXPECT_EQ(c.switch_prev_state(3), 256);
  EXPECT_EQ(packet.system_info().android_build_fingerprint(), big);
}

TEST(ProtoReader, ReadsWhatLibprotobufWrites) {
  pp::TraceConfig config;
  config.set_duration_ms(1234);
  config.add_data_sources()->mutable_config()->set_name("linux.sys_stats");
  std::string bytes = config.SerializeAsString();
  device::ProtoReader r(bytes);
  int fields = 0;
  for (device::ProtoField f; r.Next(&f);) {
    fields++;
    if (f.number == pf::TraceConfig::kDurationMsFieldNumber) {
      EXPECT_EQ(f.value, 1234u);
    }
  }
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(fields, 2);
  std::string broken = bytes.substr(0, bytes.size() - 6);  // cuts into the name
  device::ProtoReader bad(broken);
  for (device::ProtoField f; bad.Next(&f);) {
  }
  EXPECT_FALSE(bad.ok());
}

const char kRichConfig[] = R"(
# A comment.
buffers: { size_kb: 63488 fill_policy: DISCARD }
buffers { size_kb: 2048 }
duration_ms: 10000
write_into_file: true
file_write_period_ms: 2500
max_file_size_bytes: 100000000
data_sources {
  config {
    name: "linux.ftrace"
    ftrace_config {
      ftrace_events: "sched/sched_switch"
      ftrace_events: "power/*"
      atrace_categories: ["gfx", "view"]
      atrace_apps: 'com.example.app'
      buffer_size_kb: 4096
      compact_sched < enabled: true >
    }
  }
}
data_sources: {
  config {
    name: "linux.sys_stats"
    sys_stats_config {
      meminfo_period_ms: 100
      meminfo_counters: MEMINFO_MEM_TOTAL
      meminfo_counters: 2
      stat_counters: STAT_CPU_TIMES;
    }
  }
}
builtin_data_sources { primary_trace_clock: BUILTIN_CLOCK_MONOTONIC }
unique_session_name: "tab\tand \"quote\" \x41\101"
)";

TEST(TextFormat, MatchesLibprotobuf) {
  Result<std::string> ours = device::TextFormatToBinary(kRichConfig, "TraceConfig");
  ASSERT_TRUE(ours.ok()) << ours.status().message();
  pp::TraceConfig from_ours, from_lib;
  ASSERT_TRUE(from_ours.ParseFromString(*ours));
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kRichConfig, &from_lib));
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(from_ours, from_lib))
      << from_ours.DebugString() << "\nvs\n"
      << from_lib.DebugString();
  EXPECT_EQ(from_ours.unique_session_name(), "tab\tand \"quote\" AA");
}

TEST(TextFormat, ErrorsNameTheLine) {
  Result<std::string> r =
      device::TextFormatToBinary("duration_ms: 5\n\nduraton_ms: 3\n", "TraceConfig");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "config line 3: unknown field 'duraton_ms' in TraceConfig");
  r = device::TextFormatToBinary("buffers { fill_policy: SOMETIMES }", "TraceConfig");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("unknown value 'SOMETIMES'"), std::string::npos);
  r = device::TextFormatToBinary("buffers { size_kb: 1", "TraceConfig");
  EXPECT_FALSE(r.ok());
}

std::string Packet(int i) {
  pp::TracePacket p;
  p.set_timestamp(static_cast<uint64_t>(i));
  p.mutable_system_info()->set_android_build_fingerprint(std::string(100, 'a' + i % 26));
  return p.SerializeAsString();
}

TEST(TraceWriter, FlushesWholePacketsAndStopsAtMaxSize) {
  TempDir dir;
  std::string path = dir / "t.pftrace";
  device::TraceWriterOptions o;
  o.max_file_size_bytes = 1000;
  o.sync_on_flush = false;
  auto w = device::TraceWriter::Open(path, o);
  ASSERT_TRUE(w.ok());
  int accepted = 0;
  for (int i = 0; i < 20; i++) {
    if ((*w)->AppendPacket(Packet(i)).ok()) accepted++;
    if (i == 3) {
      // Before a flush nothing is on disk; after it, exactly the 4 packets.
      EXPECT_EQ(ReadFileOrDie(path).size(), 0u);
      ASSERT_TRUE((*w)->Flush().ok());
      pp::Trace t;
      ASSERT_TRUE(ParseTrace(path, &t));
      EXPECT_EQ(t.packet_size(), 4);
    }
  }
  EXPECT_TRUE((*w)->full());
  ASSERT_TRUE((*w)->Close().ok());
  std::string data = ReadFileOrDie(path);
  EXPECT_LE(data.size(), 1000u);
  pp::Trace t;
  ASSERT_TRUE(t.ParseFromString(data));
  EXPECT_EQ(t.packet_size(), accepted);
  EXPECT_EQ(t.packet(accepted - 1).timestamp(), static_cast<uint64_t>(accepted - 1));
}

TEST(TraceWriter, OpenErrorIsOneLine) {
  auto w = device::TraceWriter::Open("/nonexistent-dir/x.pftrace", {});
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().message(),
            "cannot create /nonexistent-dir/x.pftrace: No such file or directory");
}

}  // namespace
}  // namespace fathom::recorder_test
