// End-to-end tests of the native heap profiler: real programs run under fathom-heapprofd
// with libfathom_heapprof.so preloaded; the traces are loaded by Fathom's core and
// checked with SQL against what the programs really did.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/trace_processor.h"
#include "device/heapprof/wire.h"

namespace fathom {
namespace {

namespace fs = std::filesystem;

struct RunResult {
  int exit_code = -1;
  std::string out;  // stdout only; stderr passes through to the test log
};

RunResult RunCmd(const std::string& cmd) {
  RunResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  return r;
}

std::string TempPath(const std::string& name) {
  return (fs::temp_directory_path() / ("heapprof_test_" + std::to_string(getpid()) + "_" + name))
      .string();
}

std::string Profile(const std::string& args, const std::string& command, const std::string& out) {
  return std::string(HEAPPROFD) + " --lib " + HEAPPROF_LIB + " " + args + " -o " + out + " -- " +
         command;
}

std::unique_ptr<TraceProcessor> Load(const std::string& path) {
  auto tp = std::make_unique<TraceProcessor>();
  Status st = tp->LoadFile(path);
  EXPECT_TRUE(st.ok()) << st.message();
  return tp;
}

// Rows of the first result set as strings (NULL -> "").
std::vector<std::vector<std::string>> Query(TraceProcessor& tp, const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  auto it = tp.Query(sql);
  if (!it->NextResultSet()) {
    ADD_FAILURE() << sql << ": " << it->status().message();
    return rows;
  }
  while (it->NextRow()) {
    std::vector<std::string> row;
    for (int c = 0; c < it->column_count(); c++) {
      SqlValue v = it->Get(c);
      if (v.type == SqlValue::kInt)
        row.push_back(std::to_string(v.i));
      else if (v.type == SqlValue::kString)
        row.push_back(std::string(v.s));
      else if (v.type == SqlValue::kDouble)
        row.push_back(std::to_string(v.d));
      else
        row.push_back("");
    }
    rows.push_back(row);
  }
  EXPECT_TRUE(it->status().ok()) << sql << ": " << it->status().message();
  return rows;
}

int64_t QueryInt(TraceProcessor& tp, const std::string& sql) {
  auto rows = Query(tp, sql);
  return rows.empty() || rows[0].empty() || rows[0][0].empty() ? -1 : std::stoll(rows[0][0]);
}

// The flamegraph of the process's last dump (all four views are columns of it).
std::string Flamegraph(const std::string& upid_expr) {
  return "experimental_flamegraph('native', (select max(ts) from heap_profile_allocation), "
         "NULL, (" +
         upid_expr + "), NULL, NULL)";
}

bool Have(const char* program) {
  return RunCmd(std::string("command -v ") + program + " >/dev/null 2>&1").exit_code == 0;
}

// Three threads, three call paths, known totals (accuracy_prog.cc). The statistical bound:
// with mean interval N every byte of an allocation < N is a point of a Poisson process, so
// the number of samples on a path that allocated T bytes is Poisson(T/N) and the estimate
// N*K has standard deviation sqrt(N*T) (0.9% of T for T = 48 MiB, N = 4096). We allow 5
// standard deviations (a false failure about once in 1.7 million runs). The unreleased
// bytes are the sampled blocks never freed: the same bound with T = bytes held. Paths
// with allocations >= N are recorded with their true size: exact.
TEST(HeapprofTest, AccuracyAtDefaultInterval) {
  std::string out = TempPath("accuracy.pftrace");
  RunResult r = RunCmd(Profile("", ACCURACY_PROG, out));
  ASSERT_EQ(r.exit_code, 0);
  std::map<std::string, std::pair<double, double>> truth;  // path -> (allocated, held)
  std::istringstream lines(r.out);
  std::string name;
  double allocated, held;
  while (lines >> name >> allocated >> held) truth[name] = {allocated, held};
  ASSERT_EQ(truth.size(), 3u) << r.out;

  auto tp = Load(out);
  std::string fg =
      Flamegraph("select upid from process where name like '%heapprof_accuracy_prog%'");
  const double n = 4096;
  for (const char* path : {"Small", "Medium", "Large"}) {
    SCOPED_TRACE(path);
    // The allocating frame and its caller, by name, parent linked.
    auto rows = Query(
        *tp, "select a.cumulative_alloc_size, a.cumulative_size from " + fg + " a join " + fg +
                 " p on a.parent_id = p.id where a.name = "
                 "'heapprof_test::Allocate" +
                 path + "(unsigned long)' and p.name like 'heapprof_test::Path" + path + "(%'");
    ASSERT_EQ(rows.size(), 1u);
    double est_alloc = std::stod(rows[0][0]), est_held = std::stod(rows[0][1]);
    auto [true_alloc, true_held] = truth[std::string("Path") + path];
    if (std::string(path) == "Large") {
      EXPECT_EQ(est_alloc, true_alloc);
      EXPECT_EQ(est_held, true_held);
    } else {
      EXPECT_NEAR(est_alloc, true_alloc, 5 * std::sqrt(n * true_alloc));
      EXPECT_NEAR(est_held, true_held, 5 * std::sqrt(n * true_held));
    }
  }
  // Full stacks: every path is rooted in the thread entry, not cut short.
  EXPECT_EQ(QueryInt(*tp, "select count(*) from " + fg +
                              " where name like 'heapprof_test::Path%' and depth < 2"),
            0);
  // The executable's mapping carries its build id (for offline symbolization).
  EXPECT_GT(QueryInt(*tp,
                     "select count(*) from stack_profile_mapping where name like "
                     "'%heapprof_accuracy_prog' and length(build_id) = 40"),
            0);
  fs::remove(out);
}

// Sampled blocks are padded and tagged (client.cc): every interposed API must still behave
// on them, in both directions (a sampled block handed to realloc, malloc_usable_size,
// libc's own getline, a forked child; an unsampled one realloc'ed into a sampled size).
// At --interval 1 every block is sampled and recorded with its true size, so what each
// path still holds is exact: nothing, except the two blocks kept on purpose.
TEST(HeapprofTest, EveryApiBehavesOnSampledBlocks) {
  ASSERT_EQ(RunCmd(APIS_PROG).out, "apis ok\n");  // the program's own checks, unprofiled
  for (const char* interval : {"4096", "1"}) {
    SCOPED_TRACE(interval);
    std::string out = TempPath(std::string("apis_") + interval + ".pftrace");
    RunResult r = RunCmd(Profile(std::string("--interval ") + interval, APIS_PROG, out));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, "apis ok\n");
    if (std::string(interval) != "1") {
      fs::remove(out);
      continue;
    }
    auto tp = Load(out);
    std::string fg = Flamegraph("select upid from process where name like '%heapprof_apis_prog%'");
    auto held = [&](const std::string& name, const std::string& parent) {
      return Query(*tp, "select sum(a.cumulative_size), sum(a.cumulative_alloc_size) from " + fg +
                            " a join " + fg + " p on a.parent_id = p.id where a.name = '" + name +
                            "' and p.name = '" + parent + "'");
    };
    auto kept = held("heapprof_apis::LeakSmall()", "main");
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_EQ(kept[0][0], "12345");
    kept = held("heapprof_apis::LeakPageAligned()", "main");
    ASSERT_EQ(kept.size(), 1u);
    EXPECT_EQ(kept[0][0], "8192");
    for (const char* path : {"MallocAndUsableSize", "Calloc", "Realloc", "AlignedFamily",
                             "CppOperators", "LibcOwnAllocations", "AcrossFork"}) {
      SCOPED_TRACE(path);
      auto rows = held(std::string("heapprof_apis::") + path + "()", "heapprof_apis::Exercise()");
      ASSERT_EQ(rows.size(), 1u);
      EXPECT_EQ(rows[0][0], "0");               // everything freed was seen freed
      EXPECT_GT(std::stoll(rows[0][1]), 1000);  // and it was all seen allocated
    }
    fs::remove(out);
  }
}

// A short program: at --interval 1 every block it allocates from the start of main is in
// the profile. The thread that connects had counted down an idle interval (256 KiB) from
// what it allocated before the profiler's constructor ran, and used to finish that first,
// so this program's 100 blocks were all missed.
TEST(HeapprofTest, ShortProgramIsProfiledFromItsFirstAllocation) {
  std::string out = TempPath("startup.pftrace");
  RunResult r = RunCmd(Profile("--interval 1", STARTUP_PROG, out));
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "startup ok\n");
  auto tp = Load(out);
  std::string fg = Flamegraph("select upid from process where name like '%heapprof_startup%'");
  auto rows = Query(*tp, "select sum(cumulative_size), sum(cumulative_count) from " + fg +
                             " where name = 'AllocateAtStart()'");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "6400");
  EXPECT_EQ(rows[0][1], "100");
  fs::remove(out);
}

