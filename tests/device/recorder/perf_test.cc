// fathom-recorder's linux.perf source on this machine's kernel: a real busy child process
// sampled with the cpu-clock, its call chain read back by Fathom's importer and by
// upstream's trace_processor_shell (the oracle, when ../shared has it); and the fallback
// an unprivileged user gets (sampling the target's own threads).
#include <gtest/gtest.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/sql/result_printer.h"
#include "test_util.h"

namespace fathom::recorder_test {
namespace {

struct Child {
  pid_t pid = 0;
  FILE* pipe = nullptr;
};

// Starts the busy program (optionally through a prefix such as setpriv) and reads its pid.
Child StartBusy(const std::string& prefix, int ms) {
  Child c;
  std::string cmd = prefix + " " + PERF_BUSY_PROG + " " + std::to_string(ms);
  c.pipe = popen(cmd.c_str(), "r");
  if (c.pipe && fscanf(c.pipe, "%d", &c.pid) != 1) c.pid = 0;
  return c;
}

void Finish(Child& c) {
  if (c.pipe) pclose(c.pipe);
  c.pipe = nullptr;
}

std::string PerfConfig(pid_t target, int ms) {
  return "duration_ms: " + std::to_string(ms) +
         "\n"
         "data_sources { config { name: \"linux.perf\" perf_event_config {\n"
         "  timebase { frequency: 500 }\n"
         "  callstack_sampling { scope { target_pid: " +
         std::to_string(target) +
         " } } } } }\n"
         "data_sources { config { name: \"linux.process_stats\" } }\n";
}

// The names along the sampled stacks, leaf to root, of the most frequent leaf.
std::string HottestChain(TraceProcessor& tp) {
  auto it = tp.Query(
      "with recursive hottest as (select callsite_id from perf_sample group by 1"
      "  order by count(*) desc limit 1), chain(id, depth) as ("
      "  select callsite_id, 0 from hottest union all select c.parent_id, chain.depth + 1 from "
      "chain"
      "  join stack_profile_callsite c on c.id = chain.id where c.parent_id is not null) "
      "select group_concat(name, ' <- ') from (select f.name from chain"
      "  join stack_profile_callsite c on c.id = chain.id"
      "  join stack_profile_frame f on f.id = c.frame_id order by chain.depth)");
  auto rows = RowsAsText(it.get());
  return rows.ok() && !rows->empty() ? (*rows)[0][0] : "";
}

TEST(RecorderPerf, SamplesABusyChildWithItsCallChain) {
  TempDir dir;
  Child busy = StartBusy("", 3000);
  ASSERT_GT(busy.pid, 0);
  WriteStringToFile(dir / "config.pb", ConfigFromText(PerfConfig(busy.pid, 1000)));
  std::string err;
  int code = RunRecorder({"-c", dir / "config.pb", "-o", dir / "trace.pftrace"}, &err);
  kill(busy.pid, SIGTERM);
  Finish(busy);
  if (code == 3) GTEST_SKIP() << "this machine allows no perf events: " << err;
  ASSERT_EQ(code, 0) << err;

  TraceProcessor tp;
  Status st = tp.LoadFile(dir / "trace.pftrace");
  ASSERT_TRUE(st.ok()) << st.message();
  // One busy thread for a second at 500 Hz: up to ~500 samples (the cpu-clock ticks only
  // while it runs, so a loaded machine gives fewer), and never more than the rate allows.
  int64_t samples = QueryInt(tp, "select count(*) from perf_sample");
  EXPECT_GT(samples, 25);
  EXPECT_LE(samples, 600);
  EXPECT_EQ(QueryInt(tp, "select count(*) from perf_sample join thread using(utid) where tid != " +
                             std::to_string(busy.pid)),
            0);
  EXPECT_EQ(QueryInt(tp, "select count(*) from process where pid = " + std::to_string(busy.pid) +
                             " and name like '%perf_busy_prog%'"),
            1);
  EXPECT_EQ(HottestChain(tp).rfind("perf_busy_leaf <- perf_busy_middle <- main", 0), 0u)
      << HottestChain(tp);

  std::string oracle = std::string(FATHOM_SHARED_DIR) + "/oracle/trace_processor_shell";
  if (!std::filesystem::exists(oracle)) return;
  const std::string sql =
      "select count(*) as n, cpu_mode from perf_sample group by cpu_mode order by cpu_mode;\n"
      "select f.name, count(*) as n from perf_sample s join stack_profile_callsite c "
      "on c.id = s.callsite_id join stack_profile_frame f on f.id = c.frame_id "
      "group by 1 order by 1;\n";
  WriteStringToFile(dir / "q.sql", sql);
  std::string want;
  FILE* p =
      popen((oracle + " query -f " + dir / "q.sql" + " " + dir / "trace.pftrace" + " 2>/dev/null")
                .c_str(),
            "r");
  ASSERT_TRUE(p);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) want.append(buf, n);
  pclose(p);
  std::string got;
  auto it = tp.Query(sql);
  ASSERT_TRUE(PrintResults(it.get(), ResultFormat::kCsv, &got).ok());
  EXPECT_EQ(got, want);
  EXPECT_NE(want.find("perf_busy_leaf"), std::string::npos) << want;
}

// --background forks after the events are opened: the child must map the sample buffers
// itself (the kernel does not copy a perf mapping into a child) and still sample.
TEST(RecorderPerf, BackgroundRecordingSamples) {
  TempDir dir;
  Child busy = StartBusy("", 3000);
  ASSERT_GT(busy.pid, 0);
  WriteStringToFile(dir / "config.txt", PerfConfig(busy.pid, 1000));
  std::string cmd = std::string(FATHOM_RECORDER) + " --txt --background -c " + dir / "config.txt" +
                    " -o " + dir / "trace.pftrace" + " >" + dir / "pid" + " 2>" + dir / "stderr";
  int status = system(cmd.c_str());
  std::string err = ReadFileOrDie(dir / "stderr");
  if (WEXITSTATUS(status) == 3) GTEST_SKIP() << "no perf events here: " << err;
  ASSERT_EQ(WEXITSTATUS(status), 0) << err;
  std::string recorder = "/proc/" + std::to_string(std::stoi(ReadFileOrDie(dir / "pid")));
  for (int i = 0; i < 100 && std::filesystem::exists(recorder); i++)
    usleep(100 * 1000);  // it ends by itself after duration_ms
  kill(busy.pid, SIGTERM);
  Finish(busy);
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(dir / "trace.pftrace").ok());
  EXPECT_GT(QueryInt(tp, "select count(*) from perf_sample"), 25) << ReadFileOrDie(dir / "stderr");
}

