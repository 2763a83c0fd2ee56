#include "record/recording_session.h"

#include <openssl/evp.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

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
  std::ifstream in(path, std::ios::binary);
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

std::string Timestamp() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&now));
  return buf;
}

}  // namespace

std::string FindRecorder(const std::string& dir, const std::string& abi) {
  for (const fs::path& p : {fs::path(dir) / abi / "fathom-recorder", fs::path(dir) / "fathom-recorder"}) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      // A bare build-tree binary is for the host ABI only.
      if (p.parent_path() == fs::path(dir) && abi != "x86_64" && abi != "arm64-v8a") continue;
      return p.string();
    }
  }
  return {};
}

std::string FindDeviceProgramsDir(const std::string& argv0) {
  if (const char* env = std::getenv("FATHOM_DEVICE_DIR")) return env;
  std::error_code ec;
  fs::path exe = fs::canonical("/proc/self/exe", ec);
  if (ec) exe = fs::absolute(argv0, ec);
  const fs::path bin = exe.parent_path();
  const fs::path installed = bin.parent_path() / "share" / "fathom" / "device";
  if (fs::is_directory(installed, ec)) return installed.string();
  return bin.string();  // build tree: build/bin/fathom-recorder
}

RecordingSession::RecordingSession(TargetShell& shell, TargetInfo info,
                                   perfetto::protos::TraceConfig config, SessionOptions options)
    : shell_(shell),
      info_(std::move(info)),
      config_(std::move(config)),
      options_(std::move(options)),
      strategy_(ChooseStrategy(info_)) {
  if (strategy_ == Strategy::kEnableTraced) {
    strategy_ = options_.enable_traced ? Strategy::kSystemPerfetto : Strategy::kShippedRecorder;
  }
}

std::string RecordingSession::DeviceCommand() const {
  if (strategy_ == Strategy::kSystemPerfetto) {
    return "perfetto --background --txt -c - -o /data/misc/perfetto-traces/fathom-<time>.pftrace"
           "   (config on stdin)";
  }
  const std::string dir = info_.android ? "/data/local/tmp/fathom" : "$(mktemp -d)";
  return "cd " + dir + " && ./fathom-recorder -c config.pb -o trace.pftrace --background";
}

Result<adb::ShellResult> RecordingSession::Sh(const std::string& command,
                                              const CancelToken& cancel, Millis timeout,
                                              std::string_view in) {
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
    return Status::Ok();
  }
  const std::string local = FindRecorder(options_.device_programs_dir, info_.abi);
  if (local.empty()) {
    return ErrorStatus("no fathom-recorder for " + info_.abi + " in " +
                       options_.device_programs_dir +
                       " (build it with the NDK for that ABI; see device/README.md)");
  }
  if (info_.android) {
    remote_dir_ = "/data/local/tmp/fathom";
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
  remote_trace_ = remote_dir_ + "/trace.pftrace";
  const std::string remote_bin = remote_dir_ + "/fathom-recorder";
  // Skip the push when the same recorder is already there (Android keeps it).
  auto sum = Sh("md5sum " + remote_bin + " 2>/dev/null", cancel);
  const std::string want = Md5OfFile(local);
  if (!sum.ok() || sum->out.rfind(want, 0) != 0 || want.empty()) {
    say("Pushing the recorder…");
    Status st = shell_.Push(local, remote_bin, 0755, Deadline::After(Millis(120000)), cancel);
    if (!st.ok()) return ErrorStatus("pushing fathom-recorder: " + st.message());
  }
  // The config travels as a file so the recorder runs detached from our stream.
  const fs::path tmp = fs::temp_directory_path() / ("fathom-config-" + Timestamp() + ".pb");
  {
    std::ofstream out(tmp, std::ios::binary);
    out << config_.SerializeAsString();
  }
  Status st = shell_.Push(tmp.string(), remote_dir_ + "/config.pb", 0644,
                          Deadline::After(Millis(30000)), cancel);
  std::error_code ec;
  fs::remove(tmp, ec);
  if (!st.ok()) return ErrorStatus("pushing the config: " + st.message());
  return Status::Ok();
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
      why += " — SELinux or file permissions blocked the recorder; on user builds use the "
             "system perfetto (Android 10+)";
    }
    return ErrorStatus("the recorder did not start: " + why);
  }
  return pid;
}