#if defined(DLCLOSE_PROG)
// dlclose: module A is unloaded and module B loaded at the same addresses, with the same
// code layout but other frames (dlclose_lib.S), so B's call to malloc returns to the
// address A's did. Nothing remembered by that address may carry over from A to B: not the
// client's CFI rules (the shared table, used by a new thread, and the memo of the last
// walk, used by the thread that walked A), nor the collector's frame for the pc. A stale
// rule walks B's frame as A's and meets a decoy return address, whose frame then lands in
// the trace; a stale frame names A's module for B's blocks. (libunwind is no reference
// here: its per-thread trace cache keeps A's frame on the thread that walked A, even after
// unw_flush_cache, so verify mode would report B's 100 samples on that thread.)
// Allocation rows (a) with their innermost frame (f) and its mapping (m).
constexpr const char* kLeafFrames =
    " from heap_profile_allocation a join stack_profile_callsite c on a.callsite_id = c.id "
    "join stack_profile_frame f on c.frame_id = f.id "
    "join stack_profile_mapping m on f.mapping = m.id ";

// dlclose_prog.cc at --interval 1 (every block sampled) into *tp; left null when it could
// not be run (the test has failed or been skipped then).
void ProfileDlcloseProg(const std::string& mode, const std::string& out,
                        std::unique_ptr<TraceProcessor>* tp) {
  std::string program =
      std::string(DLCLOSE_PROG) + " " + DL_MODULE_A + " " + DL_MODULE_B + " " + mode;
  RunResult r = RunCmd(Profile("--interval 1", program, out) + " 2>&1");
  if (r.exit_code == 3) GTEST_SKIP() << "module B was not loaded where A was: " << r.out;
  ASSERT_EQ(r.exit_code, 0) << r.out;
  *tp = Load(out);
}

