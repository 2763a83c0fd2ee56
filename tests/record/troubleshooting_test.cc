// record/troubleshooting: each hint fires on a real trace that carries its
// cause (textprotos under troubleshooting/, encoded with protoc at build
// time, plus a real heapprofd trace from the shared test data), and stays
// quiet where the cause is absent.
#include "record/troubleshooting.h"

#include <gtest/gtest.h>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"

namespace fathom::record {
namespace {

TraceFacts FactsOf(const std::string& path) {
  TraceProcessor tp;
  Status st = tp.LoadFile(path);
  EXPECT_TRUE(st.ok()) << path << ": " << st.message();
  return GatherTraceFacts([&tp](const std::string& sql) {
    auto it = tp.Query(sql);
    return RowsAsText(it.get());
  });
}

std::string Trace(const std::string& name) {
  return std::string(FATHOM_TROUBLESHOOTING_DIR) + "/" + name + ".pb";
}

// An Android heap profile of com.example.app on a user build.
SessionObservations AndroidHeap(const std::string& build_type = "user") {
  SessionObservations s;
  s.heap_profile = true;
  s.android = true;
  s.build_type = build_type;
  s.sdk = 34;
  s.system_perfetto = true;
  s.heap_targets = {"com.example.app"};
  s.heap_interval_bytes = 4096;
  return s;
}

std::string All(const std::vector<Hint>& hints) {
  std::string out;
  for (const auto& h : hints) out += h.Format() + "\n";
  return out;
}

bool Has(const std::vector<Hint>& hints, const std::string& text) {
  return All(hints).find(text) != std::string::npos;
}

TEST(Troubleshooting, BufferOverrunSuggestsShmemIntervalOrBlockClient) {
  const TraceFacts f = FactsOf(Trace("overran"));
  EXPECT_EQ(f.stats.count("heapprofd_buffer_overran"), 1u);
  const auto hints = Troubleshoot(AndroidHeap(), f);
  EXPECT_TRUE(Has(hints, "buffer overrun")) << All(hints);
  EXPECT_TRUE(Has(hints, "shmem_size_bytes")) << All(hints);
  EXPECT_TRUE(Has(hints, "block_client")) << All(hints);
}

TEST(Troubleshooting, RejectedConcurrentNamesTheOtherSession) {
  const auto hints = Troubleshoot(AndroidHeap(), FactsOf(Trace("rejected")));
  EXPECT_TRUE(Has(hints, "rejected_concurrent")) << All(hints);
  EXPECT_TRUE(Has(hints, "killall perfetto")) << All(hints);
  // The process is there: no name-mismatch hint.
  EXPECT_FALSE(Has(hints, "no process named")) << All(hints);
}

TEST(Troubleshooting, DisconnectedProcess) {
  const auto hints = Troubleshoot(AndroidHeap(), FactsOf(Trace("disconnected")));
  EXPECT_TRUE(Has(hints, "disconnected from the profiler")) << All(hints);
  EXPECT_FALSE(Has(hints, "buffer overrun")) << All(hints);
}

TEST(Troubleshooting, EmptyProfileOfAMissingProcessOnAUserBuild) {
  SessionObservations seen = AndroidHeap();
  seen.heap_targets = {"com.example.other"};
  const auto hints = Troubleshoot(seen, FactsOf(Trace("name_mismatch")));
  EXPECT_TRUE(Has(hints, "no process named com.example.other")) << All(hints);
  EXPECT_TRUE(Has(hints, "<profileable android:shell=\"true\"/>")) << All(hints);
  EXPECT_TRUE(Has(hints, "made no sampled allocation")) << All(hints);
  EXPECT_TRUE(Has(hints, "now 4096 bytes")) << All(hints);
  // A path's last component matches the way heapprofd matches names.
  seen.heap_targets = {"surfaceflinger"};
  EXPECT_FALSE(Has(Troubleshoot(seen, FactsOf(Trace("name_mismatch"))), "no process named"));
}

TEST(Troubleshooting, UserdebugPointsAtCriticalServicesNotTheManifest) {
  const auto hints = Troubleshoot(AndroidHeap("userdebug"), FactsOf(Trace("name_mismatch")));
  EXPECT_FALSE(Has(hints, "profileable android:shell")) << All(hints);
  EXPECT_TRUE(Has(hints, "never_profile_heap")) << All(hints);
}

TEST(Troubleshooting, LinuxEmptyProfileHasNoAndroidAdvice) {
  SessionObservations seen = AndroidHeap();
  seen.android = false;
  seen.build_type.clear();
  seen.heap_targets = {"com.example.app"};
  const auto hints = Troubleshoot(seen, FactsOf(Trace("disconnected")));
  EXPECT_FALSE(Has(hints, "profileable")) << All(hints);
  EXPECT_TRUE(Has(hints, "made no sampled allocation")) << All(hints);
}

TEST(Troubleshooting, TraceBufferLossFromTraceStats) {
  SessionObservations seen;
  seen.android = true;
  const TraceFacts f = FactsOf(Trace("buffer_loss"));
  const auto hints = Troubleshoot(seen, f);
  EXPECT_TRUE(Has(hints, "the trace buffer filled up")) << All(hints);
}

TEST(Troubleshooting, RealHeapprofdTraceIsQuiet) {
  // A real continuous-dump heapprofd trace: samples present, nothing to say.
  const TraceFacts f =
      FactsOf(std::string(FATHOM_SHARED_DIR) + "/testdata/heapprofd_continuous_legacy.pb");
  EXPECT_GT(f.heap_samples, 0);
  SessionObservations seen = AndroidHeap();
  seen.heap_targets.clear();
  const auto hints = Troubleshoot(seen, f);
  EXPECT_FALSE(Has(hints, "heap profile")) << All(hints);
  EXPECT_FALSE(Has(hints, "buffer overrun")) << All(hints);
}

TEST(Troubleshooting, ErrorsNameSelinuxTracedAndDebuggable) {
  SessionObservations seen;
  seen.android = true;
  seen.sdk = 30;
  EXPECT_TRUE(Has(TroubleshootError(seen, "the recorder did not start: avc: denied { read }"),
                  "setenforce 0"));
  EXPECT_TRUE(Has(TroubleshootError(seen, "perfetto: Could not connect to the traced socket"),
                  "persist.traced.enable 1"));
  seen.sdk = 28;
  seen.system_perfetto = true;
  EXPECT_TRUE(Has(TroubleshootError(seen, "perfetto exited with 1"), "persist.traced.enable 1"));
  EXPECT_TRUE(Has(TroubleshootError(seen,
                                    "com.x is not debuggable; Java allocation sampling needs "
                                    "android:debuggable=true"),
                  "android:debuggable=\"true\""));
  EXPECT_TRUE(TroubleshootError(seen, "lost the connection to the target").empty());
}

// Each asked-for source that put nothing in the trace is named, with its fix; a source
// that did record stays quiet. The real Linux trace has sched and perf samples; the
// heapprofd-only trace has neither.
TEST(Troubleshooting, EmptySourcesAreNamedWithTheirFix) {
  SessionObservations seen;
  seen.sources = {"linux.ftrace", "linux.perf", "linux.process_stats"};
  const TraceFacts empty =
      FactsOf(std::string(FATHOM_SHARED_DIR) + "/testdata/heapprofd_continuous_legacy.pb");
  auto hints = Troubleshoot(seen, empty);
  EXPECT_TRUE(Has(hints, "linux.ftrace gave no events")) << All(hints);
  EXPECT_TRUE(Has(hints, "mount -t tracefs")) << All(hints);
  EXPECT_TRUE(Has(hints, "linux.perf gave no CPU samples")) << All(hints);
  EXPECT_TRUE(Has(hints, "perf_event_paranoid")) << All(hints);

  const TraceFacts full = FactsOf(std::string(FATHOM_SHARED_DIR) +
                                  "/testdata/linux_compact_sched_perf_samples.pftrace");
  EXPECT_GT(full.source_rows.at("linux.perf"), 0);
  hints = Troubleshoot(seen, full);
  EXPECT_FALSE(Has(hints, "linux.ftrace")) << All(hints);
  EXPECT_FALSE(Has(hints, "linux.perf")) << All(hints);

  seen.sources = {"linux.process_stats"};  // not asked for: nothing said about them
  EXPECT_FALSE(Has(Troubleshoot(seen, empty), "linux.perf")) << All(hints);
}

TEST(Troubleshooting, RecorderRefusalsNameTracefsAndPerf) {
  SessionObservations seen;
  EXPECT_TRUE(Has(TroubleshootError(seen, "permission denied: cannot write /sys/kernel/tracing"),
                  "chmod -R a+rwX /sys/kernel/tracing"));
  EXPECT_TRUE(Has(TroubleshootError(seen, "linux.perf: cannot sample (Permission denied)"),
                  "perf_event_paranoid"));
}

}  // namespace
}  // namespace fathom::record
