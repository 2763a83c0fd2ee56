// Native heap profiler overhead, side by side in one run: the allocation-bound workload
// (heapprof_workload, 2 threads) unprofiled, under Fathom at 4096 B and 512 KiB, under
// heaptrack and under jemalloc's sampling profiler (prof:true,lg_prof_sample:12, i.e. a
// 4 KiB mean interval) when Debian's libjemalloc2 is installed. Each configuration runs
// REPEAT times (round robin) and the median of each figure is printed (robust to runs disturbed by
// other load): wall time, CPU time of the workload process itself (user + system, as
// it reports it: the in-process cost of the hooks, unwinding and ring writes), CPU time
// of every process of the run (adds the collector and helpers), the slowdown of each
// and the peak RSS. On a shared, loaded machine the wall time mostly measures waiting
// for a core; the CPU-time ratios are the overhead the profiler adds and are the
// figures to compare. "paired" is the median of per-round ratios of workload CPU to
// the same round's unprofiled run, "vs floor" the same against the floor row, "least"
// the least workload CPU of the configuration over the unprofiled run's least.
//
// The "LD_PRELOAD forwarder (floor)" row runs the workload with a preload whose hooks
// only jump to glibc's allocator (heapprof_floor.cc): what interposition alone costs,
// the least any LD_PRELOAD profiler can add.
//
// The "fathom, no samples" row runs the profiler connected but with an interval no
// program reaches (1 TiB): the per-call cost of its malloc and free checks, apart from
// what samples cost.
//
// heapprof_workload's three profiles run, one table each (heapprof_workload.cc):
// "reference" (calibrated to the reference workload: heaptrack 17x, jemalloc's
// 4 KiB profiler 3.5x there; both rows are in its table to check that), then the harsher
// "small" (~80-byte blocks, hardly touched) and "mixed" (~580 bytes a block, so many
// more samples: jemalloc's 4 KiB profiler costs ~10x there).
//
//   fathom-bench-heapprof [--allocs N] [--repeat R] [--smoke] [--fathom-only]
//                         [--workload reference|small|mixed|all] [--compare DIR]
//   --fathom-only  skips jemalloc and heaptrack (minutes per run at 20 M allocations)
//   --compare DIR  adds rows for DIR/fathom-heapprofd + DIR/libfathom_heapprof.so (a copy
//                  of an older build), interleaved with the others: an A/B in one run
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Measure {
  double wall = 0, workload = 0, self_cpu = 0, cpu = 0;
  long max_rss_kb = 0;
  bool ok = false;
};

// Runs `sh -c cmd`, capturing the workload's self-reported time from stdout.
Measure RunOnce(const std::string& cmd) {
  Measure m;
  int pipefd[2];
  if (pipe(pipefd) != 0) return m;
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(pipefd[1], 1);
    close(pipefd[0]);
    execl("/bin/sh", "sh", "-c", cmd.c_str(), nullptr);
    _exit(127);
  }
  close(pipefd[1]);
  std::string out;
  char buf[512];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(pipefd[0]);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  m.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // wait4 reports the maximum over sh and every descendant it reaped (the workload,
  // the collector, heaptrack's helpers): the peak RSS of the run.
  m.max_rss_kb = ru.ru_maxrss;
  m.cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
          static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  const char* w = strstr(out.c_str(), "workload_seconds ");
  m.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && w;
  if (w) m.workload = atof(w + strlen("workload_seconds "));
  const char* c = strstr(out.c_str(), "cpu_seconds ");
  m.ok = m.ok && c;
  if (c) m.self_cpu = atof(c + strlen("cpu_seconds "));
  if (!m.ok) fprintf(stderr, "bench: '%s' failed:\n%s\n", cmd.c_str(), out.c_str());
  return m;
}

std::string Dir(const char* argv0) {
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string p = n > 0 ? std::string(self, static_cast<size_t>(n)) : argv0;
  return p.substr(0, p.rfind('/') + 1);
}

constexpr const char* kTracePath = "/tmp/fathom-bench-heapprof.pftrace";

bool Exists(const std::string& path) { return access(path.c_str(), R_OK) == 0; }