TEST(HeapprofTest, CodeUnloadedByDlcloseIsForgotten) {
  std::string out = TempPath("dlclose.pftrace");
  std::unique_ptr<TraceProcessor> tp;
  ProfileDlcloseProg("", out, &tp);
  if (!tp) return;
  // Each block's innermost frame is fathom_dl_alloc, in the module that allocated it: A's
  // 100 blocks of 64 bytes, B's 2 x 100 of 96.
  auto rows = Query(*tp, std::string("select m.name, sum(a.count), sum(a.size)") + kLeafFrames +
                             "where a.size > 0 and f.name = 'fathom_dl_alloc' group by m.name "
                             "order by m.name");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NE(rows[0][0].find("heapprof_dl_a"), std::string::npos) << rows[0][0];
  EXPECT_EQ(rows[0][1], "100");
  EXPECT_EQ(rows[0][2], "6400");
  EXPECT_NE(rows[1][0].find("heapprof_dl_b"), std::string::npos) << rows[1][0];
  EXPECT_EQ(rows[1][1], "200");
  EXPECT_EQ(rows[1][2], "19200");
  // Every one was called from AllocateThrough, with no decoy frame between.
  EXPECT_EQ(QueryInt(*tp, std::string("select count(*)") + kLeafFrames +
                              "join stack_profile_callsite pc on c.parent_id = pc.id "
                              "join stack_profile_frame pf on pc.frame_id = pf.id "
                              "where a.size > 0 and f.name = 'fathom_dl_alloc' and "
                              "pf.name like '%AllocateThrough%'"),
            QueryInt(*tp, std::string("select count(*)") + kLeafFrames +
                              "where a.size > 0 and f.name = 'fathom_dl_alloc'"));
  EXPECT_EQ(
      QueryInt(*tp, "select count(*) from stack_profile_frame where name = 'fathom_dl_decoy'"), 0);
  fs::remove(out);
}

