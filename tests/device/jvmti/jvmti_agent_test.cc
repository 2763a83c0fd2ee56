// libfathom_jvmti.so under the Debian JDK: AllocWorkload allocates known
// objects on known paths; the log must name the classes, methods and threads
// with estimated totals close to the truth, and the core must import it into
// a Java allocation flamegraph.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "core/import/art_alloc_log_parser.h"
#include "core/trace_processor.h"

namespace fathom {
namespace {

struct RunResult {
  int exit_code = -1;
  std::string output;  // stdout + stderr
};

RunResult RunCommand(const std::string& cmd) {
  RunResult r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.output.append(buf, n);
  int st = pclose(p);
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

class JvmtiAgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fathom_jvmti_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs the workload with `agent_args` (log path appended by the caller).
  RunResult RunWorkload(const std::string& agent_args, const std::string& jvm_flags,
                        const std::string& workload_args) {
    std::string cmd = std::string("'") + FATHOM_JAVA + "' " + jvm_flags +
                      " '-agentpath:" + FATHOM_JVMTI_AGENT + "=" + agent_args + "' -cp '" +
                      FATHOM_JVMTI_CLASSES + "' AllocWorkload " + workload_args;
    return RunCommand(cmd);
  }

  static ArtAllocLogParser ParseLog(const std::string& path) {
    ArtAllocLogParser p;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) p.ParseLine(line);
    return p;
  }

