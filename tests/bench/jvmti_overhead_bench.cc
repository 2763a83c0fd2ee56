// Overhead of libfathom_jvmti.so on an allocation-bound Java workload
// (tests/device/jvmti/AllocWorkload: Point objects on the main thread,
// byte[1000] on a second thread), side by side with JFR's allocation
// profiling (settings=profile). Each configuration runs --reps times,
// interleaved. Printed (medians): the workload's wall time and its two
// allocating threads' CPU time (both measured inside the JVM, so start-up is
// excluded; thread CPU is the steadiest figure on a busy machine), the whole
// JVM's CPU time (user + sys, incl. GC, JIT and JFR threads), allocation
// throughput per thread-CPU second, wall time, peak RSS and the log size.
//
//   fathom-bench-jvmti --java JAVA --agent LIB --classes DIR [--points N]
//                      [--buffers N] [--reps N]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

struct Config {
  const char* name;
  std::vector<std::string> jvm_flags;
};

struct Sample {
  double workload_ms = 0, thread_cpu_ms = 0, wall_ms = 0, cpu_ms = 0, rss_mb = 0;
  bool ok = false;
};

// Runs `argv`, returning the workload's "elapsed_ms=" line, wall time and the
// child's peak RSS (wait4's rusage).
Sample RunOnce(const std::vector<std::string>& argv) {
  Sample s;
  int out[2];
  if (pipe(out) != 0) return s;
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(out[0], buf, sizeof(buf))) > 0;) text.append(buf, size_t(n));
  close(out[0]);
  int status = 0;
  rusage ru{};
  wait4(pid, &status, 0, &ru);
  s.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  s.rss_mb = ru.ru_maxrss / 1024.0;
  s.cpu_ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
             (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
  size_t at = text.find("elapsed_ms=");
  s.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && at != std::string::npos;
  if (s.ok) s.workload_ms = atof(text.c_str() + at + 11);
  if (size_t c = text.find("cpu_ms="); s.ok && c != std::string::npos)
    s.thread_cpu_ms = atof(text.c_str() + c + 7);
  if (!s.ok) fprintf(stderr, "run failed: %s\n", text.c_str());
  return s;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string java, agent, classes;
  long points = 50000000, buffers = 1000000;
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--java")
      java = v;
    else if (k == "--agent")
      agent = v;
    else if (k == "--classes")
      classes = v;
    else if (k == "--points")
      points = atol(v.c_str());
    else if (k == "--buffers")
      buffers = atol(v.c_str());
    else if (k == "--reps")
      reps = atoi(v.c_str());
  }
  if (java.empty() || agent.empty() || classes.empty()) {
    fprintf(stderr,
            "usage: %s --java JAVA --agent LIB --classes DIR [--points N] "
            "[--buffers N] [--reps N]\n",
            argv[0]);
    return 2;
  }
  std::string tmp =
      std::filesystem::temp_directory_path() / ("fathom_jvmti_bench_" + std::to_string(getpid()));
  std::filesystem::create_directories(tmp);
  std::vector<Config> configs = {
      {"plain", {}},
      {"fathom 512 KiB", {"-agentpath:" + agent + "=524288,64," + tmp + "/a512.log,bytes"}},
      {"fathom 32 KiB", {"-agentpath:" + agent + "=32768,64," + tmp + "/a32.log,bytes"}},
      {"JFR profile", {"-XX:StartFlightRecording=settings=profile,filename=" + tmp + "/r.jfr"}},
  };
  std::vector<std::vector<Sample>> samples(configs.size());
  for (int r = 0; r < reps; ++r) {
    for (size_t c = 0; c < configs.size(); ++c) {
      std::vector<std::string> cmd = {java};
      for (const auto& f : configs[c].jvm_flags) cmd.push_back(f);
      for (const char* a : {"-cp", classes.c_str(), "AllocWorkload"}) cmd.push_back(a);
      cmd.push_back(std::to_string(points));
      cmd.push_back(std::to_string(buffers));
      cmd.push_back("0");
      Sample s = RunOnce(cmd);
      if (!s.ok) return 1;
      samples[c].push_back(s);
    }
  }
  double alloc_mb = (points * 24.0 + buffers * 1016.0) / 1e6;
  printf("JVMTI overhead: %ld Points + %ld byte[1000] (~%.0f MB allocated), %d reps, medians\n",
         points, buffers, alloc_mb, reps);
  printf("%-16s %12s %8s %11s %8s %11s %9s %9s %9s %8s %10s\n", "config", "workload ms", "x plain",
         "thread cpu", "x plain", "process cpu", "x plain", "MB/s", "wall ms", "peak MB",
         "log bytes");
  double base = 0, cpu_base = 0, tcpu_base = 0;
  for (size_t c = 0; c < configs.size(); ++c) {
    std::vector<double> w, wall, cpu, tcpu, rss;
    for (const auto& s : samples[c]) {
      w.push_back(s.workload_ms);
      wall.push_back(s.wall_ms);
      cpu.push_back(s.cpu_ms);
      tcpu.push_back(s.thread_cpu_ms);
      rss.push_back(s.rss_mb);
    }
    double mw = Median(w);
    double mc = Median(cpu);
    double mt = Median(tcpu);
    if (c == 0) base = mw, cpu_base = mc, tcpu_base = mt;
    std::string log = c == 1   ? tmp + "/a512.log"
                      : c == 2 ? tmp + "/a32.log"
                      : c == 3 ? tmp + "/r.jfr"
                               : "";
    std::error_code ec;
    long long bytes = log.empty() ? 0 : (long long)std::filesystem::file_size(log, ec);
    printf("%-16s %12.0f %7.3fx %11.0f %7.3fx %11.0f %8.3fx %9.0f %9.0f %8.0f %10lld\n",
           configs[c].name, mw, base > 0 ? mw / base : 0, mt, tcpu_base > 0 ? mt / tcpu_base : 0,
           mc, cpu_base > 0 ? mc / cpu_base : 0, mt > 0 ? alloc_mb / (mt / 1000) : 0, Median(wall),
           *std::max_element(rss.begin(), rss.end()), bytes);
  }
  std::filesystem::remove_all(tmp);
  return 0;
}
