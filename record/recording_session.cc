#include "record/recording_session.h"

#include <openssl/evp.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/utf8_path.h"
#include "record/output_file.h"

namespace fathom::record {
namespace fs = std::filesystem;
namespace {

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// Last line of `text` that is a number (the pid `--background` prints).
long LastNumber(const std::string& text) {
  std::istringstream lines(text);
  long pid = -1;
  for (std::string line; std::getline(lines, line);) {
    line = Trim(line);
    if (!line.empty() && line.find_first_not_of("0123456789") == std::string::npos)
      pid = std::stol(line);
  }
  return pid;
}

std::string Md5OfFile(const std::string& path) {
  std::ifstream in(PathFromUtf8(path), std::ios::binary);
  if (!in) return {};
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_md5(), nullptr);
  std::string buf(1 << 16, '\0');
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    if (in.gcount() > 0) EVP_DigestUpdate(ctx, buf.data(), static_cast<size_t>(in.gcount()));
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx, md, &len);
  EVP_MD_CTX_free(ctx);
  std::string hex;
  char b[3];
  for (unsigned i = 0; i < len; ++i) {
    std::snprintf(b, sizeof b, "%02x", md[i]);
    hex += b;
  }
  return hex;
}

std::string HostAbi() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "arm64-v8a";
#elif defined(__arm__)
  return "armeabi-v7a";
#elif defined(__i386__)
  return "x86";
#else
  return "unknown";
#endif
}

// Single quotes for sh, so a command line survives one more shell.
std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string Timestamp() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&now));
  return buf;
}

// The collector's dump period for a heapprofd config: its continuous dump interval, 0 (one
// dump at the end) when it has none.
uint64_t HeapDumpIntervalMs(const perfetto::protos::HeapprofdConfig& h) {
  return h.has_continuous_dump_config() ? h.continuous_dump_config().dump_interval_ms() : 0;
}

}  // namespace

std::string FindDeviceProgram(const std::string& dir, const std::string& abi,
                              const std::string& name) {
  const fs::path d = PathFromUtf8(dir);
  std::error_code ec;
  if (fs::is_regular_file(d / abi / name, ec)) return PathToUtf8(d / abi / name);
  // A build tree (build/bin, libraries in build/lib) holds the host ABI only.
  if (abi != HostAbi()) return {};
  for (const fs::path& p : {d / name, d.parent_path() / "lib" / name}) {
    if (fs::is_regular_file(p, ec)) return PathToUtf8(p);
  }
  return {};
}

std::string FindDeviceProgramsDir(const std::string& argv0) {
  if (const char* env = std::getenv("FATHOM_DEVICE_DIR")) return env;
  std::error_code ec;
  fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (ec) exe = fs::absolute(PathFromUtf8(argv0), ec);
  const fs::path bin = exe.parent_path();
  const fs::path installed = bin.parent_path() / "share" / "fathom" / "device";
  if (fs::is_directory(installed, ec)) return PathToUtf8(installed);
  return PathToUtf8(bin);  // build tree: build/bin/fathom-recorder
}

RecordingSession::RecordingSession(TargetShell& shell, TargetInfo info,
                                   perfetto::protos::TraceConfig config, SessionOptions options)
    : shell_(shell),
      info_(std::move(info)),
      config_(std::move(config)),
      options_(std::move(options)),
      strategy_(ChooseStrategy(info_)) {
  observed_.android = info_.android;
  observed_.build_type = info_.build_type;
  observed_.java_alloc = !options_.java_alloc_command.empty();
  for (const auto& ds : config_.data_sources()) {
    observed_.sources.push_back(ds.config().name());
    if (ds.config().name() != "android.heapprofd") continue;
    observed_.heap_profile = true;
    const auto& h = ds.config().heapprofd_config();
    for (const auto& n : h.process_cmdline()) observed_.heap_targets.push_back(n);
    for (uint64_t pid : h.pid()) observed_.heap_targets.push_back(std::to_string(pid));
    observed_.heap_interval_bytes = h.sampling_interval_bytes();
  }
  observed_.sdk = info_.sdk;
  observed_.traced_enabled = info_.traced_enabled;
  if (info_.android && observed_.java_alloc) {
    app_ = std::make_unique<AndroidAppAgent>(shell_, options_.java_alloc_command,
                                             options_.java_alloc_interval_bytes);
  }
  if (strategy_ == Strategy::kEnableTraced) {
    strategy_ = options_.enable_traced ? Strategy::kSystemPerfetto : Strategy::kShippedRecorder;
  }
  observed_.system_perfetto = strategy_ == Strategy::kSystemPerfetto;
  if (!info_.android) {
    // Linux has no heapprofd service: Fathom's collector and preload library
    // do the same job next to the recorder.
    auto* sources = config_.mutable_data_sources();
    for (int i = sources->size() - 1; i >= 0; --i) {
      if (sources->Get(i).config().name() != "android.heapprofd") continue;
      heap_ = sources->Get(i).config().heapprofd_config();
      sources->DeleteSubrange(i, 1);
    }
    // Only process names for the heap profile: nothing else to record.
    const bool only_names =
        sources->size() == 1 && sources->Get(0).config().name() == "linux.process_stats";
    run_recorder_ = !heap_ || (!sources->empty() && !only_names);
  }
}

