// fathom-recorder end to end on this machine's /proc: the 3 s process_stats + sys_stats
// recording checked against /proc, Fathom's core and protoc; SIGTERM and kill -9 mid-way;
// --background; exit codes and error lines.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "perfetto/trace/trace.pb.h"
#include "test_util.h"

namespace fathom::recorder_test {
namespace {

namespace pp = perfetto::protos;

// "Key: 123 kB" from a /proc file, in kB (-1 when missing).
int64_t ProcValueKb(const std::string& path, const std::string& key) {
  std::string text = ReadFileOrDie(path);
  size_t p = text.find("\n" + key + ":");
  if (p == std::string::npos) p = text.rfind(key + ":", 0) == 0 ? 0 : std::string::npos;
  if (p == std::string::npos) return -1;
  return std::stoll(text.substr(text.find(':', p) + 1));
}

const char kProcConfig[] = R"(
duration_ms: 3000
write_into_file: true
file_write_period_ms: 1000
data_sources { config { name: "linux.process_stats" process_stats_config {
  scan_all_processes_on_start: true record_thread_names: true proc_stats_poll_ms: 100 } } }
data_sources { config { name: "linux.sys_stats" sys_stats_config {
  meminfo_period_ms: 100 vmstat_period_ms: 500 stat_period_ms: 500 } } }
data_sources { config { name: "android.log" } }
)";

TEST(RecorderE2E, ProcessAndSystemStatsMatchProc) {
  TempDir dir;
  WriteStringToFile(dir / "config.pb", ConfigFromText(kProcConfig));  // binary this time
  std::string out = dir / "trace.pftrace";
  // Keep some memory of our own resident so the test's RSS is clearly non-trivial.
  std::vector<char> ballast(32 << 20, 1);
  int64_t rss_before = ProcValueKb("/proc/self/status", "VmRSS");
  pid_t pid = SpawnRecorder({"-c", dir / "config.pb", "-o", out}, dir / "stderr");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  int64_t rss_mid = ProcValueKb("/proc/self/status", "VmRSS");
  int64_t mem_total = ProcValueKb("/proc/meminfo", "MemTotal");
  int64_t mem_free_mid = ProcValueKb("/proc/meminfo", "MemFree");
  ASSERT_EQ(WaitExit(pid), 0) << ReadFileOrDie(dir / "stderr");
  EXPECT_NE(ReadFileOrDie(dir / "stderr").find("android.log skipped"), std::string::npos);
  ASSERT_GT(ballast[12345], 0);

  TraceProcessor tp;
  Status st = tp.LoadFile(out);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_TRUE(tp.report().warnings.empty());
  EXPECT_EQ(QueryInt(tp, "select count(*) from process where pid = " + std::to_string(getpid())),
            1);
  EXPECT_EQ(QueryInt(tp, "select count(*) from process where pid = " + std::to_string(pid)), 1);
  auto rss = [&](pid_t p, const char* agg) {
    return QueryDouble(tp, std::string("select ") + agg +
                               "(c.value) from counter c join process_counter_track t on "
                               "c.track_id = t.id join process using(upid) where t.name = "
                               "'mem.rss' and process.pid = " +
                               std::to_string(p));
  };
  // Our own RSS as the recorder saw it, against what we read ourselves (kB -> bytes).
  double lo = static_cast<double>(std::min(rss_before, rss_mid)) * 1024;
  double hi = static_cast<double>(std::max(rss_before, rss_mid)) * 1024;
  EXPECT_GE(rss(getpid(), "min"), lo * 0.8);
  EXPECT_LE(rss(getpid(), "max"), hi * 1.25);
  // The recorder itself: resident, and small.
  EXPECT_GT(rss(pid, "min"), 100 * 1024);
  EXPECT_LT(rss(pid, "max"), 64 << 20);
  // meminfo: MemTotal exactly, MemFree within 10 % of MemTotal of what we read mid-way.
  auto meminfo = [&](const char* key, const char* agg) {
    return QueryDouble(tp, std::string("select ") + agg +
                               "(c.value) from counter c join counter_track t on c.track_id = "
                               "t.id where t.name = '" +
                               key + "'");
  };
  EXPECT_EQ(meminfo("MemTotal", "min"), static_cast<double>(mem_total) * 1024);
  EXPECT_NEAR(meminfo("MemFree", "avg"), static_cast<double>(mem_free_mid) * 1024,
              static_cast<double>(mem_total) * 1024 * 0.1);
  EXPECT_GT(QueryInt(tp, "select count(*) from counter_track where name like 'cpu.times.%'"), 0);

  // libprotobuf and protoc read it too.
  pp::Trace trace;
  ASSERT_TRUE(ParseTrace(out, &trace));
  int polls = 0, trees = 0, sys = 0;
  bool config = false, clocks = false, uname = false, stats = false;
  for (const pp::TracePacket& p : trace.packet()) {
    polls += p.has_process_stats();
    trees += p.has_process_tree();
    sys += p.has_sys_stats();
    config |= p.has_trace_config();
    for (const auto& c : p.clock_snapshot().clocks())
      clocks |= c.clock_id() == 6 && c.timestamp() > 0;  // BOOTTIME, the trace's clock
    uname |= p.system_info().utsname().sysname() == "Linux";
    stats |= p.has_trace_stats();
  }
  EXPECT_GE(polls, 2);
  EXPECT_GE(trees, 1);
  EXPECT_GE(sys, 2);
  EXPECT_TRUE(config && clocks && uname && stats);
  std::string decoded;
  EXPECT_EQ(ProtocDecode(out, &decoded), 0) << decoded.substr(0, 500);
  EXPECT_NE(decoded.find("process_stats {"), std::string::npos);
  EXPECT_NE(decoded.find("MEMINFO_MEM_TOTAL"), std::string::npos);
}

const char kLongConfig[] = R"(
duration_ms: 60000
write_into_file: true
file_write_period_ms: 200
data_sources { config { name: "linux.process_stats" process_stats_config {
  scan_all_processes_on_start: true proc_stats_poll_ms: 100 } } }
data_sources { config { name: "linux.sys_stats" sys_stats_config { meminfo_period_ms: 100 } } }
)";