Status RecordingSession::Watch(long pid, const SessionEvents& ev, const CancelToken& stop,
                               const CancelToken& cancel) {
  const auto started = std::chrono::steady_clock::now();
  const double limit_s = config_.duration_ms() ? config_.duration_ms() / 1000.0 + 30 : 1e12;
  bool stopping = false;
  double stop_sent_at = 0;
  const std::string p = std::to_string(pid);
  while (true) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (cancel.cancelled()) {
      Sh("kill -TERM " + p, CancelToken());
      return ErrorStatus("cancelled");
    }
    if (!stopping && (stop.cancelled() || elapsed > limit_s)) {
      auto r = Sh("kill -TERM " + p, CancelToken());
      if (!r.ok()) return ErrorStatus("lost the connection to the target: " + r.status().message());
      stopping = true;
      stop_sent_at = elapsed;
    }
    if (stopping && elapsed - stop_sent_at > 20) Sh("kill -KILL " + p, CancelToken());
    auto r = Sh("kill -0 " + p + " 2>/dev/null && echo running; stat -c %s " + remote_trace_ +
                    " 2>/dev/null || echo -1",
                CancelToken(), Millis(10000));
    if (!r.ok()) return ErrorStatus("lost the connection to the target: " + r.status().message());
    const bool running = r->out.find("running") != std::string::npos;
    if (ev.progress) ev.progress(elapsed, LastNumber(r->out) >= 0 ? LastNumber(r->out) : -1);
    if (!running) return Status::Ok();
    std::this_thread::sleep_for(Millis(400));
  }
}

Status RecordingSession::Pull(const SessionEvents& ev, const CancelToken& cancel) {
  const std::string part = options_.output_path + ".part";
  Status st = shell_.Pull(remote_trace_, part, ev.pulled, Deadline::After(Millis(600000)), cancel);
  std::error_code ec;
  if (!st.ok()) {
    if (fs::exists(part, ec) && fs::file_size(part, ec) > 0) {
      fs::rename(part, options_.output_path + ".partial", ec);
      return ErrorStatus("pulling the trace failed (" + st.message() + "); what arrived is in " +
                         options_.output_path + ".partial");
    }
    fs::remove(part, ec);
    return ErrorStatus("pulling the trace failed: " + st.message());
  }
  if (fs::file_size(part, ec) == 0) {
    fs::remove(part, ec);
    return ErrorStatus("the recorder wrote an empty trace (" + remote_trace_ + ")");
  }
  fs::rename(part, options_.output_path, ec);
  if (ec) return ErrorStatus(options_.output_path + ": " + ec.message());
  return Status::Ok();
}

void RecordingSession::Cleanup() {
  if (remote_dir_is_temp_) {
    Sh("rm -rf " + remote_dir_, CancelToken());
  } else if (!remote_trace_.empty()) {
    Sh("rm -f " + remote_trace_ + (remote_dir_.empty() ? "" : " " + remote_dir_ + "/config.pb"),
       CancelToken());
  }
}

Status RecordingSession::Run(const SessionEvents& ev, const CancelToken& stop,
                             const CancelToken& cancel) {
  auto say = [&](const std::string& s) {
    if (ev.status) ev.status(s);
  };
  if (Status st = Prepare(ev, cancel); !st.ok()) {
    Cleanup();
    return st;
  }
  say("Starting the recorder…");
  auto pid = Start(cancel);
  if (!pid.ok()) {
    Cleanup();
    return pid.status();
  }
  say("Recording…");
  Status watched = Watch(*pid, ev, stop, cancel);
  if (!watched.ok()) {
    if (watched.message() == "cancelled") Cleanup();
    return watched;  // a lost target leaves its files for a later pull
  }
  say("Pulling the trace…");
  Status pulled = Pull(ev, cancel);
  if (pulled.ok()) Cleanup();
  return pulled;
}

}  // namespace fathom::record