std::string RecordingSession::DeviceCommand() const {
  if (app_) {
    return app_->DescribeCommand() + "  &  " +
           (strategy_ == Strategy::kSystemPerfetto
                ? std::string("perfetto --background --txt -c - -o /data/misc/perfetto-traces/…")
                : std::string("./fathom-recorder -c config.pb -o trace.pftrace --background"));
  }
  if (heap_) {
    std::string cmd =
        "cd $(mktemp -d) && ./fathom-heapprofd --interval " +
        std::to_string(heap_->sampling_interval_bytes() ? heap_->sampling_interval_bytes() : 4096) +
        " --dump-interval " + std::to_string(HeapDumpIntervalMs(*heap_)) + " -o heap.pftrace -- " +
        (heap_->process_cmdline_size() ? heap_->process_cmdline(0) : "PROGRAM");
    if (run_recorder_) cmd += "  &  ./fathom-recorder -c config.pb -o trace.pftrace --background";
    return cmd;
  }
  if (strategy_ == Strategy::kSystemPerfetto) {
    return "perfetto --background --txt -c - -o /data/misc/perfetto-traces/fathom-<time>.pftrace"
           "   (config on stdin)";
  }
  const std::string dir = info_.android ? "/data/local/tmp/fathom" : "$(mktemp -d)";
  return "cd " + dir + " && ./fathom-recorder -c config.pb -o trace.pftrace --background";
}

Result<adb::ShellResult> RecordingSession::Sh(const std::string& command, const CancelToken& cancel,
                                              Millis timeout, std::string_view in) {
  return shell_.Run(command, in, Deadline::After(timeout), cancel);
}