// As an unprivileged user (perf_event_paranoid >= 1) every-CPU sampling is refused; the
// recorder then samples the named process's own threads, as the kernel allows a user.
TEST(RecorderPerf, UnprivilegedUserSamplesTheirOwnProcess) {
  int paranoid = 2;
  std::ifstream("/proc/sys/kernel/perf_event_paranoid") >> paranoid;
  if (geteuid() != 0 || paranoid < 1 || system("command -v setpriv >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "needs root (to become another user), setpriv and perf_event_paranoid >= 1";
  TempDir dir;
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);
  const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups";
  Child busy = StartBusy(as_nobody, 3000);
  ASSERT_GT(busy.pid, 0);
  WriteStringToFile(dir / "config.txt", PerfConfig(busy.pid, 1000));
  std::string cmd = as_nobody + " " + FATHOM_RECORDER + " --txt -c " + dir / "config.txt" + " -o " +
                    dir / "trace.pftrace" + " 2>" + dir / "stderr";
  int status = system(cmd.c_str());
  kill(busy.pid, SIGTERM);
  Finish(busy);
  std::string err = ReadFileOrDie(dir / "stderr");
  ASSERT_EQ(WEXITSTATUS(status), 0) << err;
  EXPECT_NE(err.find("threads of the target processes"), std::string::npos) << err;
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(dir / "trace.pftrace").ok());
  EXPECT_GT(QueryInt(tp, "select count(*) from perf_sample"), 25);
  EXPECT_EQ(QueryInt(tp, "select count(*) from perf_sample where cpu_mode = 'kernel'"), 0);
}

}  // namespace
}  // namespace fathom::recorder_test
