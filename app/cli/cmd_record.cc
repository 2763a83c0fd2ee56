// `fathom-cli record`: the Record page's steps from a terminal.
//   fathom-cli record [-s SERIAL | --local] (-c CONFIG [--txt] | --preset NAME)
//                     [--time 10s] [--app NAME] [--inode-root PATH]... -o OUT
// Ctrl-C (or SIGTERM, SIGHUP) once stops the recording and still pulls the
// trace; twice abandons it. What the target and its programs say is printed
// through TerminalSafe: a device does not get to drive the user's terminal.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "app/cli/commands.h"
#include "app/cli/load.h"
#include "app/cli/stop_requests.h"
#include "app/cli/terminal_text.h"
#include "base/platform.h"
#include "base/utf8_path.h"
#include "core/sql/result_printer.h"
#include "record/output_file.h"
#include "record/recording_session.h"
#include "record/target_info.h"
#include "record/trace_config_builder.h"
#include "record/troubleshooting.h"

namespace fathom::cli {
namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: fathom-cli record [-s SERIAL | --local] (-c CONFIG [--txt] | --preset "
               "NAME)\n"
               "                         [--time 10s] [--app NAME] [--inode-root PATH]... -o OUT\n"
               "  --inode-root PATH  also map inode numbers to file paths under PATH\n"
               "                     (linux.inode_file_map; repeatable; with --preset)\n"
               "presets:\n");
  for (const auto& p : record::Presets())
    std::fprintf(stderr, "  %-12s %s: %s\n", p.name.c_str(), p.title.c_str(),
                 p.description.c_str());
  return 2;
}

// "10s", "500ms", "2m", "0" (until Ctrl-C). -1 when unparsable.
int64_t ParseDurationMs(const std::string& s) {
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (...) {
    return -1;
  }
  const std::string unit = s.substr(used);
  if (unit.empty() || unit == "s") return static_cast<int64_t>(v * 1000);
  if (unit == "ms") return static_cast<int64_t>(v);
  if (unit == "m") return static_cast<int64_t>(v * 60000);
  return -1;
}

// Device-derived text on stderr: one call so none is printed raw.
void Say(const std::string& text, Newlines newlines = Newlines::kKeep) {
  std::fprintf(stderr, "%s\n", TerminalSafe(text, newlines).c_str());
}

void PrintHints(const std::vector<record::Hint>& hints) {
  for (const auto& h : hints) Say("problem: " + h.Format());
}