// A program that exits (exit or _exit) right after allocating through a module it
// dlopen'ed: the frames first seen since the collector's last drain are resolved at exit,
// while the module is still mapped (they were "[unknown]": the collector read the maps of
// a process that was gone).
void ModuleFramesSurviveExit(const std::string& how) {
  std::string out = TempPath("exit.pftrace");
  std::unique_ptr<TraceProcessor> tp;
  ProfileDlcloseProg(how, out, &tp);
  if (!tp) return;
  // B's blocks (96 bytes), named or not.
  auto rows = Query(*tp, std::string("select m.name, sum(a.count)") + kLeafFrames +
                             "where a.size > 0 and a.size = 96 * a.count and "
                             "(f.name = 'fathom_dl_alloc' or m.name like '%unknown%') "
                             "group by m.name");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NE(rows[0][0].find("heapprof_dl_b"), std::string::npos) << rows[0][0];
  EXPECT_EQ(rows[0][1], "200");
  fs::remove(out);
}

TEST(HeapprofTest, ModuleFramesSurviveAnImmediateExit) {
  for (const char* how : {"exit", "_exit"}) {
    SCOPED_TRACE(how);
    ModuleFramesSurviveExit(how);
  }
}
#endif

TEST(HeapprofTest, ZeroIntervalIsAnErrorNotACrash) {
  std::string out = TempPath("zero.pftrace");
  RunResult r = RunCmd(Profile("--interval 0", "true", out) + " 2>&1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("--interval must be at least 1 byte"), std::string::npos) << r.out;
}

// A Debian binary built without frame pointers: libunwind must still reach main.
TEST(HeapprofTest, SortWithoutFramePointers) {
  if (!Have("sort")) GTEST_SKIP() << "no sort";
  std::string input = TempPath("sort_input.txt"), out = TempPath("sort.pftrace");
  {
    std::ofstream f(input);
    for (int64_t i = 0; i < 300000; i++) f << (i * 7919) % 1000003 << " line " << i << "\n";
  }
  RunResult r = RunCmd(Profile("", "sort " + input, out) + " > /dev/null");
  ASSERT_EQ(r.exit_code, 0);
  auto tp = Load(out);
  std::string fg = Flamegraph("select upid from process where name like 'sort%'");
  EXPECT_GT(QueryInt(*tp, "select count(*) from heap_profile_allocation"), 0);
  // Stacks reach the program's entry (_start in sort's own mapping, unnamed: Debian strips
  // .symtab) through libc's __libc_start_main, for nearly all of the allocated bytes.
  int64_t total =
      QueryInt(*tp, "select sum(cumulative_alloc_size) from " + fg + " where depth = 0");
  int64_t from_entry = QueryInt(*tp, "select cumulative_alloc_size from " + fg +
                                         " where depth = 0 and map_name like '%/sort'");
  EXPECT_GT(from_entry, total * 9 / 10);
  EXPECT_GT(QueryInt(*tp, "select count(*) from " + fg +
                              " where depth = 1 and name = '__libc_start_main'"),
            0);
  fs::remove(input);
  fs::remove(out);
}

// The client's CFI unwinder (frame_rules.h) against libunwind on programs nobody here
// built, without frame pointers: with FATHOM_HEAPPROF_VERIFY_UNWIND=1 every sample is
// unwound both ways and a difference printed. Every stack must agree, and the CFI walk
// must have taken nearly all of them (libunwind only where a frame is outside its subset).
TEST(HeapprofTest, CfiUnwindAgreesWithLibunwindOnRealPrograms) {
  std::string out = TempPath("verify.pftrace"), input = TempPath("verify_sort.txt");
  {
    std::ofstream f(input);
    for (int64_t i = 0; i < 200000; i++) f << (i * 7919) % 1000003 << " row " << i << "\n";
  }
  std::vector<std::string> programs;
  if (Have("python3"))
    programs.push_back(
        "python3 -c 'import json, re, threading\n"
        "def w():\n"
        "  d = [{\"a\": i, \"b\": str(i) * 3} for i in range(60000)]\n"
        "  s = json.dumps(d); json.loads(s); re.findall(r\"[0-9]+\", s[:100000])\n"
        "t = [threading.Thread(target=w) for _ in range(2)]\n"
        "[x.start() for x in t]; w(); [x.join() for x in t]'");
  if (Have("sort")) programs.push_back("sort -n " + input);
  if (Have("perl"))
    programs.push_back(
        "perl -e 'my %h; $h{\"k$_\"} = [$_, \"v\" x ($_ % 50)] for 1..100000; "
        "my @k = sort keys %h;'");
  if (programs.empty()) GTEST_SKIP() << "none of python3, sort, perl";
  uint64_t verified = 0, fell_back = 0;
  for (const std::string& program : programs) {
    // stderr into the pipe, stdout away: the client reports on stderr.
    RunResult r = RunCmd("FATHOM_HEAPPROF_VERIFY_UNWIND=1 " +
                         Profile("--interval 4096", program, out) + " 2>&1 >/dev/null");
    ASSERT_EQ(r.exit_code, 0) << program << "\n" << r.out;
    // Mismatches are printed as they happen; the totals at exit (not after _exit, as
    // sort ends).
    EXPECT_EQ(r.out.find("unwind mismatch"), std::string::npos) << program << "\n" << r.out;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      unsigned long long v = 0, f = 0;
      if (sscanf(line.c_str(),
                 "fathom-heapprof: unwinds verified %llu, fell back to libunwind %llu", &v,
                 &f) == 2) {
        verified += v;
        fell_back += f;
      }
    }
  }
  if (verified == 0 && fell_back == 0)
    GTEST_SKIP() << "no unwind was verified: libunwind.so.8 is not installed (the CFI walk is "
                    "off without it)";
  EXPECT_GT(verified, 1000u);
  EXPECT_LE(fell_back * 20, verified);
  fs::remove(out);
  fs::remove(input);
}

