// `fathom-cli heapprofile`: run a program (or attach to a preloaded one) under the native
// heap profiler. The work is done by fathom-heapprofd, the same collector that runs on a
// device; this command finds it next to fathom-cli, runs it, and summarises the trace.
#include <limits.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/commands.h"
#include "app/cli/load.h"
#include "app/cli/terminal_text.h"

namespace fathom::cli {
namespace {

void Usage() {
  fprintf(stderr,
          "usage: fathom-cli heapprofile [--interval BYTES] [--dump-interval MS] [--block]\n"
          "                              [--follow-children] -o OUT.pftrace\n"
          "                              (-- PROGRAM ARGS... | --pid PID)\n"
          "  --interval BYTES     mean sampling interval (default 4096)\n"
          "  --dump-interval MS   dump every MS milliseconds as well as at the end\n"
          "                       (default 1000; 0 = at the end only)\n"
          "  --block              make the program wait instead of dropping samples\n"
          "  --follow-children    profile the program's child processes too\n"
          "  --pid PID            attach to a process started with\n"
          "                       LD_PRELOAD=libfathom_heapprof.so\n"
          "  SIGUSR1 to fathom-heapprofd writes a dump immediately.\n");
}

std::string SiblingBinary(const char* name) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return name;
  std::string dir(self, static_cast<size_t>(n));
  return dir.substr(0, dir.rfind('/') + 1) + name;
}

}  // namespace

int RunHeapprofile(const std::vector<std::string>& args) {
  std::string out;
  bool has_target = false;
  for (size_t i = 0; i < args.size(); i++) {
    if (args[i] == "-h" || args[i] == "--help") {
      Usage();
      return 0;
    }
    if (args[i] == "--") {
      has_target = i + 1 < args.size();
      break;
    }
    if (args[i] == "--pid") has_target = true;
    if (args[i] == "-o" && i + 1 < args.size()) out = args[i + 1];
  }
  if (out.empty() || !has_target) {
    Usage();
    return 2;
  }
  std::string collector = SiblingBinary("fathom-heapprofd");
  if (access(collector.c_str(), X_OK) != 0) {
    fprintf(stderr, "fathom-cli: cannot find %s\n", collector.c_str());
    return 1;
  }
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> argv{collector.data()};
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(collector.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (code == 2) return 2;  // usage error, already reported

  TraceProcessor tp;
  if (access(out.c_str(), R_OK) != 0 || !LoadOrReport(&tp, out)) return code ? code : 1;
  auto it = tp.Query(
      "select p.pid, coalesce(p.name, ''), count(distinct a.ts), sum(max(a.size, 0)), "
      "sum(a.size) from heap_profile_allocation a join process p using(upid) group by a.upid "
      "order by 5 desc");
  if (it->NextResultSet()) {
    fprintf(stderr, "%8s %12s %14s %5s  %s\n", "pid", "unreleased", "allocated", "dumps",
            "process");
    while (it->NextRow()) {
      // The process name is the profiled program's own (argv[0], comm).
      fprintf(stderr, "%8" PRId64 " %12" PRId64 " %14" PRId64 " %5" PRId64 "  %s\n", it->Get(0).i,
              it->Get(4).i, it->Get(3).i, it->Get(2).i, TerminalSafe(it->Get(1).s).c_str());
    }
  }
  fprintf(stderr, "open it with: fathom %s\n", out.c_str());
  return code;
}

}  // namespace fathom::cli
