// What a target is and can do, read with one shell command, and the
// recording strategy that follows from it (shown to the user before Record).
#pragma once

#include <string>

#include "record/target_shell.h"

namespace fathom::record {

struct TargetInfo {
  bool android = false;    // getprop answered
  std::string model;       // ro.product.model, or the host name on Linux
  std::string release;     // Android version ("14") or kernel release
  int sdk = 0;             // ro.build.version.sdk (0 on Linux)
  std::string abi;         // Android ABI name: arm64-v8a, armeabi-v7a, x86_64, x86
  std::string build_type;  // user, userdebug, eng
  bool root = false;       // shell runs as uid 0
  bool has_perfetto = false;
  bool traced_enabled = false;  // persist.traced.enable (SDK 28)
  std::string tracefs;          // writable tracefs mount, empty when kernel events are out of reach
  std::string
      tmpdir;  // where the shell may write: /data/local/tmp on Android, else $TMPDIR or /tmp
  std::string Summary() const;
};

enum class Strategy {
  kSystemPerfetto,   // SDK >= 29: the platform's perfetto client
  kEnableTraced,     // SDK 28: traced exists but is off; offer setprop, else ship ours
  kShippedRecorder,  // older Android and Linux: push fathom-recorder and run it
};

Result<TargetInfo> ProbeTarget(TargetShell& shell, const CancelToken& cancel);
Strategy ChooseStrategy(const TargetInfo& info);
std::string StrategyDescription(Strategy s);
// Maps `uname -m` to the Android ABI names the device programs are built for.
std::string AbiFromMachine(const std::string& machine);

}  // namespace fathom::record
