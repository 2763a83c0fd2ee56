// Chrome JSON top-level "samples" (CPU samples on "stackFrames") and archives
// read as streams: zip64 archives written by Python's zipfile and by zip(1),
// tar and tar.gz of a generated trace. Archives are written at test time by
// real tools; the row counts are known from what was written.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/flamegraph/profiles.h"
#include "core/trace_processor.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using testing::QueryInt;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Status Load(TraceProcessor& tp, const std::string& bytes, const std::string& name) {
  return tp.LoadBuffer(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), name);
}

bool HaveTool(const char* tool) {
  return system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0;
}

// The trace-event format's sample shape: {cpu, tid, ts, name, sf, weight}.
const char kSamples[] =
    R"("samples":[{"cpu":0,"tid":22630,"ts":830.5,"name":"cycles:HG","sf":"7","weight":1},)"
    R"({"cpu":1,"tid":22630,"ts":831,"name":"cycles:HG","sf":8,"weight":1},)"
    R"({"cpu":1,"tid":22630,"ts":831.25,"name":"cycles:HG","sf":"7","weight":1}])";

TEST(ChromeJsonSamples, HandWrittenSamplesAreCpuSamplesOnTheirFrames) {
  std::string json = R"({"traceEvents":[{"ph":"X","pid":1,"tid":2,"ts":10,"dur":5,"name":"work"}],)"
                     R"("stackFrames":{"1":{"name":"main","category":"app"},)"
                     R"("2":{"name":"loop","parent":"1","category":"app"},)"
                     R"("3":{"name":"hash","parent":2,"category":"libc.so"}},)"
                     R"("samples":[{"cpu":3,"tid":2,"ts":11,"name":"cycles","sf":3,"weight":1},)"
                     R"({"cpu":3,"tid":2,"ts":12.5,"name":"cycles","sf":"3","weight":1},)"
                     R"({"cpu":2,"tid":9,"ts":13,"name":"cycles","sf":2,"weight":1}]})";
  TraceProcessor tp;
  ASSERT_TRUE(Load(tp, json, "samples.json").ok());
  EXPECT_EQ(QueryInt(tp, "select count(*) from perf_sample"), 3);
  EXPECT_EQ(QueryInt(tp, "select count(*) from perf_sample where ts = 12500 and cpu = 3"), 1);
  // Samples on tid 2 join the thread the X event named with its process.
  EXPECT_EQ(QueryInt(tp,
                     "select count(*) from perf_sample p join thread t using(utid) "
                     "where t.tid = 2 and t.upid is not null"),
            2);
  EXPECT_EQ(QueryInt(tp,
                     "select count(*) from perf_sample p join stack_profile_callsite c "
                     "on p.callsite_id = c.id join stack_profile_frame f on c.frame_id = f.id "
                     "where f.name = 'hash' and c.depth = 2"),
            2);
  for (const auto& w : tp.report().warnings) EXPECT_EQ(w.find("samples"), std::string::npos) << w;

  // The CPU flamegraph shows them: main > loop (3) > hash (2).
  auto dumps = ListProfiles(tp.storage());
  auto dump = PickLargestProfile(dumps, ProfileKind::kCpu, std::nullopt);
  ASSERT_TRUE(dump.has_value());
  auto fg = BuildFlamegraph(tp.storage(), RequestFor(*dump, FlamegraphView::kSamples));
  ASSERT_TRUE(fg.ok()) << fg.status().message();
  EXPECT_EQ(fg->Total(MetricOf(FlamegraphView::kSamples)), 3);
}

TEST(ChromeJsonSamples, SimpleTraceWithSamplesAppended) {
  std::string base = Slurp(std::string(FATHOM_SHARED_DIR) + "/testdata/chrome_simple_trace.json");
  ASSERT_FALSE(base.empty());
  TraceProcessor plain;
  ASSERT_TRUE(Load(plain, base, "chrome_simple_trace.json").ok());
  // The same file with a top-level "samples" array on its stackFrames (7, 8).
  size_t close = base.rfind('}');
  ASSERT_NE(close, std::string::npos);
  std::string with = base.substr(0, close) + "," + kSamples + base.substr(close);
  TraceProcessor tp;
  ASSERT_TRUE(Load(tp, with, "chrome_simple_trace+samples.json").ok());
  EXPECT_EQ(QueryInt(tp, "select count(*) from slice"),
            QueryInt(plain, "select count(*) from slice"));
  EXPECT_EQ(QueryInt(tp, "select count(*) from perf_sample"),
            QueryInt(plain, "select count(*) from perf_sample") + 3);
  EXPECT_EQ(QueryInt(tp,
                     "select count(*) from perf_sample p join stack_profile_callsite c "
                     "on p.callsite_id = c.id join stack_profile_frame f on c.frame_id = f.id "
                     "where f.name = 'frame7' and c.depth = 1 and p.ts >= 830000"),
            2);
}

// A Chrome JSON trace with `n` X events on 4 threads.
std::string GeneratedJson(int n) {
  std::string s = "{\"traceEvents\":[\n";
  char buf[160];
  for (int i = 0; i < n; ++i) {
    snprintf(buf, sizeof buf,
             "%s{\"ph\":\"X\",\"pid\":7,\"tid\":%d,\"ts\":%d.5,\"dur\":1,\"name\":\"e%d\"}",
             i ? ",\n" : "", 10 + i % 4, i * 2, i % 13);
    s += buf;
  }
  return s + "]}\n";
}