// python3: a real interpreter, a named flamegraph, several dumps over time.
TEST(HeapprofTest, Python3ContinuousDumps) {
  if (!Have("python3")) GTEST_SKIP() << "no python3";
  std::string out = TempPath("python.pftrace");
  std::string script =
      "import time\n"
      "keep = []\n"
      "for i in range(6):\n"
      "    keep.append([bytearray(10000) for _ in range(300)])\n"
      "    time.sleep(0.1)\n"
      // Everything stays alive for several dump intervals: on a loaded machine the
      // last one may otherwise land mid-batch, and the next only after exit freed it all.
      "time.sleep(0.6)\n";
  RunResult r = RunCmd(Profile("--dump-interval 100", "python3 -c '" + script + "'", out));
  ASSERT_EQ(r.exit_code, 0);
  auto tp = Load(out);
  EXPECT_GE(QueryInt(*tp, "select count(distinct ts) from heap_profile_allocation"), 3);
  std::string fg = Flamegraph("select upid from process where name like '%python3%'");
  // 6 * 300 blocks of 10000 bytes (>= interval: exact) are allocated; they are all alive
  // at some dump before the interpreter frees everything at exit. The unreleased size at a
  // dump is the running sum of the per-dump deltas.
  EXPECT_GE(QueryInt(*tp, "select sum(cumulative_alloc_size) from " + fg + " where depth = 0"),
            6 * 300 * 10000);
  EXPECT_GE(QueryInt(*tp,
                     "select max(held) from (select ts, sum(sum(size)) over (partition by upid "
                     "order by ts) as held from heap_profile_allocation group by upid, ts)"),
            6 * 300 * 10000);
  // Symbolized interpreter frames.
  EXPECT_GT(QueryInt(*tp, "select count(*) from " + fg + " where name like '%EvalFrame%'"), 0);
  fs::remove(out);
}