TEST(RecorderE2E, SigtermGivesACompleteTrace) {
  TempDir dir;
  WriteStringToFile(dir / "c.txt", kLongConfig);
  std::string out = dir / "t.pftrace";
  pid_t pid = SpawnRecorder({"-c", dir / "c.txt", "--txt", "-o", out}, dir / "stderr");
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  kill(pid, SIGTERM);
  ASSERT_EQ(WaitExit(pid), 0) << ReadFileOrDie(dir / "stderr");
  pp::Trace trace;
  ASSERT_TRUE(ParseTrace(out, &trace));
  ASSERT_GT(trace.packet_size(), 3);
  // Stopped cleanly: the end-of-trace packets are there.
  EXPECT_TRUE(trace.packet(trace.packet_size() - 1).has_trace_stats());
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(out).ok());
  EXPECT_TRUE(tp.report().warnings.empty());
  EXPECT_GT(QueryInt(tp, "select count(*) from counter"), 0);
}

// Complete Trace.packet records at the start of `data` (a kill may cut the last one).
int CompletePackets(const std::string& data, size_t* end_of_last) {
  size_t p = 0;
  int n = 0;
  *end_of_last = 0;
  while (p < data.size()) {
    if (static_cast<uint8_t>(data[p]) != 0x0a) break;
    uint64_t len = 0;
    size_t q = p + 1;
    for (int shift = 0; q < data.size(); shift += 7) {
      uint8_t b = static_cast<uint8_t>(data[q++]);
      len |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) break;
    }
    if (q + len > data.size()) break;
    p = q + len;
    n++;
    *end_of_last = p;
  }
  return n;
}