  std::string dir_;
};

// Estimated (count, bytes) per allocated class whose stack contains `method`,
// and the threads those samples came from.
struct SiteTotals {
  double count = 0, bytes = 0;
  int64_t samples = 0, object_size = 0;
  std::map<std::string, int64_t> threads;
};
SiteTotals Totals(const ArtAllocLogParser& p, const std::string& class_sig,
                  const std::string& method) {
  SiteTotals t;
  for (const auto& [stack_id, samples] : p.samples()) {
    const std::vector<int64_t>& ids = *p.Stack(stack_id);
    const ArtAllocType& type = *p.Type(ids[0]);
    if (type.class_signature != class_sig) continue;
    bool has_method = false;
    for (size_t i = 1; i < ids.size(); ++i)
      has_method |= p.Frame(ids[i])->find(method) != std::string::npos;
    if (!has_method) continue;
    double w = ArtSampleWeight(p.header(), type.size) * static_cast<double>(samples);
    t.count += w;
    t.bytes += w * static_cast<double>(type.size);
    t.samples += samples;
    t.object_size = type.size;
    t.threads[type.thread] += samples;
  }
  return t;
}

TEST_F(JvmtiAgentTest, ByteIntervalModeFindsTheKnownSitesWithPlausibleTotals) {
  const int kPoints = 2000000, kBuffers = 50000;
  std::string log = dir_ + "/bytes.log";
  RunResult r = RunWorkload("32768,64," + log + ",bytes", "",
                            std::to_string(kPoints) + " " + std::to_string(kBuffers) + " 0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ArtAllocLogParser p = ParseLog(log);
  EXPECT_EQ(p.malformed_count(), 0u);
  ASSERT_TRUE(p.header().present);
  EXPECT_TRUE(p.header().complete) << "no '# end' line: VMDeath did not flush";
  EXPECT_EQ(p.header().mode, ArtAllocLogHeader::kBytes);
  EXPECT_EQ(p.header().rate, 32768);
  EXPECT_EQ(p.header().process, "AllocWorkload");

  // Points: ~48 MB in 24-byte objects -> ~1500 samples, so the estimate's
  // relative standard error is ~2.6 %; 25 % leaves room for TLAB effects.
  SiteTotals points = Totals(p, "LAllocWorkload$Point;", "AllocWorkload.makePoints(I)V");
  ASSERT_GT(points.samples, 0) << "no Point samples under makePoints";
  EXPECT_NEAR(points.count / kPoints, 1.0, 0.25) << points.count;
  EXPECT_NEAR(points.bytes / (double(kPoints) * points.object_size), 1.0, 0.25);
  EXPECT_EQ(points.threads.size(), 1u);
  EXPECT_EQ(points.threads.begin()->first, "main");

  SiteTotals buffers = Totals(p, "[B", "AllocWorkload.fillBuffers(I)V");
  ASSERT_GT(buffers.samples, 0) << "no byte[] samples under fillBuffers";
  EXPECT_GE(buffers.object_size, 1000);
  EXPECT_NEAR(buffers.count / kBuffers, 1.0, 0.25) << buffers.count;
  EXPECT_EQ(buffers.threads.begin()->first, "alloc-worker");
  // No worker buffer is charged to makePoints, and the worker allocates no
  // Point. makePoints may still own small byte[]s: HotSpot posts the events of
  // objects the VM allocates inside a runtime call (the class names made while
  // loading Point under its first `new`) when the call returns, so their
  // innermost frame is makePoints itself.
  for (const auto& [stack_id, n] : p.samples()) {
    const std::vector<int64_t>& ids = *p.Stack(stack_id);
    const ArtAllocType* type = p.Type(ids[0]);
    if (ids.size() > 1 && type->class_signature == "[B" &&
        *p.Frame(ids.back()) == "AllocWorkload.makePoints(I)V") {
      EXPECT_LT(type->size, buffers.object_size) << "a worker buffer under makePoints";
      EXPECT_EQ(type->thread, "main");
    }
  }
  EXPECT_EQ(Totals(p, "LAllocWorkload$Point;", "AllocWorkload.fillBuffers(I)V").samples, 0);

  // The core loads the log as a Java allocation flamegraph of that process.
  TraceProcessor tp;
  Status st = tp.LoadFile(log);
  ASSERT_TRUE(st.ok()) << st.message();
  auto it = tp.Query(
      "with fg as (select * from experimental_flamegraph('native', "
      "(select max(ts) from heap_profile_allocation), NULL, "
      "(select upid from heap_profile_allocation limit 1), NULL, NULL)) "
      "select c.name, p.name, c.cumulative_count, c.cumulative_size, "
      "(select pid from process where upid = (select upid from heap_profile_allocation limit 1)) "
      "from fg c join fg p on c.parent_id = p.id where c.name = 'AllocWorkload$Point'");
  ASSERT_TRUE(it->NextResultSet()) << it->status().message();
  ASSERT_TRUE(it->NextRow()) << "no AllocWorkload$Point node in the flamegraph";
  EXPECT_EQ(it->Get(1).s, "AllocWorkload.makePoints(I)V");
  EXPECT_EQ(it->Get(2).i, std::llround(points.count));
  EXPECT_NEAR(static_cast<double>(it->Get(3).i), points.bytes, 1.0);
  EXPECT_EQ(it->Get(4).i, *p.header().pid);
  EXPECT_FALSE(it->NextRow()) << "Point allocated from one path only";
}

TEST_F(JvmtiAgentTest, VmKilledWithoutVmDeathStillLeavesItsSamples) {
  // ART never runs VMDeath on `am force-stop`; here SIGKILL does the same to
  // HotSpot. The workload's few samples (a few KiB, far below the write
  // threshold) are allocated, then the VM idles until it is killed: only the
  // once-a-second flush can have written them.
  const int kPoints = 200000;
  std::string log = dir_ + "/killed.log";
  std::string cmd = std::string("timeout -s KILL 12 '") + FATHOM_JAVA +
                    "' '-agentpath:" + FATHOM_JVMTI_AGENT + "=32768,64," + log + ",bytes' -cp '" +
                    FATHOM_JVMTI_CLASSES + "' AllocWorkload " + std::to_string(kPoints) +
                    " 0 0 1 60000";
  RunResult r = RunCommand(cmd);
  EXPECT_EQ(r.output.find("checksum="), std::string::npos) << "the VM was not killed: " << r.output;
  ArtAllocLogParser p = ParseLog(log);
  ASSERT_TRUE(p.header().present) << r.output;
  EXPECT_FALSE(p.header().complete) << "an '# end' line, so VMDeath ran after all";
  EXPECT_EQ(p.malformed_count(), 0u);
  SiteTotals points = Totals(p, "LAllocWorkload$Point;", "AllocWorkload.makePoints(I)V");
  // ~4.8 MB of Points at 32 KiB: ~150 samples expected.
  EXPECT_GT(points.samples, 20) << "the samples never reached the file";
}

TEST_F(JvmtiAgentTest, ManyThreadsSampleConcurrentlyIntoOneWellFormedLog) {
  // Six threads allocate byte[1000] at once while main allocates Points; the
  // log must stay well formed (one writer lock, keys before use) and every
  // thread must show with about its share. -Xcheck:jni reports JNI misuse in
  // the callbacks as warnings. (It does not flag local references a callback
  // leaves behind on HotSpot: checked by removing the agent's
  // PushLocalFrame/PopLocalFrame, which the agent keeps for ART's sake.)
  const int kWorkers = 6, kBuffers = 20000;
  std::string log = dir_ + "/threads.log";
  RunResult r =
      RunWorkload("16384,64," + log + ",bytes", "-Xcheck:jni",
                  "100000 " + std::to_string(kBuffers) + " 0 " + std::to_string(kWorkers));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("WARNING"), std::string::npos) << r.output;
  ArtAllocLogParser p = ParseLog(log);
  EXPECT_EQ(p.malformed_count(), 0u);
  EXPECT_TRUE(p.header().complete);
  SiteTotals buffers = Totals(p, "[B", "AllocWorkload.fillBuffers(I)V");
  // ~20 MB per thread at 16 KiB: ~1200 samples each, ~3 % standard error.
  EXPECT_NEAR(buffers.count / (kWorkers * kBuffers), 1.0, 0.2) << buffers.count;
  ASSERT_EQ(buffers.threads.size(), size_t(kWorkers));
  for (int i = 0; i < kWorkers; ++i) {
    std::string name = "alloc-worker-" + std::to_string(i);
    ASSERT_TRUE(buffers.threads.count(name)) << name;
    EXPECT_NEAR(double(buffers.threads[name]) / (double(buffers.samples) / kWorkers), 1.0, 0.3)
        << name;
  }
}

TEST_F(JvmtiAgentTest, CountModeSamplesEveryNthVmObjectAlloc) {
  // HotSpot reports through VMObjectAlloc only what the VM allocates itself;
  // an interpreted clone() is such an allocation, so -Xint clones are seen.
  const int kClones = 30000, kRate = 10;
  std::string log = dir_ + "/count.log";
  RunResult r = RunWorkload(std::to_string(kRate) + ",32," + log + ",count", "-Xint",
                            "1000 10 " + std::to_string(kClones));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ArtAllocLogParser p = ParseLog(log);
  EXPECT_EQ(p.malformed_count(), 0u);
  EXPECT_EQ(p.header().mode, ArtAllocLogHeader::kCount);
  EXPECT_TRUE(p.header().complete);
  SiteTotals clones = Totals(p, "[I", "AllocWorkload.cloneArrays(I)V");
  // Every 10th event overall is sampled; the clones dominate the events, so
  // close to kClones / kRate of the samples are theirs.
  EXPECT_NEAR(static_cast<double>(clones.samples) / (kClones / kRate), 1.0, 0.1) << clones.samples;
  EXPECT_NEAR(clones.count, kClones, kClones * 0.1);
  EXPECT_EQ(clones.object_size, 16 + 16 * 4);
  // No stack is deeper than the limit (plus the TTS record).
  for (const auto& [id, n] : p.samples()) EXPECT_LE(p.Stack(id)->size(), 33u);
}

TEST_F(JvmtiAgentTest, AutoModePicksByteSamplingOnHotSpot) {
  std::string log = dir_ + "/auto.log";
  RunResult r = RunWorkload("524288,16," + log, "", "100000 100 0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ArtAllocLogParser p = ParseLog(log);
  EXPECT_EQ(p.header().mode, ArtAllocLogHeader::kBytes);
  std::ifstream in(log);
  std::string first;
  std::getline(in, first);
  EXPECT_NE(first.find("event=SampledObjectAlloc"), std::string::npos) << first;
}

TEST_F(JvmtiAgentTest, BadArgumentsStopTheVmWithAMessage) {
  RunResult r = RunWorkload("0,16," + dir_ + "/x.log", "", "1 1 0");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("fathom_jvmti: sample_rate must be a positive integer"),
            std::string::npos)
      << r.output;
  r = RunWorkload("100,16,/nonexistent-dir/x.log", "", "1 1 0");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("cannot create /nonexistent-dir/x.log"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace fathom
