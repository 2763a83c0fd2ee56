// One recording, start to finish, on any target: choose the strategy, push
// what the target lacks, start the recorder in the background, watch it,
// stop it cleanly, pull the trace (to a temp name, renamed when complete),
// clean up. Blocking: run it on a worker thread; Stop and Cancel come from
// any thread through the tokens.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "record/target_info.h"
#include "record/target_shell.h"
#include "record/trace_config_builder.h"

namespace fathom::record {

struct SessionOptions {
  std::string output_path;          // the local trace, written only when complete
  std::string device_programs_dir;  // holds <abi>/fathom-recorder (see FindDeviceProgramsDir)
  bool enable_traced = false;       // SDK 28: setprop persist.traced.enable 1 first
  // Java allocation sampling (Linux targets): this command runs with Fathom's
  // JVMTI agent (JAVA_TOOL_OPTIONS=-agentpath:…); its log travels with the
  // trace in one tar, which Fathom opens as one timeline.
  std::string java_alloc_command;
  uint64_t java_alloc_interval_bytes = 32 * 1024;
};

struct SessionEvents {
  std::function<void(const std::string& step)> status;  // "Pushing the recorder…"
  // Seconds since the recorder started; bytes of the trace on the target (-1 unknown).
  std::function<void(double elapsed_s, int64_t bytes)> progress;
  std::function<void(uint64_t bytes)> pulled;
};

class RecordingSession {
 public:
  RecordingSession(TargetShell& shell, TargetInfo info, perfetto::protos::TraceConfig config,
                   SessionOptions options);

  Strategy strategy() const { return strategy_; }
  // The command that runs on the target, for the Record page to show.
  std::string DeviceCommand() const;

  // `stop` ends the recording early but keeps and pulls the trace; `cancel`
  // abandons it. A lost connection or a failed pull is an error; whatever was
  // pulled stays next to the output as OUTPUT.partial.
  Status Run(const SessionEvents& events, const CancelToken& stop, const CancelToken& cancel);

  // "Dump heap now": SIGUSR1 to the heap collector (fathom-heapprofd on
  // Linux, the system heapprofd on Android where the shell may signal it).
  // Callable from any thread while Run() is recording.
  Status DumpHeapNow();
  bool profiles_heap() const { return heap_.has_value(); }

 private:
  Status Prepare(const SessionEvents& events, const CancelToken& cancel);
  Result<long> Start(const CancelToken& cancel);
  Result<long> StartHeapCollector(const CancelToken& cancel);
  Result<long> StartJavaProgram(const CancelToken& cancel);
  // Waits while `primary` runs (the recorder, or the heap collector alone),
  // then stops the others so they write their last data, and waits for all.
  Status Watch(const std::vector<long>& pids, const SessionEvents& events, const CancelToken& stop,
               const CancelToken& cancel);
  Status Pull(const SessionEvents& events, const CancelToken& cancel);
  void Cleanup();
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
