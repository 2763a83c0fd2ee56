// fathom-bench-load: loads one trace with TraceProcessor and reports load
// throughput, peak memory and time to first query. Linux-only (getrusage).
//
//   fathom-bench-load TRACE [--csv] [--require-rows table,table...] [--load-only]
//
// --csv prints one line: file,MB,load_s,MB/s,events,events/s,bytes/event,
// peak_rss_MB,first_query_s,sched_rows,counter_rows,slice_rows.
// --require-rows fails (exit 1) when any listed table is empty (smoke tests).
// --load-only stops after the load figures (for perf stat / perf record of the load
// alone: the queries and the first args read after it are left out).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/platform.h"
#include "core/trace_processor.h"

namespace {

double PeakRssMb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is KiB on Linux
}

// CPU seconds (user + system) of this process so far: on a shared machine
// wall time mostly measures the neighbours, CPU time measures us.
double CpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return s(ru.ru_utime) + s(ru.ru_stime);
}

// CPU seconds of the calling (loading) thread: with the loader's helper
// threads on other cores, this is the load's critical path, and unlike wall
// time it does not count the neighbours' share of a busy machine.
double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

int64_t CountRows(fathom::TraceProcessor& tp, const std::string& table) {
  auto it = tp.Query("select count(*) from " + table);
  if (!it->NextResultSet() || !it->NextRow()) return -1;
  return it->Get(0).i;
}

}  // namespace