// Turns stop requests (Ctrl-C, SIGTERM, SIGHUP) into the session's tokens
// while it runs: the first stops and pulls, the second abandons.
class StopWatcher {
 public:
  StopWatcher(record::CancelToken& stop, record::CancelToken& cancel) {
    CatchStopRequests();
    thread_ = std::thread([this, &stop, &cancel] {
      while (!done_) {
        const int n = StopRequests();
        if (n >= 1 && !stop.cancelled()) {
          const char* how = FirstStopRequestName();
          std::fprintf(stderr,
                       "\nstopping (%s): the recording ends and the trace is pulled; %s again "
                       "abandons it…\n",
                       how, how);
          stop.Cancel();
        }
        if (n >= 2) cancel.Cancel();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  ~StopWatcher() {
    done_ = true;
    thread_.join();
    // Loading the pulled trace afterwards may take a while: Ctrl-C ends it again.
    ReleaseStopRequests();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// The troubleshooting facts come from SQL on the loaded trace.
record::RowsQuery RowsOf(TraceProcessor& tp) {
  return [&tp](const std::string& sql) {
    auto it = tp.Query(sql);
    return RowsAsText(it.get());
  };
}

struct RecordArgs {
  std::string serial, config_path, preset, out, app, time = "10s";
  std::vector<std::string> inode_roots;
  bool local = false, text = false, time_given = false;
};

// The command line, or nullopt for a usage error.
std::optional<RecordArgs> ParseArgs(const std::vector<std::string>& args) {
  RecordArgs r;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string* { return i + 1 < args.size() ? &args[++i] : nullptr; };
    const std::string* v = nullptr;
    if (a == "--local") {
      r.local = true;
    } else if (a == "--txt") {
      r.text = true;
    } else if (a == "--inode-root" && (v = value())) {
      r.inode_roots.push_back(*v);
    } else if ((a == "-s" || a == "-c" || a == "--preset" || a == "-o" || a == "--app" ||
                a == "--time") &&
               (v = value())) {
      if (a == "-s") r.serial = *v;
      if (a == "-c") r.config_path = *v;
      if (a == "--preset") r.preset = *v;
      if (a == "-o") r.out = *v;
      if (a == "--app") r.app = *v;
      if (a == "--time") r.time = *v, r.time_given = true;
    } else {
      return std::nullopt;
    }
  }
  if (r.out.empty() || (r.config_path.empty() == r.preset.empty()) ||
      (r.local && !r.serial.empty()) || (!r.inode_roots.empty() && r.preset.empty()))
    return std::nullopt;
  return r;
}

// The config: a file, or a preset with the session settings. Returns the
// exit code of a failure (1: unreadable file, 2: bad arguments), else 0.
int MakeConfig(const RecordArgs& a, perfetto::protos::TraceConfig* config) {
  if (!a.config_path.empty()) {
    std::ifstream in(PathFromUtf8(a.config_path), std::ios::binary);
    if (!in) {
      Say("fathom-cli: " + a.config_path + ": cannot read", Newlines::kEscape);
      return 1;
    }
    std::stringstream bytes;
    bytes << in.rdbuf();
    auto parsed = record::ParseConfig(bytes.str(), a.text, a.config_path);
    if (!parsed.ok()) {
      Say("fathom-cli: " + parsed.status().message(), Newlines::kEscape);
      return 1;
    }
    *config = *parsed;
    if (a.time_given) config->set_duration_ms(static_cast<uint32_t>(ParseDurationMs(a.time)));
    return 0;
  }
  record::RecordOptions options;
  const int64_t ms = ParseDurationMs(a.time);
  if (ms < 0) {
    Say("fathom-cli: --time " + a.time + ": use e.g. 10s, 500ms, 2m or 0", Newlines::kEscape);
    return 2;
  }
  options.duration_ms = static_cast<uint32_t>(ms);
  if (!a.app.empty()) {
    options.heap_process_names = {a.app};
    options.java_processes = {a.app};
    options.callstack_processes = {a.app};
  }
  options.inode_mount_points = a.inode_roots;
  if (Status st = record::ApplyPreset(a.preset, &options); !st.ok()) {
    Say("fathom-cli: " + st.message(), Newlines::kEscape);
    return 2;
  }
  if (!a.inode_roots.empty()) options.inode_file_map = true;
  auto built = record::BuildTraceConfig(options);
  if (!built.ok()) {
    Say("fathom-cli: " + built.status().message(), Newlines::kEscape);
    return 2;
  }
  *config = *built;
  return 0;
}

// Runs the session with Ctrl-C/SIGTERM handling and progress on stderr,
// then loads the trace and explains what went wrong. The exit code.
int RecordAndReport(record::TargetShell& shell, const record::TargetInfo& info,
                    record::RecordingSession& session, const std::string& out,
                    record::CancelToken& stop, record::CancelToken& cancel) {
  // The serial, the model and the other properties come from the device.
  Say("target:   " + shell.Describe() + " — " + info.Summary(), Newlines::kEscape);
  Say("strategy: " + record::StrategyDescription(session.strategy()), Newlines::kEscape);
  Say("command:  " + session.DeviceCommand(), Newlines::kEscape);

  const bool tty = platform::StderrIsTerminal();
  record::SessionEvents events;
  events.status = [&](const std::string& s) { Say(s); };
  events.progress = [&](double elapsed, int64_t bytes) {
    if (!tty) return;
    std::fprintf(stderr, "\r  %6.1f s  %s      ", elapsed,
                 bytes >= 0 ? (std::to_string(bytes / 1024) + " KiB written").c_str() : "");
  };
  events.pulled = [&](uint64_t bytes) {
    if (tty) std::fprintf(stderr, "\r  pulled %llu KiB      ", (unsigned long long)(bytes / 1024));
  };
  Status st = Status::Ok();
  {
    StopWatcher watcher(stop, cancel);
    st = session.Run(events, stop, cancel);
  }
  if (tty) std::fprintf(stderr, "\n");
  if (!st.ok()) {
    Say("fathom-cli: " + st.message());
    PrintHints(record::TroubleshootError(session.observations(), st.message()));
    return 1;
  }
  Say("wrote " + out, Newlines::kEscape);
  // Check it loads (the same summary as `fathom-cli info`), then explain what the loaded
  // trace shows went wrong; one load for both. The file stays whatever happens.
  TraceProcessor tp;
  if (!LoadOrReport(&tp, out)) {
    Say("fathom-cli: the trace is kept at " + out, Newlines::kEscape);
    return 1;
  }
  PrintInfo(tp, out);
  PrintHints(record::Troubleshoot(session.observations(), record::GatherTraceFacts(RowsOf(tp))));
  return 0;
}

}  // namespace

int RunRecord(const std::vector<std::string>& args, const char* argv0) {
  const std::optional<RecordArgs> a = ParseArgs(args);
  if (!a) return Usage();
  perfetto::protos::TraceConfig config;
  if (int code = MakeConfig(*a, &config)) return code;
  if (a->preset == "java-alloc" && a->app.empty()) {
    std::fprintf(stderr,
                 "fathom-cli: --preset java-alloc needs --app: \"java ... Main\" on Linux, "
                 "PACKAGE[/ACTIVITY] of a debuggable app on Android\n");
    return 2;
  }
  for (const auto& ds : config.data_sources())
    if (ds.config().name() == "linux.inode_file_map")
      Say(std::string("note: linux.inode_file_map: ") + record::InodeFileMapWarning());
  // Checked before anything runs on the target: a recording that cannot be
  // saved is not started.
  if (Status st = record::CheckOutputPath(a->out); !st.ok()) {
    Say("fathom-cli: " + st.message(), Newlines::kEscape);
    return 1;
  }
  record::CancelToken stop, cancel;
  auto shell = a->local ? record::OpenLocalTarget() : record::OpenAdbTarget(a->serial, cancel);
  if (!shell.ok()) {
    Say("fathom-cli: " + shell.status().message());
    return 1;
  }
  auto info = record::ProbeTarget(**shell, cancel);
  if (!info.ok()) {
    Say("fathom-cli: " + info.status().message());
    return 1;
  }
  record::SessionOptions session_options;
  session_options.output_path = a->out;
  session_options.device_programs_dir = record::FindDeviceProgramsDir(argv0);
  if (a->preset == "java-alloc") session_options.java_alloc_command = a->app;
  record::RecordingSession session(**shell, *info, config, session_options);
  return RecordAndReport(**shell, *info, session, a->out, stop, cancel);
}

}  // namespace fathom::cli