double MedianOf(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Median of one figure over the successful runs.
double Median(const std::vector<Measure>& runs, double Measure::*field) {
  std::vector<double> v;
  for (const Measure& m : runs)
    if (m.ok) v.push_back(m.*field);
  return MedianOf(v);
}

// Least of one figure over the successful runs: load on a shared machine only ever adds
// time, so the least run is the closest to the cost itself.
double Least(const std::vector<Measure>& runs, double Measure::*field) {
  double least = 0;
  for (const Measure& m : runs)
    if (m.ok && (least == 0 || m.*field < least)) least = m.*field;
  return least;
}

// Median over the rounds of runs[r].field / base[r].field, for the rounds where both
// succeeded: each ratio compares two runs made a few seconds apart, so load that
// comes and goes on a shared machine cancels out of it better than out of a ratio
// of two medians.
double PairedRatio(const std::vector<Measure>& runs, const std::vector<Measure>& base,
                   double Measure::*field) {
  std::vector<double> v;
  for (size_t r = 0; r < runs.size() && r < base.size(); r++)
    if (runs[r].ok && base[r].ok && base[r].*field > 0)
      v.push_back(runs[r].*field / base[r].*field);
  return MedianOf(v);
}

// One size profile: every configuration REPEAT times round robin, then its table.
void RunProfile(const std::string& dir, const char* profile, uint64_t allocs, int repeat,
                bool fathom_only, const std::string& compare) {
  std::string workload =
      dir + "heapprof_workload 2 " + std::to_string(allocs) + " " + std::string(profile);
  std::string heapprofd = dir + "fathom-heapprofd", trace = kTracePath;
  struct Config {
    std::string name, cmd, skip;
  };
  std::vector<Config> configs = {
      {"unprofiled", workload, ""},
      {"LD_PRELOAD forwarder (floor)",
       "LD_PRELOAD=" + dir + "libfathom_heapprof_floor.so " + workload, ""},
      {"fathom, no samples (hooks)",
       heapprofd + " --interval 1099511627776 -o " + trace + " -- " + workload, ""},
      {"fathom 4096 B", heapprofd + " --interval 4096 -o " + trace + " -- " + workload, ""},
      {"fathom 512 KiB", heapprofd + " --interval 524288 -o " + trace + " -- " + workload, ""},
  };
  if (!compare.empty()) {
    std::string old = compare + "/fathom-heapprofd --lib " + compare + "/libfathom_heapprof.so";
    configs.push_back(
        {"compare 4096 B", old + " --interval 4096 -o " + trace + " -- " + workload, ""});
    configs.push_back(
        {"compare 512 KiB", old + " --interval 524288 -o " + trace + " -- " + workload, ""});
  }
  const char* jemalloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
  if (!fathom_only && Exists(jemalloc)) {
    configs.push_back(
        {"jemalloc (no prof)", std::string("LD_PRELOAD=") + jemalloc + " " + workload, ""});
    configs.push_back({"jemalloc prof 4 KiB",
                       std::string("MALLOC_CONF=prof:true,lg_prof_sample:12 LD_PRELOAD=") +
                           jemalloc + " " + workload,
                       ""});
    configs.push_back({"jemalloc prof 512 KiB",
                       std::string("MALLOC_CONF=prof:true,lg_prof_sample:19 LD_PRELOAD=") +
                           jemalloc + " " + workload,
                       ""});
  } else if (!fathom_only) {
    configs.push_back({"jemalloc prof 4 KiB", "", "skipped: libjemalloc2 not installed"});
  }
  if (fathom_only) {
    // --fathom-only: no jemalloc or heaptrack rows.
  } else if (system("command -v heaptrack >/dev/null 2>&1") == 0) {
    configs.push_back(
        {"heaptrack",
         "heaptrack -o /tmp/fathom-bench-heaptrack " + workload + " | grep workload_seconds", ""});
  } else {
    configs.push_back({"heaptrack", "", "skipped: heaptrack not installed"});
  }

  printf("\nworkload %s: 2 threads x %llu malloc/free pairs, median of %d runs\n", profile,
         static_cast<unsigned long long>(allocs), repeat);
  printf("%-29s %8s %8s %8s %8s %8s %8s %9s %9s %8s %8s %8s\n", "configuration", "wall s",
         "slowdown", "wl CPU s", "slowdown", "all CPU", "slowdown", "allocs/s", "RSS MB", "paired",
         "vs floor", "least");
  double base_wall = 0, base_self = 0, base_cpu = 0;
  // Round robin (every configuration once per round): load that comes and goes on a
  // shared machine then hits all configurations alike instead of biasing one.
  std::vector<std::vector<Measure>> runs(configs.size());
  for (int r = 0; r < repeat; r++) {
    for (size_t i = 0; i < configs.size(); i++) {
      if (!configs[i].skip.empty()) continue;
      runs[i].push_back(RunOnce(configs[i].cmd));  // failed runs too: rounds stay aligned
    }
  }
  for (size_t i = 0; i < configs.size(); i++) {
    const Config& c = configs[i];
    if (!c.skip.empty()) {
      printf("%-29s %s\n", c.name.c_str(), c.skip.c_str());
      continue;
    }
    if (std::none_of(runs[i].begin(), runs[i].end(), [](const Measure& m) { return m.ok; })) {
      printf("%-29s failed\n", c.name.c_str());
      continue;
    }
    double wall = Median(runs[i], &Measure::wall), self = Median(runs[i], &Measure::self_cpu);
    double cpu = Median(runs[i], &Measure::cpu), workload = Median(runs[i], &Measure::workload);
    long rss = 0;
    for (const Measure& m : runs[i]) rss = std::max(rss, m.max_rss_kb);
    if (base_wall == 0) base_wall = wall, base_self = self, base_cpu = cpu;
    // Workload CPU, round by round, against the unprofiled run and against the floor
    // (what any LD_PRELOAD interposer pays).
    double paired = PairedRatio(runs[i], runs[0], &Measure::self_cpu);
    double vs_floor = PairedRatio(runs[i], runs[1], &Measure::self_cpu);
    double least = Least(runs[i], &Measure::self_cpu) / Least(runs[0], &Measure::self_cpu);
    printf("%-29s %8.3f %7.2fx %8.3f %7.2fx %8.3f %7.2fx %8.2fM %9.1f %7.2fx %7.2fx %7.2fx\n",
           c.name.c_str(), wall, wall / base_wall, self, self / base_self, cpu, cpu / base_cpu,
           2.0 * static_cast<double>(allocs) / workload / 1e6, rss / 1024.0, paired, vs_floor,
           least);
  }
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t allocs = 5000000;
  int repeat = 5;
  bool fathom_only = false;
  std::string compare, profiles = "all";
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--allocs") && i + 1 < argc)
      allocs = strtoull(argv[++i], nullptr, 10);
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--smoke"))
      allocs = 100000, repeat = 1;
    else if (!strcmp(argv[i], "--fathom-only"))
      fathom_only = true;
    else if (!strcmp(argv[i], "--compare") && i + 1 < argc)
      compare = argv[++i];
    else if (!strcmp(argv[i], "--workload") && i + 1 < argc)
      profiles = argv[++i];
    else {
      fprintf(stderr,
              "usage: fathom-bench-heapprof [--allocs N] [--repeat R] [--smoke] "
              "[--fathom-only] [--workload mixed|small|reference|all] [--compare DIR]\n");
      return 2;
    }
  }
  const char* const kProfiles[] = {"reference", "small", "mixed"};
  if (profiles != "all" &&
      std::find(std::begin(kProfiles), std::end(kProfiles), profiles) == std::end(kProfiles)) {
    fprintf(stderr, "fathom-bench-heapprof: --workload takes reference, small, mixed or all\n");
    return 2;
  }
  std::string dir = Dir(argv[0]);
  for (const char* profile : kProfiles) {
    if (profiles != "all" && profiles != profile) continue;
    RunProfile(dir, profile, allocs, repeat, fathom_only, compare);
  }
  unlink(kTracePath);
  system("rm -f /tmp/fathom-bench-heaptrack*");
  return 0;
}
