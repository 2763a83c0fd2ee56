// Rules of the trace-config diagnostics that the upstream suite's cases do not
// pin (they only list keys): how confident each finding is, and what the
// recording's own evidence changes. Expected values are upstream's
// (trace_processor_shell v58.2 on the same configs).
#include "core/import/trace_diagnostics.h"

#include <gtest/gtest.h>

#include <string>

#include "core/trace_processor.h"
#include "perfetto/config/trace_config.pb.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

namespace pp = perfetto::protos;
using testing::AsBytes;
using testing::QueryInt;

pp::TraceConfig FtraceConfig(uint32_t buffer_kb, uint32_t drain_ms = 0) {
  pp::TraceConfig config;
  auto* ftrace = config.add_data_sources()->mutable_config()->mutable_ftrace_config();
  ftrace->set_buffer_size_kb(buffer_kb);
  if (drain_ms) ftrace->set_drain_period_ms(drain_ms);
  return config;
}

TEST(TraceDiagnostics, TinyBufferConfidenceFallsTowardsOneMegabyte) {
  auto found = DiagnoseTraceConfig(FtraceConfig(544), {});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].key, "tiny_ftrace_buffer");
  EXPECT_NEAR(found[0].confidence, 0.55, 1e-9);  // upstream: 0.550000
}

TEST(TraceDiagnostics, RecordedDataLossMakesBufferFindingsCertain) {
  RecordingEvidence lost;
  lost.ftrace_data_loss = true;
  auto found = DiagnoseTraceConfig(FtraceConfig(544), lost);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NEAR(found[0].confidence, 0.9, 1e-9);
}

TEST(TraceDiagnostics, DrainBandwidthConfidenceGrowsBelowFiveMegabytesPerSecond) {
  auto found = DiagnoseTraceConfig(FtraceConfig(3072, 1000), {});  // 3 MB/s
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].key, "low_ftrace_drain_bandwidth");
  EXPECT_NEAR(found[0].confidence, 0.45, 1e-9);  // upstream: 0.450000
}

TEST(TraceDiagnostics, PreservedBufferOfALateStartIsFlagged) {
  pp::TraceConfig config = FtraceConfig(8192, 250);
  config.mutable_data_sources(0)
      ->mutable_config()
      ->mutable_ftrace_config()
      ->set_preserve_ftrace_buffer(true);
  RecordingEvidence early, late;
  early.tracing_started_since_boot_ns = int64_t{60} * 1000 * 1000 * 1000;
  late.tracing_started_since_boot_ns = int64_t{400} * 1000 * 1000 * 1000;
  EXPECT_TRUE(DiagnoseTraceConfig(config, early).empty());
  auto found = DiagnoseTraceConfig(config, late);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].key, "preserve_ftrace_buffer_late_start");
  EXPECT_NEAR(found[0].confidence, 0.7, 1e-9);
}

// The same through a load: tracing_started_ns (400 s after boot) is the
// evidence (upstream finds preserve_ftrace_buffer_late_start here).
TEST(TraceDiagnostics, LoadTakesTracingStartFromTheServiceEvent) {
  pp::Trace trace;
  pp::TraceConfig config = FtraceConfig(8192, 250);
  config.mutable_data_sources(0)
      ->mutable_config()
      ->mutable_ftrace_config()
      ->set_preserve_ftrace_buffer(true);
  *trace.add_packet()->mutable_trace_config() = config;
  pp::TracePacket* started = trace.add_packet();
  started->set_timestamp(400000000000);
  started->mutable_service_event()->set_tracing_started(true);
  started->set_trusted_packet_sequence_id(1);
  std::string bytes = trace.SerializeAsString();
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadBuffer(AsBytes(bytes), bytes.size()).ok());
  EXPECT_EQ(QueryInt(tp,
                     "SELECT count(*) FROM __intrinsic_trace_diagnostics "
                     "WHERE key = 'preserve_ftrace_buffer_late_start'"),
            1);
}

// Upstream rounds SystemInfo's RAM to the nearest (decimal) gigabyte.
TEST(MachineMetadata, RamGigabytesAreRounded) {
  for (auto [bytes, gb] : {std::pair<int64_t, int64_t>{12400000000, 12},
                           {12600000000, 13},
                           {4000000001, 4},
                           {3500000000, 4}}) {
    pp::Trace trace;
    trace.add_packet()->mutable_system_info()->set_system_ram_bytes(bytes);
    std::string data = trace.SerializeAsString();
    TraceProcessor tp;
    ASSERT_TRUE(tp.LoadBuffer(AsBytes(data), data.size()).ok());
    EXPECT_EQ(QueryInt(tp, "SELECT int_value FROM metadata WHERE name = 'system_ram_gb'"), gb)
        << bytes;
    EXPECT_EQ(QueryInt(tp, "SELECT system_ram_gb FROM machine WHERE id = 0"), gb) << bytes;
  }
}

}  // namespace
}  // namespace fathom
