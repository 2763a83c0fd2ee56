// fathom-recorder: records a Perfetto trace on a device without a usable system `perfetto`
// (see device/README.md). Single-threaded: one loop drains ftrace, polls /proc and flushes
// the file at the periods the TraceConfig asks for.
//
// Exit codes: 0 done, 1 failure while recording (e.g. disk full), 2 bad command line or
// config, 3 the system does not allow recording (tracefs missing, permission denied).
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include "clock_snapshot.h"
#include "config.h"
#include "ftrace_source.h"
#include "gen/perfetto_fields.h"
#include "inode_file_source.h"
#include "perf_source.h"
#include "process_stats_source.h"
#include "proto_writer.h"
#include "sys_stats_source.h"
#include "text_format.h"
#include "trace_writer.h"
#include "util.h"

namespace fathom::recorder {
namespace {

volatile sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

constexpr uint32_t kServiceSeq = 1, kFtraceSeq = 2, kProcessSeq = 3, kSysSeq = 4, kPerfSeq = 5,
                   kInodeSeq = 6;

int Fail(int code, const std::string& message) {
  fprintf(stderr, "fathom-recorder: %s\n", message.c_str());
  return code;
}

void Usage() {
  fprintf(stderr,
          "usage: fathom-recorder -c CONFIG|- [--txt] -o OUT [--background] "
          "[--tracefs-root DIR]\n");
}

struct Args {
  std::string config, out, tracefs_root;
  bool txt = false, background = false;
};

std::optional<Args> ParseArgs(int argc, char** argv, std::string* error) {
  Args a;
  for (int i = 1; i < argc; i++) {
    std::string arg = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) {
        *error = arg + " needs a value";
        return false;
      }
      *out = argv[++i];
      return true;
    };
    if (arg == "-c" || arg == "--config") {
      if (!value(&a.config)) return std::nullopt;
    } else if (arg == "-o" || arg == "--out") {
      if (!value(&a.out)) return std::nullopt;
    } else if (arg == "--tracefs-root") {
      if (!value(&a.tracefs_root)) return std::nullopt;
    } else if (arg == "--txt") {
      a.txt = true;
    } else if (arg == "--background" || arg == "-b") {
      a.background = true;
    } else {
      *error = "unknown argument " + arg;
      return std::nullopt;
    }
  }
  if (a.config.empty() || a.out.empty()) {
    *error = "both -c CONFIG (or - for stdin) and -o OUT are required";
    return std::nullopt;
  }
  return a;
}

