// `fathom-cli record`: the Record page's steps from a terminal.
//   fathom-cli record [-s SERIAL | --local] (-c CONFIG [--txt] | --preset NAME)
//                     [--time 10s] [--app NAME] -o OUT
// Ctrl-C once stops the recording and still pulls the trace; twice abandons it.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "app/cli/commands.h"
#include "app/cli/load.h"
#include "core/base/platform.h"
#include "core/sql/result_printer.h"
#include "record/recording_session.h"
#include "record/target_info.h"
#include "record/trace_config_builder.h"
#include "record/troubleshooting.h"

namespace fathom::cli {
namespace {

std::atomic<int> g_interrupts{0};
void OnInterrupt(int) { g_interrupts.fetch_add(1); }

int Usage() {
  std::fprintf(stderr,
               "usage: fathom-cli record [-s SERIAL | --local] (-c CONFIG [--txt] | --preset "
               "NAME)\n"
               "                         [--time 10s] [--app NAME] -o OUT\n"
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

void PrintHints(const std::vector<record::Hint>& hints) {
  for (const auto& h : hints) std::fprintf(stderr, "problem: %s\n", h.Format().c_str());
}

// The troubleshooting facts come from SQL on the loaded trace.
record::RowsQuery RowsOf(TraceProcessor& tp) {
  return [&tp](const std::string& sql) {
    auto it = tp.Query(sql);
    return RowsAsText(it.get());
  };
}

}  // namespace

int RunRecord(const std::vector<std::string>& args, const char* argv0) {
  std::string serial, config_path, preset, out, app, time = "10s";
  bool local = false, text = false, time_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string* { return i + 1 < args.size() ? &args[++i] : nullptr; };
    const std::string* v = nullptr;
    if (a == "--local") {
      local = true;
    } else if (a == "--txt") {
      text = true;
    } else if ((a == "-s" || a == "-c" || a == "--preset" || a == "-o" || a == "--app" ||
                a == "--time") &&
               (v = value())) {
      if (a == "-s") serial = *v;
      if (a == "-c") config_path = *v;
      if (a == "--preset") preset = *v;
      if (a == "-o") out = *v;
      if (a == "--app") app = *v;
      if (a == "--time") time = *v, time_given = true;
    } else {
      return Usage();
    }
  }
  if (out.empty() || (config_path.empty() == preset.empty()) || (local && !serial.empty()))
    return Usage();

  // The config: a file, or a preset with the session settings.
  perfetto::protos::TraceConfig config;
  if (!config_path.empty()) {
    std::ifstream in(config_path, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "fathom-cli: %s: cannot read\n", config_path.c_str());
      return 1;
    }
    std::stringstream bytes;
    bytes << in.rdbuf();
    auto parsed = record::ParseConfig(bytes.str(), text, config_path);
    if (!parsed.ok()) {
      std::fprintf(stderr, "fathom-cli: %s\n", parsed.status().message().c_str());
      return 1;
    }
    config = *parsed;
    if (time_given) config.set_duration_ms(static_cast<uint32_t>(ParseDurationMs(time)));
  } else {
    record::RecordOptions options;
    const int64_t ms = ParseDurationMs(time);
    if (ms < 0) {
      std::fprintf(stderr, "fathom-cli: --time %s: use e.g. 10s, 500ms, 2m or 0\n", time.c_str());
      return 2;
    }
    options.duration_ms = static_cast<uint32_t>(ms);
    if (!app.empty()) {
      options.heap_process_names = {app};
      options.java_processes = {app};
    }
    if (Status st = record::ApplyPreset(preset, &options); !st.ok()) {
      std::fprintf(stderr, "fathom-cli: %s\n", st.message().c_str());
      return 2;
    }
    auto built = record::BuildTraceConfig(options);
    if (!built.ok()) {
      std::fprintf(stderr, "fathom-cli: %s\n", built.status().message().c_str());
      return 2;
    }
    config = *built;
  }

  record::CancelToken stop, cancel;
  auto shell = local ? record::OpenLocalTarget() : record::OpenAdbTarget(serial, cancel);
  if (!shell.ok()) {
    std::fprintf(stderr, "fathom-cli: %s\n", shell.status().message().c_str());
    return 1;
  }
  auto info = record::ProbeTarget(**shell, cancel);
  if (!info.ok()) {
    std::fprintf(stderr, "fathom-cli: %s\n", info.status().message().c_str());
    return 1;
  }
  record::SessionOptions session_options;
  session_options.output_path = out;
  session_options.device_programs_dir = record::FindDeviceProgramsDir(argv0);
  if (preset == "java-alloc") {
    if (app.empty()) {
      std::fprintf(stderr,
                   "fathom-cli: --preset java-alloc needs --app: \"java ... Main\" on Linux, "
                   "PACKAGE[/ACTIVITY] of a debuggable app on Android\n");
      return 2;
    }
    session_options.java_alloc_command = app;
  }
  record::RecordingSession session(**shell, *info, config, session_options);
  std::fprintf(stderr, "target:   %s — %s\nstrategy: %s\ncommand:  %s\n",
               (*shell)->Describe().c_str(), info->Summary().c_str(),
               record::StrategyDescription(session.strategy()).c_str(),
               session.DeviceCommand().c_str());

  std::signal(SIGINT, OnInterrupt);
  std::atomic<bool> done{false};
  std::thread watcher([&] {
    while (!done) {
      const int n = g_interrupts.load();
      if (n >= 1 && !stop.cancelled()) {
        std::fprintf(stderr, "\nstopping (Ctrl-C again to abandon the recording)…\n");
        stop.Cancel();
      }
      if (n >= 2) cancel.Cancel();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  const bool tty = platform::StderrIsTerminal();
  record::SessionEvents events;
  events.status = [&](const std::string& s) { std::fprintf(stderr, "%s\n", s.c_str()); };
  events.progress = [&](double elapsed, int64_t bytes) {
    if (!tty) return;
    std::fprintf(stderr, "\r  %6.1f s  %s      ", elapsed,
                 bytes >= 0 ? (std::to_string(bytes / 1024) + " KiB written").c_str() : "");
  };
  events.pulled = [&](uint64_t bytes) {
    if (tty) std::fprintf(stderr, "\r  pulled %llu KiB      ", (unsigned long long)(bytes / 1024));
  };
  Status st = session.Run(events, stop, cancel);
  done = true;
  watcher.join();
  if (tty) std::fprintf(stderr, "\n");
  if (!st.ok()) {
    std::fprintf(stderr, "fathom-cli: %s\n", st.message().c_str());
    PrintHints(record::TroubleshootError(session.observations(), st.message()));
    return 1;
  }
  std::fprintf(stderr, "wrote %s\n", out.c_str());
  // Check it loads (the same summary as `fathom-cli info`), then explain what the loaded
  // trace shows went wrong; one load for both. The file stays whatever happens.
  TraceProcessor tp;
  if (!LoadOrReport(&tp, out)) {
    std::fprintf(stderr, "fathom-cli: the trace is kept at %s\n", out.c_str());
    return 1;
  }
  PrintInfo(tp, out);
  PrintHints(record::Troubleshoot(session.observations(), record::GatherTraceFacts(RowsOf(tp))));
  return 0;
}

}  // namespace fathom::cli
