// One recording, start to finish, on any target: choose the strategy, push
// what the target lacks, start the recorder in the background, watch it,
// stop it cleanly, pull the trace (to a temp name, renamed when complete),
// clean up. Blocking: run it on a worker thread; Stop and Cancel come from
// any thread through the tokens.
#pragma once

#include <functional>
#include <string>

#include "record/target_info.h"
#include "record/target_shell.h"
#include "record/trace_config_builder.h"

namespace fathom::record {

struct SessionOptions {
  std::string output_path;          // the local trace, written only when complete
  std::string device_programs_dir;  // holds <abi>/fathom-recorder (see FindDeviceProgramsDir)
  bool enable_traced = false;       // SDK 28: setprop persist.traced.enable 1 first
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

 private:
  Status Prepare(const SessionEvents& events, const CancelToken& cancel);
  Result<long> Start(const CancelToken& cancel);
  Status Watch(long pid, const SessionEvents& events, const CancelToken& stop,
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
};

// Where the device programs are: $FATHOM_DEVICE_DIR, else share/fathom/device
// next to the installed binary, else the build tree's bin/ (host ABI only).
std::string FindDeviceProgramsDir(const std::string& argv0);
// The recorder for `abi` under `dir`, or empty when there is none.
std::string FindRecorder(const std::string& dir, const std::string& abi);

}  // namespace fathom::record