int main(int argc, char** argv) {
  using Clock = std::chrono::steady_clock;
  std::string path;
  bool csv = false, load_only = false;
  std::vector<std::string> required;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--csv") {
      csv = true;
    } else if (a == "--load-only") {
      load_only = true;
    } else if (a == "--require-rows" && i + 1 < argc) {
      std::stringstream ss(argv[++i]);
      std::string t;
      while (std::getline(ss, t, ',')) required.push_back(t);
    } else if (path.empty() && a[0] != '-') {
      path = a;
    } else {
      fprintf(stderr,
              "usage: fathom-bench-load TRACE [--csv] [--require-rows t1,t2] [--load-only]\n");
      return 2;
    }
  }
  if (path.empty()) {
    fprintf(stderr,
            "usage: fathom-bench-load TRACE [--csv] [--require-rows t1,t2] [--load-only]\n");
    return 2;
  }

  fathom::TraceProcessor tp;
  auto t0 = Clock::now();
  // The last progress report of the reading phase comes right after the last
  // chunk is tokenized: it splits read+tokenize from sort+parse.
  auto t_sort = t0;
  double thread_s0 = ThreadCpuSeconds(), thread_s_sort = thread_s0;
  fathom::Status st = tp.LoadFile(path, [&](const fathom::LoadProgress& p) {
    if (p.phase == fathom::LoadProgress::kReading) {
      t_sort = Clock::now();
      thread_s_sort = ThreadCpuSeconds();
    }
    return true;
  });
  auto t1 = Clock::now();
  double load_cpu_s = CpuSeconds();
  double load_thread_s = ThreadCpuSeconds() - thread_s0;
  if (!st.ok()) {
    fprintf(stderr, "load failed: %s\n", st.message().c_str());
    return 1;
  }
  if (load_only) {
    double s = std::chrono::duration<double>(t1 - t0).count();
    printf("load             %.2f s\ncpu              %.2f s\npeak RSS         %.0f MB\n", s,
           load_cpu_s, PeakRssMb());
    return 0;
  }
  int64_t sched_rows = CountRows(tp, "sched");
  auto t2 = Clock::now();
  int64_t counter_rows = CountRows(tp, "counter");
  int64_t slice_rows = CountRows(tp, "slice");

  const auto& r = tp.report();
  double load_s = std::chrono::duration<double>(t1 - t0).count();
  double first_query_s = std::chrono::duration<double>(t2 - t0).count();
  double mb = static_cast<double>(r.file_bytes) / (1 << 20);
  double events = static_cast<double>(r.events);
  double bytes_per_event = events > 0 ? static_cast<double>(r.file_bytes) / events : 0;
  double rss = PeakRssMb();

  if (csv) {
    printf("%s,%.1f,%.2f,%.1f,%.0f,%.0f,%.1f,%.0f,%.2f,%lld,%lld,%lld\n", path.c_str(), mb, load_s,
           mb / load_s, events, events / load_s, bytes_per_event, rss, first_query_s,
           static_cast<long long>(sched_rows), static_cast<long long>(counter_rows),
           static_cast<long long>(slice_rows));
  } else {
    printf("trace            %s (%s)\n", path.c_str(), r.format.c_str());
    printf("size             %.1f MB, %llu packets, %.0f events\n", mb,
           static_cast<unsigned long long>(r.packets), events);
    printf("load             %.2f s  (%.1f MB/s, %.0f events/s)\n", load_s, mb / load_s,
           events / load_s);
    printf("cpu              %.2f s  (%.1f MB/s, %.0f events/s per CPU second)\n", load_cpu_s,
           mb / load_cpu_s, events / load_cpu_s);
    printf(
        "loading thread   %.2f s CPU (%.1f MB/s, %.0f events/s; its helper threads run on "
        "other cores)\n",
        load_thread_s, mb / load_thread_s, events / load_thread_s);
    // On N idle cores a load can take no less than its loading thread, nor
    // than its CPU time spread over the cores: wall time on an idle machine
    // should come close to this; on a busy one it measures the neighbours.
    unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    double bound = std::max(load_thread_s, load_cpu_s / cores);
    printf(
        "idle-machine est %.2f s on %u cores (%.1f MB/s, %.0f events/s): max(loading thread, "
        "CPU / cores)\n",
        bound, cores, mb / bound, events / bound);
    printf(
        "phases           read+tokenize %.2f s, sort+parse %.2f s (loading thread CPU: %.2f s, "
        "%.2f s)\n",
        std::chrono::duration<double>(t_sort - t0).count(),
        std::chrono::duration<double>(t1 - t_sort).count(), thread_s_sort - thread_s0,
        load_thread_s - (thread_s_sort - thread_s0));
    printf("bytes/event      %.1f\n", bytes_per_event);
    printf("huge pages       %s\n", fathom::platform::LargeBlockPages());
    printf("peak RSS         %.0f MB  (%.2fx file size; sorter peak %.0f MB)\n", rss,
           mb > 0 ? rss / mb : 0, static_cast<double>(r.peak_sort_bytes) / (1 << 20));
    printf("first query      %.2f s  (load + select count(*) from sched)\n", first_query_s);
    printf("rows             sched %lld, counter %lld, slice %lld\n",
           static_cast<long long>(sched_rows), static_cast<long long>(counter_rows),
           static_cast<long long>(slice_rows));
    // Raw ftrace args are written on the first read of the args table, not
    // at load: report what that first read costs (after the load figures,
    // so the peak above is the load's own).
    double cpu0 = CpuSeconds();
    auto a0 = Clock::now();
    int64_t args_rows = CountRows(tp, "args");
    printf("args first read  %lld rows, %.2f s CPU (%.2f s wall), peak RSS after %.0f MB\n",
           static_cast<long long>(args_rows), CpuSeconds() - cpu0,
           std::chrono::duration<double>(Clock::now() - a0).count(), PeakRssMb());
    if (getenv("FATHOM_BENCH_TABLES")) {
      for (const char* t : {"ftrace_event", "args", "thread_state", "sched", "thread", "process",
                            "track", "instant"})
        printf("rows             %s %lld\n", t, static_cast<long long>(CountRows(tp, t)));
    }
    for (const auto& w : r.warnings) printf("warning          %s\n", w.c_str());
  }
  for (const auto& t : required) {
    int64_t n = CountRows(tp, t);
    if (n <= 0) {
      fprintf(stderr, "expected rows in table %s, found %lld\n", t.c_str(),
              static_cast<long long>(n));
      return 1;
    }
  }
  return 0;
}