TEST(RecorderE2E, Kill9KeepsEverythingUpToTheLastFlush) {
  TempDir dir;
  WriteStringToFile(dir / "c.txt", kLongConfig);
  std::string out = dir / "t.pftrace";
  pid_t pid = SpawnRecorder({"-c", dir / "c.txt", "--txt", "-o", out}, dir / "stderr");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(pid, SIGKILL);
  ASSERT_EQ(WaitExit(pid), 128 + SIGKILL);
  std::string data = ReadFileOrDie(out);
  size_t end = 0;
  int packets = CompletePackets(data, &end);
  // Several periodic flushes happened; every flushed packet is whole and parses.
  EXPECT_GT(packets, 5);
  pp::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(data.substr(0, end)));
  int polls = 0;
  for (const pp::TracePacket& p : trace.packet()) polls += p.has_process_stats();
  EXPECT_GE(polls, 2);
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(out).ok());
  EXPECT_GT(QueryInt(tp, "select count(*) from counter"), 0);
  EXPECT_EQ(QueryInt(tp, "select count(*) from process where pid = " + std::to_string(getpid())),
            1);
}

TEST(RecorderE2E, BackgroundPrintsThePidAndRecords) {
  TempDir dir;
  WriteStringToFile(dir / "c.txt",
                    "duration_ms: 60000 data_sources { config { name: \"linux.sys_stats\" "
                    "sys_stats_config { meminfo_period_ms: 100 } } }");
  std::string out = dir / "t.pftrace";
  std::string cmd = std::string("'") + FATHOM_RECORDER + "' -c '" + (dir / "c.txt") +
                    "' --txt -o '" + out + "' --background";
  FILE* f = popen(cmd.c_str(), "r");
  ASSERT_NE(f, nullptr);
  int bg = 0;
  ASSERT_EQ(fscanf(f, "%d", &bg), 1);
  EXPECT_EQ(pclose(f), 0);  // the launcher returned while the recorder runs on
  ASSERT_GT(bg, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_EQ(kill(bg, 0), 0) << "background recorder is not running";
  kill(bg, SIGTERM);
  for (int i = 0; i < 200 && kill(bg, 0) == 0; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_NE(kill(bg, 0), 0);
  pp::Trace trace;
  ASSERT_TRUE(ParseTrace(out, &trace));
  EXPECT_TRUE(trace.packet(trace.packet_size() - 1).has_trace_stats());
}

TEST(RecorderE2E, ExitCodesAndOneLineErrors) {
  TempDir dir;
  std::string err;
  EXPECT_EQ(RunRecorder({"-o", dir / "t"}, &err), 2);
  EXPECT_NE(err.find("both -c CONFIG"), std::string::npos);
  WriteStringToFile(dir / "typo.txt", "duration_ms: 100\ndata_srcs {}\n");
  EXPECT_EQ(RunRecorder({"-c", dir / "typo.txt", "--txt", "-o", dir / "t"}, &err), 2);
  EXPECT_EQ(err, "fathom-recorder: config line 2: unknown field 'data_srcs' in TraceConfig\n");
  WriteStringToFile(dir / "fast.txt",
                    "data_sources { config { name: \"linux.process_stats\" process_stats_config "
                    "{ proc_stats_poll_ms: 50 } } }");
  EXPECT_EQ(RunRecorder({"-c", dir / "fast.txt", "--txt", "-o", dir / "t"}, &err), 2);
  EXPECT_EQ(err,
            "fathom-recorder: config: process_stats_config.proc_stats_poll_ms is 50: use 100 ms "
            "or more\n");
  WriteStringToFile(dir / "text.txt", "duration_ms: 100");
  EXPECT_EQ(RunRecorder({"-c", dir / "text.txt", "-o", dir / "t"}, &err), 2);
  EXPECT_NE(err.find("add --txt"), std::string::npos) << err;
  WriteStringToFile(dir / "ok.txt",
                    "duration_ms: 100 data_sources { config { name: \"linux.sys_stats\" } }");
  EXPECT_EQ(RunRecorder({"-c", dir / "ok.txt", "--txt", "-o", "/nonexistent/t"}, &err), 1);
  EXPECT_EQ(err, "fathom-recorder: cannot create /nonexistent/t: No such file or directory\n");
}

}  // namespace
}  // namespace fathom::recorder_test