// Children: profiled only when asked; each child is its own process in the trace.
TEST(HeapprofTest, FollowChildren) {
  if (!Have("python3")) GTEST_SKIP() << "no python3";
  std::string py = "python3 -c \"x = [bytearray(50000) for _ in range(100)]\"";
  std::string cmd = "sh -c '" + py + "; " + py + "; :'";  // ':' so no exec of the last
  for (bool follow : {false, true}) {
    SCOPED_TRACE(follow);
    std::string out = TempPath("follow.pftrace");
    ASSERT_EQ(RunCmd(Profile(follow ? "--follow-children" : "", cmd, out)).exit_code, 0);
    auto tp = Load(out);
    int64_t pythons = QueryInt(*tp,
                               "select count(distinct a.upid) from heap_profile_allocation a "
                               "join process p using(upid) where p.name like '%python3%'");
    EXPECT_EQ(pythons, follow ? 2 : 0);
    fs::remove(out);
  }
}

// --pid: the collector asks only a process whose /proc status shows the signal caught,
// but the process may exec between that check and the kill (a pyenv shim or a wrapper
// script exec'ing the real program), and the new image has no handler yet. The request
// must then be dropped, not fatal: with SIGRTMIN+4 2-3 attaches in 10 to pyenv's python3
// killed it.
TEST(HeapprofTest, AttachRequestAfterAnExecDoesNotKill) {
  pid_t child = fork();
  if (child == 0) {
    execlp("sleep", "sleep", "5", nullptr);
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // exec'd: no handler
  ASSERT_EQ(kill(child, heapprof::kAttachSignal), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  int status = 0;
  EXPECT_EQ(waitpid(child, &status, WNOHANG), 0) << "killed by signal " << WTERMSIG(status);
  kill(child, SIGKILL);
  waitpid(child, &status, 0);
}

// --pid: a process started with the preload alone is attached later, on request.
TEST(HeapprofTest, AttachByPid) {
  if (!Have("python3")) GTEST_SKIP() << "no python3";
  std::string out = TempPath("attach.pftrace");
  pid_t child = fork();
  if (child == 0) {
    setenv("LD_PRELOAD", HEAPPROF_LIB, 1);
    execlp("python3", "python3", "-c",
           "import time\nkeep = []\nfor i in range(30):\n"
           "    keep.append(bytearray(100000)); time.sleep(0.05)\n",
           nullptr);
    _exit(127);
  }
  // The collector signals until the process connects (an exec in between, such as a
  // pyenv shim's, resets the handler), so no need to wait for python to be up.
  RunResult r = RunCmd(std::string(HEAPPROFD) + " -o " + out + " --pid " + std::to_string(child));
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  auto tp = Load(out);
  // Allocations made after attaching (most of the 30 blocks of 100 kB, exact size; the
  // interpreter frees them at exit, so count what was allocated).
  int64_t allocated = QueryInt(*tp,
                               "select sum(size) from heap_profile_allocation a join "
                               "process p using(upid) where size > 0 and p.pid = " +
                                   std::to_string(child));
  EXPECT_GE(allocated, 10 * 100000);
  fs::remove(out);
}

}  // namespace
}  // namespace fathom