Status RecordingSession::Prepare(const SessionEvents& ev, const CancelToken& cancel) {
  auto say = [&](const std::string& s) {
    if (ev.status) ev.status(s);
  };
  if (strategy_ == Strategy::kSystemPerfetto) {
    if (ChooseStrategy(info_) == Strategy::kEnableTraced) {
      say("Enabling traced (setprop persist.traced.enable 1)…");
      auto r = Sh("setprop persist.traced.enable 1 && sleep 1", cancel);
      if (!r.ok()) return r.status();
    }
    remote_trace_ = "/data/misc/perfetto-traces/fathom-" + Timestamp() + ".pftrace";
    if (!app_) return Status::Ok();
  }
  // Kernel events need a writable tracefs (root, or Android's shell with
  // perfetto). Without one the rest of the config still records: say so.
  const bool system_perfetto = strategy_ == Strategy::kSystemPerfetto;
  if (info_.tracefs.empty() && run_recorder_ && !system_perfetto) {
    auto* sources = config_.mutable_data_sources();
    const int before = sources->size();
    for (int i = sources->size() - 1; i >= 0; --i) {
      if (sources->Get(i).config().name() == "linux.ftrace") sources->DeleteSubrange(i, 1);
    }
    if (sources->size() != before) {
      say("Kernel events skipped: no writable tracefs on the target (record as root for "
          "scheduling, frequency and LMK events)");
    }
    if (sources->empty() && !heap_) {
      return ErrorStatus(
          "kernel events need a writable tracefs on the target (run as root, or "
          "mount it: mount -t tracefs nodev /sys/kernel/tracing)");
    }
    run_recorder_ = !sources->empty();
  }
  if (heap_ && heap_->process_cmdline_size() == 0 && heap_->pid_size() == 0) {
    return ErrorStatus(
        "native heap profile on Linux: give the command to run under the profiler "
        "(--app \"PROGRAM ARGS\") or the pid of a process started with "
        "LD_PRELOAD=libfathom_heapprof.so");
  }
  // What to push: the recorder and/or the heap collector with its library.
  const bool java = !options_.java_alloc_command.empty();
  // Before anything is pushed: a non-debuggable app cannot take the agent.
  if (app_) {
    say("Checking that " + app_->package() + " is debuggable (run-as)…");
    if (Status st = app_->CheckDebuggable(cancel); !st.ok()) return st;
  }
  const bool ship_recorder = run_recorder_ && !system_perfetto;
  std::vector<std::pair<std::string, uint32_t>> programs;
  if (java) programs.push_back({"libfathom_jvmti.so", 0644});
  if (ship_recorder) programs.push_back({"fathom-recorder", 0755});
  if (heap_) {
    programs.push_back({"fathom-heapprofd", 0755});
    programs.push_back({"libfathom_heapprof.so", 0644});
  }
  std::vector<std::string> locals;
  for (const auto& [name, mode] : programs) {
    locals.push_back(FindDeviceProgram(options_.device_programs_dir, info_.abi, name));
    if (locals.back().empty()) {
      return ErrorStatus("no " + name + " for " + info_.abi + " in " +
                         options_.device_programs_dir + " (expected " +
                         PathToUtf8(PathFromUtf8(options_.device_programs_dir) / info_.abi / name) +
                         "; build it with the NDK for that ABI, see device/README.md)");
    }
  }
  if (info_.android) {
    remote_dir_ =
        (info_.tmpdir.empty() ? std::string("/data/local/tmp") : info_.tmpdir) + "/fathom";
    auto r = Sh("mkdir -p " + remote_dir_, cancel);
    if (!r.ok()) return r.status();
  } else {
    auto r = Sh("mktemp -d /tmp/fathom.XXXXXX", cancel);
    if (!r.ok()) return r.status();
    remote_dir_ = Trim(r->out);
    if (remote_dir_.empty() || r->exit_code != 0)
      return ErrorStatus(shell_.Describe() + ": mktemp -d failed: " + Trim(r->err));
    remote_dir_is_temp_ = true;
  }
  if (!system_perfetto)
    remote_trace_ = remote_dir_ + (run_recorder_ ? "/trace.pftrace" : "/heap.pftrace");
  for (size_t i = 0; i < programs.size(); ++i) {
    const std::string remote = remote_dir_ + "/" + programs[i].first;
    // Skip the push when the same file is already there (Android keeps it).
    auto sum = Sh("md5sum " + remote + " 2>/dev/null", cancel);
    const std::string want = Md5OfFile(locals[i]);
    if (sum.ok() && !want.empty() && sum->out.rfind(want, 0) == 0) continue;
    say("Pushing " + programs[i].first + "…");
    Status st =
        shell_.Push(locals[i], remote, programs[i].second, Deadline::After(Millis(120000)), cancel);
    if (!st.ok()) return ErrorStatus("pushing " + programs[i].first + ": " + st.message());
  }
  if (app_) {
    say("Copying the agent into " + app_->package() + "'s data directory (run-as)…");
    if (Status st = app_->Install(remote_dir_ + "/libfathom_jvmti.so", cancel); !st.ok()) return st;
  }
  if (!ship_recorder) return Status::Ok();
  return PushConfig(cancel);
}

Status RecordingSession::PushConfig(const CancelToken& cancel) {
  // The config travels as a file so the recorder runs detached from our stream.
  const fs::path tmp = fs::temp_directory_path() / ("fathom-config-" + Timestamp() + ".pb");
  {
    std::ofstream out(tmp, std::ios::binary);
    out << config_.SerializeAsString();
  }
  Status st = shell_.Push(PathToUtf8(tmp), remote_dir_ + "/config.pb", 0644,
                          Deadline::After(Millis(30000)), cancel);
  std::error_code ec;
  fs::remove(tmp, ec);
  if (!st.ok()) return ErrorStatus("pushing the config: " + st.message());
  return Status::Ok();
}

