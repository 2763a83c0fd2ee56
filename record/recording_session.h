// One recording, start to finish, on any target: choose the strategy, push
// what the target lacks, start the recorder in the background, watch it,
// stop it cleanly, pull the trace (to a temp name, renamed when complete),
// clean up. Blocking: run it on a worker thread; Stop and Cancel come from
// any thread through the tokens.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "record/android_app_agent.h"
#include "record/target_info.h"
#include "record/target_shell.h"
#include "record/trace_config_builder.h"

namespace fathom::record {

struct SessionOptions {
  std::string output_path;          // the local trace, written only when complete
  std::string device_programs_dir;  // holds <abi>/fathom-recorder (see FindDeviceProgramsDir)
  bool enable_traced = false;       // SDK 28: setprop persist.traced.enable 1 first
  // Java allocation sampling. Linux targets: this command runs with Fathom's
  // JVMTI agent (JAVA_TOOL_OPTIONS=-agentpath:…). Android: the debuggable app
  // "PACKAGE" or "PACKAGE/ACTIVITY", started with `am start --attach-agent`
  // (or attached when running). The log travels with the trace in one tar,
  // which Fathom opens as one timeline.
  std::string java_alloc_command;
  uint64_t java_alloc_interval_bytes = 32 * 1024;
};

struct SessionEvents {
  std::function<void(const std::string& step)> status;  // "Pushing the recorder…"
  // Seconds since the recorder started; bytes of the trace on the target (-1 unknown).
  std::function<void(double elapsed_s, int64_t bytes)> progress;
  std::function<void(uint64_t bytes)> pulled;
};

// What a session saw on the target, for the troubleshooting hints
// (record/troubleshooting.h) next to what the loaded trace says.
struct SessionObservations {
  bool heap_profile = false;  // a native heap profile was asked for
  bool java_alloc = false;    // Java allocation sampling was asked for
  bool android = false;
  std::string build_type;                 // user, userdebug, eng
  bool stopped_early = false;             // the user pressed Stop (or Ctrl-C)
  std::string target_messages;            // what the target's programs printed (stderr, logs)
  std::vector<std::string> heap_targets;  // process names / pids asked for
  uint64_t heap_interval_bytes = 0;       // the sampling interval asked for (0: default 4096)
  int sdk = 0;
  bool traced_enabled = false;       // persist.traced.enable (Android 9)
  bool system_perfetto = false;      // recorded through the platform's perfetto/traced
  std::vector<std::string> sources;  // the config's data source names
};

class RecordingSession {
 public:
  RecordingSession(TargetShell& shell, TargetInfo info, perfetto::protos::TraceConfig config,
                   SessionOptions options);

  Strategy strategy() const { return strategy_; }
  // The command that runs on the target, for the Record page to show.
  std::string DeviceCommand() const;

  // `stop` ends the recording early but keeps and pulls the trace; `cancel`
  // abandons it. The output path is checked first, before anything runs on
  // the target. A lost connection or a failed pull is an error; whatever was
  // pulled stays next to the output as OUTPUT.partial, and the error names
  // where the trace is on the target. After a successful pull the target's
  // copy is removed, or a status line names what could not be removed.
  Status Run(const SessionEvents& events, const CancelToken& stop, const CancelToken& cancel);

  // "Dump heap now": SIGUSR1 to the heap collector (fathom-heapprofd on
  // Linux, the system heapprofd on Android where the shell may signal it).
  // Callable from any thread while Run() is recording.
  Status DumpHeapNow();
  bool profiles_heap() const { return heap_.has_value(); }
  // Filled in while Run() goes; read it after Run() returns.
  const SessionObservations& observations() const { return observed_; }

 private:
  Status Prepare(const SessionEvents& events, const CancelToken& cancel);
  Status PushConfig(const CancelToken& cancel);
  Result<long> Start(const CancelToken& cancel);
  Result<long> StartHeapCollector(const CancelToken& cancel);
  Result<long> StartJavaProgram(const CancelToken& cancel);
  // Waits while `primary` runs (the recorder, or the heap collector alone),
  // then stops the others so they write their last data, and waits for all.
  Status Watch(const std::vector<long>& pids, const SessionEvents& events, const CancelToken& stop,
               const CancelToken& cancel);
  // Signals everything the session started, as the user it runs as: our own
  // programs with kill, the program under the heap profiler (its child) too,
  // and an Android app through run-as.
  std::string SignalCommand(const std::vector<long>& pids, const std::string& sig) const;
  Status FinishJava(const SessionEvents& events);
  // Removes what the session left on the target (the temp directory, or on
  // Android the trace and config files). Empty when all is gone, else a
  // sentence naming what is left.
  std::string Cleanup();
  // `st` with what Cleanup() could not remove appended.
  Status CleanedUp(Status st);
  // What stays on the target when a recording ends before its pull.
  std::string LeftOnTarget() const;
  Result<adb::ShellResult> Sh(const std::string& command, const CancelToken& cancel,
                              Millis timeout = Millis(20000), std::string_view in = {});

  TargetShell& shell_;
  TargetInfo info_;
  perfetto::protos::TraceConfig config_;
  SessionOptions options_;
  Strategy strategy_;
  std::string remote_dir_;
  std::string remote_trace_;
  bool remote_dir_is_temp_ = false;
  // Linux targets: heapprofd's config runs through fathom-heapprofd + preload.
  std::optional<perfetto::protos::HeapprofdConfig> heap_;
  bool run_recorder_ = true;
  std::atomic<long> heap_pid_{0};
  std::unique_ptr<AndroidAppAgent> app_;  // Java allocations in an Android app
  long app_pid_ = 0;
  SessionObservations observed_;
};

// Where the device programs are: $FATHOM_DEVICE_DIR, else share/fathom/device
// next to the installed binary, else the build tree's bin/ (host ABI only).
std::string FindDeviceProgramsDir(const std::string& argv0);
// A device program (fathom-recorder, fathom-heapprofd, libfathom_heapprof.so)
// for `abi` under `dir`, or empty when there is none.
std::string FindDeviceProgram(const std::string& dir, const std::string& abi,
                              const std::string& name);
inline std::string FindRecorder(const std::string& dir, const std::string& abi) {
  return FindDeviceProgram(dir, abi, "fathom-recorder");
}

}  // namespace fathom::record
