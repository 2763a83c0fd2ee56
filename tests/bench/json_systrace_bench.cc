// fathom-bench-json-systrace: generates a Chrome JSON trace and an ftrace
// text dump of the given size, loads each in its own child process (so each
// peak RSS is its own) and prints MB/s and peak RSS. Linux-only (fork,
// getrusage).
//
//   fathom-bench-json-systrace [--size-mb 500] [--dir /tmp] [--keep]
//     [--require-rows]   exit 1 if a load fills no rows (ctest smoke mode)
//     [--only json|systrace]   measure one of the two
//     [--archives MB]   also a zip, a tar and a tar.gz of an MB-sized Chrome
//                       JSON trace (made with zip(1)/tar(1)): members stream,
//                       so peak RSS should stay near the plain JSON's
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>

#include "core/trace_processor.h"

namespace {

// ~100-byte events, the shape of a Chrome trace: nested B/E on 8 threads of
// 4 processes, X slices, counters and instants.
void WriteJson(FILE* f, uint64_t bytes) {
  fputs("{\"traceEvents\":[\n", f);
  uint64_t written = 0;
  uint64_t ts_ns = 1000000;
  for (uint64_t i = 0; written < bytes; ++i) {
    int tid = static_cast<int>(i % 8), pid = 100 + tid / 2;
    char buf[256];
    int n;
    ts_ns += 1237;
    double ts = static_cast<double>(ts_ns) / 1000.0;
    switch (i % 8) {
      case 0:
      case 1:
        n = snprintf(buf, sizeof buf,
                     "{\"ph\":\"B\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"cat\":\"blink\","
                     "\"name\":\"Frame%d\",\"args\":{\"n\":%llu}},\n",
                     pid, tid, ts, static_cast<int>(i % 5), static_cast<unsigned long long>(i));
        break;
      case 2:
      case 3:
        // Ends the slice the B two events earlier opened on thread tid - 2
        // (whose process is 100 + (tid - 2) / 2).
        n = snprintf(buf, sizeof buf, "{\"ph\":\"E\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f},\n",
                     100 + (tid + 6) % 8 / 2, (tid + 6) % 8, ts);
        break;
      case 4:
      case 5:
        n = snprintf(buf, sizeof buf,
                     "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":0.5,\"cat\":\"v8\","
                     "\"name\":\"Compile\"},\n",
                     pid, tid, ts);
        break;
      case 6:
        n = snprintf(
            buf, sizeof buf,
            "{\"ph\":\"C\",\"pid\":%d,\"ts\":%.3f,\"name\":\"heap\",\"args\":{\"mb\":%d}},\n", pid,
            ts, static_cast<int>(i % 1000));
        break;
      default:
        n = snprintf(
            buf, sizeof buf,
            "{\"ph\":\"i\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"s\":\"t\",\"name\":\"Mark\"},\n",
            pid, tid, ts);
    }
    fwrite(buf, 1, static_cast<size_t>(n), f);
    written += static_cast<uint64_t>(n);
  }
  // Chrome writes its metadata events (process and thread names) after the
  // timed ones, with ts 0: a realistic out-of-order tail for the sorter.
  for (int pid = 100; pid < 104; ++pid)
    fprintf(f,
            "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"ts\":0,\"cat\":\"__metadata\","
            "\"name\":\"process_name\",\"args\":{\"name\":\"Renderer %d\"}},\n",
            pid, pid, pid);
  for (int tid = 0; tid < 8; ++tid)
    fprintf(f,
            "{\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"ts\":0,\"cat\":\"__metadata\","
            "\"name\":\"thread_name\",\"args\":{\"name\":\"Worker %d\"}}%s\n",
            100 + tid / 2, tid, tid, tid == 7 ? "" : ",");
  fputs("]}\n", f);
}

// ~120-byte lines: sched_switch/sched_waking/cpu_idle/atrace markers/an
// event with only a generic translation, on 8 CPUs.
void WriteSystrace(FILE* f, uint64_t bytes) {
  fputs("# tracer: nop\n#\n", f);
  uint64_t written = 0;
  uint64_t ts_us = 1000000000;
  for (uint64_t i = 0; written < bytes; ++i) {
    int cpu = static_cast<int>(i % 8);
    int a = 1000 + static_cast<int>(i % 64), b = 1000 + static_cast<int>((i + 1) % 64);
    ts_us += 3;
    unsigned long long sec = ts_us / 1000000, usec = ts_us % 1000000;
    char buf[320];
    int n;
    switch (i % 6) {
      case 0:
      case 1:
        n = snprintf(buf, sizeof buf,
                     "   worker-%d  ( %d) [%03d] d..3 %llu.%06llu: sched_switch: prev_comm=worker "
                     "prev_pid=%d prev_prio=120 prev_state=S ==> next_comm=worker next_pid=%d "
                     "next_prio=120\n",
                     a, a, cpu, sec, usec, a, b);
        break;
      case 2:
        n = snprintf(buf, sizeof buf,
                     "   worker-%d  ( %d) [%03d] d..4 %llu.%06llu: sched_waking: comm=worker "
                     "pid=%d prio=120 target_cpu=%03d\n",
                     a, a, cpu, sec, usec, b, (cpu + 1) % 8);
        break;
      case 3:
        n = snprintf(
            buf, sizeof buf,
            "   <idle>-0     (-----) [%03d] d..2 %llu.%06llu: cpu_idle: state=1 cpu_id=%d\n", cpu,
            sec, usec, cpu);
        break;
      case 4:
        n = snprintf(buf, sizeof buf,
                     "   worker-%d  ( %d) [%03d] ...1 %llu.%06llu: tracing_mark_write: %s\n", a, a,
                     cpu, sec, usec, (i / 6) % 2 ? "E|100" : "B|100|doFrame");
        break;
      default:
        n = snprintf(buf, sizeof buf,
                     "   worker-%d  ( %d) [%03d] ...1 %llu.%06llu: block_rq_issue: dev=8,0 "
                     "sector=%llu nr_sector=8 comm=worker\n",
                     a, a, cpu, sec, usec, static_cast<unsigned long long>(i));
    }
    fwrite(buf, 1, static_cast<size_t>(n), f);
    written += static_cast<uint64_t>(n);
  }
}

int64_t Rows(fathom::TraceProcessor& tp, const char* table) {
  auto it = tp.Query(std::string("select count(*) from ") + table);
  if (!it->NextResultSet() || !it->NextRow()) return -1;
  return it->Get(0).i;
}

// Loads `path` in a child; returns the child's exit status.
int Measure(const char* label, const std::string& path, bool require_rows) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    auto t0 = std::chrono::steady_clock::now();
    fathom::TraceProcessor tp;
    fathom::Status st = tp.LoadFile(path);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!st.ok()) {
      fprintf(stderr, "%s: %s\n", label, st.message().c_str());
      _exit(1);
    }
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    double mb = static_cast<double>(tp.report().file_bytes) / 1e6;
    int64_t slices = Rows(tp, "slice"), sched = Rows(tp, "sched"), raw = Rows(tp, "ftrace_event");
    // CPU seconds too: on a shared machine wall time includes waiting.
    double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    printf(
        "%-14s %8.1f MB  %7.2f s  %7.1f MB/s  (cpu %6.2f s, %7.1f MB/s per CPU s)  "
        "peak RSS %7.1f MB  events %llu  slices %lld sched %lld raw %lld\n",
        label, mb, s, mb / s, cpu, mb / cpu, static_cast<double>(ru.ru_maxrss) / 1024.0,
        static_cast<unsigned long long>(tp.report().events), static_cast<long long>(slices),
        static_cast<long long>(sched), static_cast<long long>(raw));
    fflush(stdout);
    _exit(require_rows && slices <= 0 ? 1 : 0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t size_mb = 500;
  std::string dir = "/tmp";
  bool keep = false, require_rows = false;
  std::string only;
  uint64_t archive_mb = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--size-mb" && i + 1 < argc)
      size_mb = strtoull(argv[++i], nullptr, 10);
    else if (a == "--dir" && i + 1 < argc)
      dir = argv[++i];
    else if (a == "--keep")
      keep = true;
    else if (a == "--require-rows")
      require_rows = true;
    else if (a == "--only" && i + 1 < argc)
      only = argv[++i];
    else if (a == "--archives" && i + 1 < argc)
      archive_mb = strtoull(argv[++i], nullptr, 10);
    else {
      fprintf(stderr,
              "usage: fathom-bench-json-systrace [--size-mb N] [--dir D] [--keep] "
              "[--require-rows] [--only json|systrace] [--archives MB]\n");
      return 2;
    }
  }
  std::string tag = std::to_string(getpid());
  std::string json = dir + "/fathom-bench-" + tag + ".json";
  std::string text = dir + "/fathom-bench-" + tag + ".systrace.txt";
  int rc = 0;
  for (auto [label, path, writer] : {std::tuple{"chrome json", json, &WriteJson},
                                     std::tuple{"systrace text", text, &WriteSystrace}}) {
    if (!only.empty() && std::string(label).find(only) == std::string::npos) continue;
    FILE* f = fopen(path.c_str(), "wb");
    if (!f) {
      perror(path.c_str());
      return 1;
    }
    writer(f, size_mb << 20);
    fclose(f);
    rc |= Measure(label, path, require_rows);
    if (!keep) unlink(path.c_str());
  }
  if (archive_mb) {
    std::string sub = dir + "/fathom-bench-archive-" + tag;
    std::string cmd = "mkdir -p " + sub;
    if (system(cmd.c_str()) != 0) return 1;
    FILE* f = fopen((sub + "/trace.json").c_str(), "wb");
    if (!f) return 1;
    WriteJson(f, archive_mb << 20);
    fclose(f);
    cmd = "cd " + sub + " && zip -q t.zip trace.json && tar cf t.tar trace.json && tar czf " +
          "t.tgz trace.json";
    if (system(cmd.c_str()) != 0) {
      fprintf(stderr, "zip/tar failed\n");
      return 1;
    }
    rc |= Measure("json (plain)", sub + "/trace.json", require_rows);
    rc |= Measure("json in zip", sub + "/t.zip", require_rows);
    rc |= Measure("json in tar", sub + "/t.tar", require_rows);
    rc |= Measure("json in tar.gz", sub + "/t.tgz", require_rows);
    if (!keep) {
      cmd = "rm -rf " + sub;
      if (system(cmd.c_str()) != 0) rc = 1;
    }
  }
  return rc;
}