class ArchiveStreams : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "fathom_archive_stream_" +
           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ + "/trace.json", std::ios::binary) << GeneratedJson(kEvents);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void ExpectRows(const std::string& archive, const std::string& format) {
    TraceProcessor tp;
    Status st = tp.LoadFile(archive);
    ASSERT_TRUE(st.ok()) << st.message();
    EXPECT_EQ(tp.report().format, format);
    EXPECT_EQ(QueryInt(tp, "select count(*) from slice"), kEvents) << archive;
    EXPECT_EQ(QueryInt(tp, "select count(distinct utid) from thread_track"), 4);
    for (const auto& w : tp.report().warnings) ADD_FAILURE() << w;
  }
  static constexpr int kEvents = 20000;  // ~1.3 MB: several tokenizer chunks of deflate
  std::string dir_;
};

TEST_F(ArchiveStreams, Zip64FromPythonZipfile) {
  if (!HaveTool("python3")) GTEST_SKIP() << "python3 not installed";
  // force_zip64: zip64 extra fields in the headers, zip64 end records; a
  // directory, one stored and one deflated member, and one written to an
  // unseekable file (sizes in a zip64 data descriptor after the data).
  std::string py =
      "import zipfile,sys\n"
      "d=sys.argv[1]\n"
      "data=open(d+'/trace.json','rb').read()\n"
      "with zipfile.ZipFile(d+'/t.zip','w') as z:\n"
      "  z.writestr('a/', b'')\n"
      "  for name,c in "
      "(('a/deflated.json',zipfile.ZIP_DEFLATED),('stored.json',zipfile.ZIP_STORED)):\n"
      "    i=zipfile.ZipInfo(name); i.compress_type=c\n"
      "    with z.open(i,'w',force_zip64=True) as f: f.write(data)\n"
      "class W:\n"
      "  def __init__(s,f): s.f=f\n"
      "  def write(s,b): return s.f.write(b)\n"
      "  def flush(s): s.f.flush()\n"
      "with open(d+'/s.zip','wb') as raw:\n"
      "  with zipfile.ZipFile(W(raw),'w',zipfile.ZIP_DEFLATED) as z:\n"
      "    with z.open('streamed.json','w',force_zip64=True) as f: f.write(data)\n";
  std::ofstream(dir_ + "/mk.py") << py;
  ASSERT_EQ(system(("python3 " + dir_ + "/mk.py " + dir_ + " 2>&1").c_str()), 0);
  TraceProcessor tp;
  Status st = tp.LoadFile(dir_ + "/t.zip");
  ASSERT_TRUE(st.ok()) << st.message();
  // Two members hold the trace (the directory entry is skipped).
  EXPECT_EQ(QueryInt(tp, "select count(*) from slice"), 2 * kEvents);
  for (const auto& w : tp.report().warnings) ADD_FAILURE() << w;
  ExpectRows(dir_ + "/s.zip", "zip [1 trace(s): chrome json]");

  // Cut or damaged zip64 streams end with an error or a warning naming the
  // member, never a crash or a hang.
  for (const char* file : {"/t.zip", "/s.zip"}) {
    std::string zip = Slurp(dir_ + file);
    for (size_t k = 1; k < 24; ++k) {
      std::string cut = zip.substr(0, zip.size() * k / 24);
      TraceProcessor cut_tp;
      Status cut_st = Load(cut_tp, cut, "cut.zip");
      if (cut_st.ok()) {
        ASSERT_FALSE(cut_tp.report().warnings.empty()) << file << " cut at " << cut.size();
      }
      std::string flipped = zip;
      flipped[zip.size() * k / 24] ^= 0x5a;
      TraceProcessor flip_tp;
      (void)Load(flip_tp, flipped, "flipped.zip");
    }
  }
}

TEST_F(ArchiveStreams, ZipToolTarAndTarGz) {
  if (HaveTool("zip")) {
    ASSERT_EQ(system(("cd " + dir_ +
                      " && zip -q z.zip trace.json && zip -q -fz z64.zip trace.json"
                      " && cat trace.json | zip -q piped.zip -")
                         .c_str()),
              0);
    ExpectRows(dir_ + "/z.zip", "zip [1 trace(s): chrome json]");
    ExpectRows(dir_ + "/z64.zip", "zip [1 trace(s): chrome json]");
    ExpectRows(dir_ + "/piped.zip", "zip [1 trace(s): chrome json]");
  }
  if (!HaveTool("tar")) GTEST_SKIP() << "tar not installed";
  ASSERT_EQ(
      system(("cd " + dir_ + " && tar cf t.tar trace.json && tar czf t.tgz trace.json").c_str()),
      0);
  ExpectRows(dir_ + "/t.tar", "tar [1 trace(s): chrome json]");
  ExpectRows(dir_ + "/t.tgz", "tar (gzip) [1 trace(s): chrome json]");
}

}  // namespace
}  // namespace fathom