Result<long> RecordingSession::StartHeapCollector(const CancelToken& cancel) {
  std::string cmd =
      "cd " + remote_dir_ + " && ./fathom-heapprofd --lib " + remote_dir_ +
      "/libfathom_heapprof.so --interval " +
      std::to_string(heap_->sampling_interval_bytes() ? heap_->sampling_interval_bytes() : 4096);
  // Always explicit: a config without continuous dumps means one dump at the end, whatever
  // the collector's own default.
  cmd += " --dump-interval " + std::to_string(HeapDumpIntervalMs(*heap_));
  if (heap_->block_client()) cmd += " --block";
  cmd += " -o heap.pftrace";
  if (heap_->process_cmdline_size() > 0) {
    cmd += " -- sh -c " + ShellQuote("exec " + heap_->process_cmdline(0));
  } else {
    cmd += " --pid " + std::to_string(heap_->pid(0));
  }
  // Detached, stdio redirected, so our shell stream ends right away.
  auto r = Sh("(" + cmd + " </dev/null >heapprofd.log 2>&1 & echo $!)", cancel);
  if (!r.ok()) return r.status();
  const long pid = LastNumber(r->out);
  if (pid <= 0) return ErrorStatus("the heap collector did not start: " + Trim(r->err));
  heap_pid_ = pid;
  return pid;
}

Result<long> RecordingSession::StartJavaProgram(const CancelToken& cancel) {
  const std::string agent = "-agentpath:" + remote_dir_ + "/libfathom_jvmti.so=" +
                            std::to_string(options_.java_alloc_interval_bytes) + ",64," +
                            remote_dir_ + "/alloc.log";
  // JAVA_TOOL_OPTIONS reaches every JVM the command starts, however it is launched.
  auto r = Sh("(cd " + remote_dir_ + " && JAVA_TOOL_OPTIONS=" + ShellQuote(agent) + " sh -c " +
                  ShellQuote("exec " + options_.java_alloc_command) +
                  " </dev/null >java.log 2>&1 & echo $!)",
              cancel);
  if (!r.ok()) return r.status();
  const long pid = LastNumber(r->out);
  if (pid <= 0) return ErrorStatus("the Java program did not start: " + Trim(r->err));
  return pid;
}

Status RecordingSession::DumpHeapNow() {
  if (info_.android) {
    auto r = Sh("killall -USR1 heapprofd 2>&1 || pkill -USR1 heapprofd 2>&1", CancelToken());
    if (!r.ok()) return r.status();
    if (r->exit_code != 0)
      return ErrorStatus(
          "the shell may not signal heapprofd on this build (needs root or a "
          "userdebug build): " +
          Trim(r->out));
    return Status::Ok();
  }
  const long pid = heap_pid_.load();
  if (pid <= 0) return ErrorStatus("no heap profile is running");
  auto r = Sh("kill -USR1 " + std::to_string(pid), CancelToken());
  return r.ok() ? Status::Ok() : r.status();
}

Result<long> RecordingSession::Start(const CancelToken& cancel) {
  Result<adb::ShellResult> r = ErrorStatus("not started");
  if (strategy_ == Strategy::kSystemPerfetto) {
    r = Sh("perfetto --background --txt -c - -o " + remote_trace_, cancel, Millis(20000),
           ConfigToText(config_));
  } else {
    // stdio redirected: a detached recorder must not hold our shell stream open.
    r = Sh("cd " + remote_dir_ +
               " && ./fathom-recorder -c config.pb -o trace.pftrace --background "
               "</dev/null >pid.txt 2>recorder.log; rc=$?; cat pid.txt; cat recorder.log >&2; "
               "exit $rc",
           cancel);
  }
  if (!r.ok()) return r.status();
  const long pid = LastNumber(r->out);
  if (r->exit_code > 0 || pid <= 0) {
    std::string why = Trim(r->err.empty() ? r->out : r->err);
    if (why.find("Permission denied") != std::string::npos ||
        why.find("avc: denied") != std::string::npos) {
      why +=
          " — SELinux or file permissions blocked the recorder; on user builds use the "
          "system perfetto (Android 10+)";
    }
    return ErrorStatus("the recorder did not start: " + why);
  }
  return pid;
}

