// Overhead of fathom-recorder: CPU time (user + system, from wait4) per second of recording
// with every /proc source at 100 ms (process_stats over every process, meminfo, vmstat and
// stat), plus peak RSS and trace bytes per second. The target is < 2 % of one core.
//   fathom-bench-recorder [--seconds N] [--recorder PATH]
#include <dirent.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

extern char** environ;

namespace {

const char kConfig[] = R"(
write_into_file: true
file_write_period_ms: 1000
data_sources { config { name: "linux.process_stats" process_stats_config {
  scan_all_processes_on_start: true proc_stats_poll_ms: 100 } } }
data_sources { config { name: "linux.sys_stats" sys_stats_config {
  meminfo_period_ms: 100 vmstat_period_ms: 100 stat_period_ms: 100 } } }
)";

int CountProcesses() {
  int n = 0;
  if (DIR* d = opendir("/proc")) {
    while (dirent* e = readdir(d)) n += e->d_name[0] >= '1' && e->d_name[0] <= '9';
    closedir(d);
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 10;
  std::string recorder = FATHOM_RECORDER;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
      seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--recorder") && i + 1 < argc)
      recorder = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--seconds N] [--recorder PATH]\n", argv[0]);
      return 2;
    }
  }
  char dir[] = "/tmp/fathom-bench-recorder-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  std::string config_path = std::string(dir) + "/config.txt";
  std::string out = std::string(dir) + "/trace.pftrace";
  std::string config = "duration_ms: " + std::to_string(static_cast<int>(seconds * 1000)) + kConfig;
  FILE* f = fopen(config_path.c_str(), "w");
  fputs(config.c_str(), f);
  fclose(f);

  int procs = CountProcesses();
  const char* args[] = {recorder.c_str(), "-c",   config_path.c_str(), "--txt", "-o",
                        out.c_str(),      nullptr};
  auto start = std::chrono::steady_clock::now();
  pid_t pid;
  if (posix_spawn(&pid, args[0], nullptr, nullptr, const_cast<char**>(args), environ) != 0) {
    fprintf(stderr, "cannot run %s\n", recorder.c_str());
    return 1;
  }
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "recorder failed (status %d)\n", status);
    return 1;
  }
  struct stat st {};
  stat(out.c_str(), &st);
  double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
               ru.ru_stime.tv_usec / 1e6;
  printf(
      "recorder overhead: %.1f s recording, %d processes polled every 100 ms + "
      "meminfo/vmstat/stat\n",
      wall, procs);
  printf("  cpu: %.3f s (user %.3f, sys %.3f) = %.2f ms/s = %.2f %% of one core (target < 2 %%)\n",
         cpu, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
         ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, cpu * 1000 / wall, cpu * 100 / wall);
  printf("  trace: %lld bytes (%.1f KB/s), peak RSS %ld KB\n", static_cast<long long>(st.st_size),
         st.st_size / 1024.0 / wall, ru.ru_maxrss);
  unlink(out.c_str());
  unlink(config_path.c_str());
  rmdir(dir);
  return 0;
}