Result<std::string> ReadConfig(const std::string& path) {
  if (path != "-") return ReadFile(path);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(0, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return ErrorStatus(std::string("cannot read the config from stdin: ") + strerror(errno));
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

void Emit(device::TraceWriter* w, const device::ProtoWriter& p) { w->AppendPacket(p.data()); }

void WriteClockSnapshot(device::TraceWriter* w) {
  w->AppendPacket(device::ClockSnapshotPacket(kServiceSeq));
}

void WriteStartPackets(device::TraceWriter* w, const RecorderConfig& config) {
  device::ProtoWriter p;
  p.Varint(pf::TracePacket::kTrustedPacketSequenceIdFieldNumber, kServiceSeq);
  p.Bytes(pf::TracePacket::kTraceConfigFieldNumber, config.raw.data(), config.raw.size());
  Emit(w, p);
  WriteClockSnapshot(w);
  utsname u;
  if (uname(&u) == 0) {
    using SI = pf::SystemInfo;
    p.Clear();
    p.Varint(pf::TracePacket::kTimestampFieldNumber, static_cast<uint64_t>(BootNs()));
    p.Varint(pf::TracePacket::kTrustedPacketSequenceIdFieldNumber, kServiceSeq);
    size_t s = p.BeginNested(pf::TracePacket::kSystemInfoFieldNumber);
    size_t n = p.BeginNested(SI::kUtsnameFieldNumber);
    p.String(pf::Utsname::kSysnameFieldNumber, u.sysname);
    p.String(pf::Utsname::kVersionFieldNumber, u.version);
    p.String(pf::Utsname::kReleaseFieldNumber, u.release);
    p.String(pf::Utsname::kMachineFieldNumber, u.machine);
    p.EndNested(n);
    p.String(SI::kTracingServiceVersionFieldNumber, "fathom-recorder");
    long hz = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE),
         cpus = sysconf(_SC_NPROCESSORS_CONF);
    if (hz > 0) p.Int(SI::kHzFieldNumber, hz);
    if (page > 0) p.Varint(SI::kPageSizeFieldNumber, static_cast<uint64_t>(page));
    if (cpus > 0) p.Varint(SI::kNumCpusFieldNumber, static_cast<uint64_t>(cpus));
    p.EndNested(s);
    Emit(w, p);
  }
}

void WriteTraceStats(device::TraceWriter* w, const RecorderConfig& config) {
  using TS = pf::TraceStats;
  device::ProtoWriter p;
  p.Varint(pf::TracePacket::kTimestampFieldNumber, static_cast<uint64_t>(BootNs()));
  p.Varint(pf::TracePacket::kTrustedPacketSequenceIdFieldNumber, kServiceSeq);
  size_t s = p.BeginNested(pf::TracePacket::kTraceStatsFieldNumber);
  size_t provided = config.has_ftrace + config.has_process_stats + config.has_sys_stats +
                    config.has_perf + config.has_inode_file;
  // seen > registered tells the reader some requested sources were not recorded.
  p.Varint(TS::kDataSourcesRegisteredFieldNumber, provided);
  p.Varint(TS::kDataSourcesSeenFieldNumber, provided + config.skipped_sources.size());
  p.Varint(TS::kProducersConnectedFieldNumber, 1);
  p.Varint(TS::kProducersSeenFieldNumber, 1);
  p.Varint(TS::kTracingSessionsFieldNumber, 1);
  size_t b = p.BeginNested(TS::kBufferStatsFieldNumber);
  p.Varint(TS::BufferStats::kBytesWrittenFieldNumber, w->bytes_written());
  p.EndNested(b);
  p.EndNested(s);
  Emit(w, p);
}

// Writes what the walk holds and says on stderr how far it got.
void ReportInodeScan(InodeFileSource* inodes) {
  bool complete = inodes->done();
  inodes->Stop();
  const InodeFileSource::Counts& c = inodes->counts();
  fprintf(stderr,
          "fathom-recorder: note: linux.inode_file_map mapped %llu inodes in %llu batches%s\n",
          static_cast<unsigned long long>(c.inodes), static_cast<unsigned long long>(c.batches),
          complete ? "" : " (the trace ended before the walk did)");
  if (c.unreadable_dirs)
    fprintf(stderr,
            "fathom-recorder: note: linux.inode_file_map could not read %llu directories "
            "(permission denied or gone); their contents are not mapped\n",
            static_cast<unsigned long long>(c.unreadable_dirs));
}

int Run(int argc, char** argv) {
  std::string error;
  std::optional<Args> args = ParseArgs(argc, argv, &error);
  if (!args) {
    Usage();
    return Fail(2, error);
  }
  Result<std::string> text = ReadConfig(args->config);
  if (!text.ok()) return Fail(2, text.status().message());
  std::string binary;
  if (args->txt) {
    Result<std::string> b = device::TextFormatToBinary(*text, "TraceConfig");
    if (!b.ok()) return Fail(2, b.status().message());
    binary = std::move(*b);
  } else {
    binary = std::move(*text);
  }
  Result<RecorderConfig> parsed = ParseTraceConfig(std::move(binary));
  if (!parsed.ok()) return Fail(2, "config: " + parsed.status().message());
  RecorderConfig& config = *parsed;
  for (const std::string& s : config.skipped_sources)
    fprintf(stderr,
            "fathom-recorder: note: data source %s skipped: fathom-recorder provides only "
            "linux.ftrace, linux.process_stats, linux.sys_stats, linux.perf and "
            "linux.inode_file_map (use the system perfetto service for it)\n",
            s.c_str());

  device::TraceWriterOptions wo;
  if (config.write_into_file)
    wo.flush_period_ms = config.file_write_period_ms ? config.file_write_period_ms : 5000;
  wo.max_file_size_bytes = config.max_file_size_bytes;
  Result<std::unique_ptr<device::TraceWriter>> opened = device::TraceWriter::Open(args->out, wo);
  if (!opened.ok()) return Fail(1, opened.status().message());
  device::TraceWriter* writer = opened->get();

  WriteStartPackets(writer, config);
  std::unique_ptr<ProcessStatsSource> ps;
  std::unique_ptr<SysStatsSource> ss;
  std::unique_ptr<FtraceSource> ft;
  if (config.has_process_stats) {
    ps = std::make_unique<ProcessStatsSource>(config.process_stats, writer, kProcessSeq);
    ps->Start();
  }
  if (config.has_sys_stats)
    ss = std::make_unique<SysStatsSource>(config.sys_stats, writer, kSysSeq);
  if (config.has_ftrace) {
    ft = std::make_unique<FtraceSource>(config.ftrace, writer, kFtraceSeq, args->tracefs_root);
    if (ps) ft->set_pid_callback([p = ps.get()](int32_t pid) { p->OnPidSeen(pid); });
    Status st = ft->Start();
    if (!st.ok()) {
      ft.reset();  // restores whatever was changed
      writer->Close();
      return Fail(3, st.message());
    }
    for (const std::string& n : ft->notes())
      fprintf(stderr, "fathom-recorder: note: %s\n", n.c_str());
  }
  std::unique_ptr<PerfSource> perf;
  if (config.has_perf) {
    perf = std::make_unique<PerfSource>(config.perf, writer, kPerfSeq);
    if (ps) perf->set_pid_callback([p = ps.get()](int32_t pid) { p->OnPidSeen(pid); });
    Status st = perf->Start();
    if (!st.ok()) {
      perf.reset();
      ft.reset();
      writer->Close();
      return Fail(3, st.message());
    }
    for (const std::string& n : perf->notes())
      fprintf(stderr, "fathom-recorder: note: %s\n", n.c_str());
  }
  writer->Flush();

  struct sigaction sa = {};
  sa.sa_handler = OnSignal;  // no SA_RESTART: a signal ends the sleep at once
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  if (args->background) {
    pid_t pid = fork();
    if (pid < 0) return Fail(1, std::string("cannot fork: ") + strerror(errno));
    if (pid > 0) {
      printf("%d\n", pid);
      fflush(stdout);
      _exit(0);  // the child owns the recording (and tracefs restore)
    }
    setsid();
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      dup2(devnull, 0);
      dup2(devnull, 1);
      close(devnull);
    }
  } else {
    // A dropped adb connection hangs up the shell: stop cleanly and keep the trace.
    sigaction(SIGHUP, &sa, nullptr);
  }

  if (perf) {
    Status st = perf->Enable();
    if (!st.ok()) {
      fprintf(stderr, "fathom-recorder: %s\n", st.message().c_str());
      perf.reset();
    }
  }

  std::unique_ptr<InodeFileSource> inodes;
  if (config.has_inode_file) {
    inodes = std::make_unique<InodeFileSource>(config.inode_file, writer, kInodeSeq);
    inodes->Start(MonoNs());
  }

  uint32_t tick_ms = 100;
  if (ft) tick_ms = std::min(tick_ms, ft->drain_period_ms());
  if (perf) tick_ms = std::min(tick_ms, perf->read_period_ms());
  if (ps && config.process_stats.proc_stats_poll_ms)
    tick_ms = std::min(tick_ms, config.process_stats.proc_stats_poll_ms);
  for (uint32_t p : {config.sys_stats.meminfo_period_ms, config.sys_stats.vmstat_period_ms,
                     config.sys_stats.stat_period_ms})
    if (p) tick_ms = std::min(tick_ms, p);
  if (wo.flush_period_ms) tick_ms = std::min(tick_ms, wo.flush_period_ms);

  int64_t start = MonoNs();
  int64_t end = config.duration_ms ? start + int64_t{config.duration_ms} * 1000000 : INT64_MAX;
  int64_t next_drain = start, next_perf_read = start;
  Status write_status;
  while (!g_stop && !writer->full()) {
    int64_t now = MonoNs();
    if (now >= end) break;
    if (ft && now >= next_drain) {
      ft->Drain();
      if (ps) ps->FlushNewPids();
      next_drain = now + int64_t{ft->drain_period_ms()} * 1000000;
    }
    if (perf && now >= next_perf_read) {
      perf->Drain();
      if (ps) ps->FlushNewPids();
      next_perf_read = now + int64_t{perf->read_period_ms()} * 1000000;
    }
    if (ps) ps->MaybePoll(now);
    if (ss) ss->MaybePoll(now);
    if (inodes && !inodes->done()) inodes->Step(now);
    write_status = writer->MaybeFlush();
    if (!write_status.ok()) break;
    uint32_t tick = tick_ms;
    if (inodes && !inodes->done()) tick = std::min(tick, inodes->tick_ms());  // mid-batch
    int64_t sleep_ns = std::min<int64_t>(int64_t{tick} * 1000000, end - MonoNs());
    if (sleep_ns > 0) {
      timespec ts = {static_cast<time_t>(sleep_ns / 1000000000),
                     static_cast<long>(sleep_ns % 1000000000)};
      nanosleep(&ts, nullptr);  // EINTR on SIGTERM/SIGINT
    }
  }

  if (ft) ft->Stop();
  if (perf) perf->Stop();
  if (ps) ps->FlushNewPids();
  if (inodes) ReportInodeScan(inodes.get());
  WriteClockSnapshot(writer);
  WriteTraceStats(writer, config);
  Status close_status = writer->Close();
  if (!write_status.ok()) return Fail(1, write_status.message());
  if (!close_status.ok()) return Fail(1, close_status.message());
  if (writer->full())
    fprintf(stderr, "fathom-recorder: stopped at max_file_size_bytes (%llu)\n",
            static_cast<unsigned long long>(config.max_file_size_bytes));
  return 0;
}

}  // namespace
}  // namespace fathom::recorder

int main(int argc, char** argv) { return fathom::recorder::Run(argc, argv); }