std::string RecordingSession::SignalCommand(const std::vector<long>& pids,
                                            const std::string& sig) const {
  std::string cmd;
  // The program under the heap profiler is the collector's child, started for
  // this recording: it ends with it (a --pid target was running before and is
  // left alone). pgrep where there is one, else the kernel's children list.
  const long heap = heap_pid_.load();
  if (heap_ && heap_->process_cmdline_size() > 0 && heap > 0) {
    const std::string h = std::to_string(heap);
    cmd += "for c in $( (pgrep -P " + h + " || cat /proc/" + h +
           "/task/*/children) 2>/dev/null); do kill -" + sig + " $c 2>/dev/null; done; ";
  }
  std::string own;
  for (long p : pids)
    if (p != app_pid_) own.append(1, ' ').append(std::to_string(p));
  if (!own.empty()) cmd += "kill -" + sig + own + " 2>/dev/null; ";
  // The shell user may not signal an app: run-as does it as the app's uid.
  if (app_ && app_pid_ > 0) cmd += app_->SignalCommand(sig) + "; ";
  return cmd + "true";
}

Status RecordingSession::Watch(const std::vector<long>& pids, const SessionEvents& ev,
                               const CancelToken& stop, const CancelToken& cancel) {
  auto say = [&](const std::string& s) {
    if (ev.status) ev.status(s);
  };
  const auto started = std::chrono::steady_clock::now();
  // A recorder ends itself after the duration (the 30 s are its grace); an
  // Android app does not, so it is stopped right at the duration.
  const bool app_primary = app_pid_ > 0 && pids.front() == app_pid_;
  const double limit_s =
      config_.duration_ms() ? config_.duration_ms() / 1000.0 + (app_primary ? 0 : 30) : 1e12;
  bool stopping = false, force_stopped = false;
  double stop_sent_at = 0;
  std::string all;
  for (long pid : pids) all.append(1, ' ').append(std::to_string(pid));
  const std::string primary = std::to_string(pids.front());
  auto send_stop = [&](double elapsed) {
    auto r = Sh(SignalCommand(pids, "TERM"), CancelToken());
    stopping = true;
    stop_sent_at = elapsed;
    return r;
  };
  while (true) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (cancel.cancelled()) {
      Sh(SignalCommand(pids, "TERM"), CancelToken());
      if (app_) Sh(app_->ForceStopCommand(), CancelToken());
      return ErrorStatus("cancelled");
    }
    if (!stopping && (stop.cancelled() || elapsed > limit_s)) {
      if (stop.cancelled()) {
        observed_.stopped_early = true;
        // Say what happens to the program being profiled: it was started for
        // this recording, so it stops with it (its data is written on exit).
        if (heap_ && heap_->process_cmdline_size() > 0)
          say("Stopping early: the profiled program is stopped too (SIGTERM)");
        else if (heap_)
          say("Stopping early: process " + std::to_string(heap_->pid(0)) +
              " keeps running (it was running before); only the profiler stops");
        if (app_)
          say("Stopping early: " + app_->package() +
              " is stopped too (SIGTERM through run-as, then am force-stop)");
        else if (!options_.java_alloc_command.empty())
          say("Stopping early: the Java program is stopped too (SIGTERM; the agent writes its "
              "log on exit)");
      }
      auto r = send_stop(elapsed);
      if (!r.ok()) return ErrorStatus("lost the connection to the target: " + r.status().message());
    }
    if (stopping && app_ && !force_stopped && elapsed - stop_sent_at > 5) {
      // ART ends on SIGTERM, but an app may catch it: force-stop ends it for sure.
      Sh(app_->ForceStopCommand(), CancelToken());
      force_stopped = true;
    }
    if (stopping && elapsed - stop_sent_at > 20) Sh(SignalCommand(pids, "KILL"), CancelToken());
    // /proc rather than kill -0: the shell may not signal an app's process.
    auto r = Sh("for p in" + all + "; do [ -d /proc/$p ] && echo running$p; done; stat -c %s " +
                    remote_trace_ + " 2>/dev/null || echo -1",
                CancelToken(), Millis(10000));
    if (!r.ok()) return ErrorStatus("lost the connection to the target: " + r.status().message());
    const bool any = r->out.find("running") != std::string::npos;
    const bool primary_running = r->out.find("running" + primary + "\n") != std::string::npos;
    if (ev.progress) ev.progress(elapsed, LastNumber(r->out) >= 0 ? LastNumber(r->out) : -1);
    if (!any) return Status::Ok();
    if (!primary_running && !stopping) {
      // The recorder (or the profiled program) is done: the rest write their last data.
      auto st = send_stop(elapsed);
      if (!st.ok())
        return ErrorStatus("lost the connection to the target: " + st.status().message());
    }
    std::this_thread::sleep_for(Millis(400));
  }
}

std::string RecordingSession::Cleanup() {
  std::vector<std::string> paths;
  if (remote_dir_is_temp_) {
    paths.push_back(remote_dir_);
  } else if (!remote_trace_.empty()) {
    paths.push_back(remote_trace_);
    if (!remote_dir_.empty()) {
      for (const char* f : {"/config.pb", "/alloc.log", "/trace.pftrace"})
        paths.push_back(remote_dir_ + f);
    }
  }
  if (paths.empty()) return {};
  std::string list;
  for (const std::string& p : paths) list += " " + p;
  // Checked, not assumed: a file the shell user may not delete (another
  // user's, SELinux) or a lost connection must not go unmentioned.
  auto r =
      Sh("rm -rf" + list + "; for f in" + list + "; do [ -e \"$f\" ] && echo \"$f\"; done; true",
         CancelToken());
  if (!r.ok()) return "could not remove" + list + " from the target: " + r.status().message();
  const std::string left = Trim(r->out);
  if (left.empty()) return {};
  std::string named;
  std::istringstream lines(left);
  for (std::string line; std::getline(lines, line);) named += " " + line;
  const std::string why = Trim(r->err);
  return "could not remove" + named + " from the target" + (why.empty() ? "" : " (" + why + ")") +
         "; remove it by hand";
}

Status RecordingSession::CleanedUp(Status st) {
  const std::string left = Cleanup();
  if (left.empty()) return st;
  return ErrorStatus(st.message() + "; " + left);
}

std::string RecordingSession::LeftOnTarget() const {
  if (remote_dir_is_temp_) return "the recording's files stay on the target in " + remote_dir_;
  if (!remote_trace_.empty()) return "the trace stays on the target at " + remote_trace_;
  return {};
}

Status RecordingSession::FinishJava(const SessionEvents& ev) {
  std::string first = run_recorder_ ? "trace.pftrace" : heap_ ? "heap.pftrace" : "";
  if (app_) {
    if (ev.status) ev.status("Reading the allocation log from " + app_->package() + " (run-as)…");
    if (run_recorder_ && strategy_ == Strategy::kSystemPerfetto) {
      // The system trace lives in /data/misc/perfetto-traces: bring it next to the log.
      auto r =
          Sh("cp " + remote_trace_ + " " + remote_dir_ + "/trace.pftrace && rm -f " + remote_trace_,
             CancelToken());
      if (!r.ok()) return ErrorStatus("lost the connection to the target: " + r.status().message());
    }
    Status st = app_->FetchLog(remote_dir_ + "/alloc.log", CancelToken());
    app_->Cleanup();
    if (!st.ok()) return st;
  }
  // One file to pull and open: the trace and the allocation log in a tar.
  auto r =
      Sh("cd " + remote_dir_ + " && test -s alloc.log && tar cf bundle.tar " + first + " alloc.log",
         CancelToken());
  if (!r.ok()) return ErrorStatus("lost the connection to the target: " + r.status().message());
  if (r->exit_code != 0) {
    if (app_) {
      return ErrorStatus(app_->package() +
                         " wrote no allocation log: the agent did not load (check `adb logcat "
                         "-s fathom_jvmti` and that libfathom_jvmti.so matches the app's ABI, " +
                         info_.abi + ") or the app was stopped before it allocated");
    }
    auto log = Sh("tail -5 " + remote_dir_ + "/java.log", CancelToken());
    if (log.ok()) observed_.target_messages += log->out;
    return ErrorStatus("the Java program wrote no allocation log" +
                       (log.ok() ? ": " + Trim(log->out) : std::string()));
  }
  remote_trace_ = remote_dir_ + "/bundle.tar";
  return Status::Ok();
}

Status RecordingSession::Run(const SessionEvents& ev, const CancelToken& stop,
                             const CancelToken& cancel) {
  auto say = [&](const std::string& s) {
    if (ev.status) ev.status(s);
  };
  // Nothing runs on the target for a recording that could not be saved.
  if (Status st = CheckOutputPath(options_.output_path); !st.ok()) return st;
  if (Status st = Prepare(ev, cancel); !st.ok()) return CleanedUp(st);
  say("Trace on the target: " + remote_trace_);
  std::vector<long> pids;
  const bool java = !options_.java_alloc_command.empty();
  if (app_) {
    auto pid = app_->Launch(say, cancel);
    if (!pid.ok()) {
      app_->Cleanup();
      return CleanedUp(pid.status());
    }
    app_pid_ = *pid;
    pids.push_back(*pid);
  } else if (java) {
    say("Starting the Java program with the allocation agent…");
    auto pid = StartJavaProgram(cancel);
    if (!pid.ok()) return CleanedUp(pid.status());
    pids.push_back(*pid);
  }
  if (heap_) {
    say("Starting the heap profiler…");
    auto pid = StartHeapCollector(cancel);
    if (!pid.ok()) return CleanedUp(pid.status());
    pids.push_back(*pid);
  }
  if (run_recorder_) {
    say("Starting the recorder…");
    auto pid = Start(cancel);
    // A tracefs that looked writable may still refuse (a read-only mount,
    // lockdown, root without CAP_SYS_ADMIN): record the rest without kernel events.
    if (!pid.ok() && strategy_ != Strategy::kSystemPerfetto &&
        (pid.status().message().find("tracefs") != std::string::npos ||
         pid.status().message().find("/sys/kernel") != std::string::npos)) {
      auto* sources = config_.mutable_data_sources();
      const int before = sources->size();
      for (int i = sources->size() - 1; i >= 0; --i) {
        if (sources->Get(i).config().name() == "linux.ftrace") sources->DeleteSubrange(i, 1);
      }
      if (sources->size() != before && !sources->empty()) {
        say("Kernel events skipped: the target refused tracefs (" +
            Trim(pid.status().message().substr(0, 160)) + "); recording the rest");
        if (Status st = PushConfig(cancel); st.ok()) pid = Start(cancel);
      }
    }
    if (!pid.ok()) {
      if (!pids.empty()) Sh(SignalCommand(pids, "TERM"), CancelToken());
      if (app_) app_->Cleanup();
      return CleanedUp(pid.status());
    }
    // The recorder decides when recording ends, unless a Java program runs
    // on Linux: then its end is the end. An Android app runs until stopped.
    pids.insert(java && !app_ ? pids.end() : pids.begin(), *pid);
  }
  say("Recording…");
  Status watched = Watch(pids, ev, stop, cancel);
  heap_pid_ = 0;
  if (!watched.ok()) {
    if (watched.message() == "cancelled") {
      if (app_) app_->Cleanup();
      return CleanedUp(watched);
    }
    // A lost target keeps its files for a later pull: say where they are.
    return ErrorStatus(watched.message() + "; " + LeftOnTarget());
  }
  if (heap_ && run_recorder_) {
    // Perfetto traces are a sequence of packets: two traces concatenated are one trace.
    auto r = Sh("cd " + remote_dir_ + " && cat heap.pftrace >> trace.pftrace", CancelToken());
    if (!r.ok()) {
      return ErrorStatus("lost the connection to the target: " + r.status().message() + "; " +
                         LeftOnTarget());
    }
  }
  if (heap_) {
    auto log = Sh("cat " + remote_dir_ + "/heapprofd.log 2>/dev/null", CancelToken());
    if (log.ok() && !Trim(log->out).empty()) {
      say("heap profiler: " + Trim(log->out));
      observed_.target_messages += log->out;
    }
  }
  if (java) {
    if (Status st = FinishJava(ev); !st.ok())
      return ErrorStatus(st.message() + "; " + LeftOnTarget());
  }
  say("Pulling the trace…");
  // A failed or abandoned pull leaves the target's copy for a later pull (the error names it).
  Status pulled = PullTrace(shell_, remote_trace_, options_.output_path, ev.pulled, cancel);
  if (!pulled.ok()) return pulled;
  const std::string left = Cleanup();
  say(left.empty()
          ? "Removed " + (remote_dir_is_temp_ ? remote_dir_ : remote_trace_) + " from the target"
          : left);
  return pulled;
}

}  // namespace fathom::record
