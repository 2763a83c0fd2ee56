// Java allocation sampling in an Android app: Fathom's JVMTI agent goes into
// the app's own data directory (ART loads agents only from places the app can
// read), the app is started with `am start --attach-agent` or, when already
// running, gets the agent through `cmd activity attach-agent`; the agent's log
// is read back with `run-as`. All of it needs a debuggable app (run-as works
// only for those), which CheckDebuggable() tells the user in plain words.
#pragma once

#include <functional>
#include <string>

#include "record/target_shell.h"

namespace fathom::record {

class AndroidAppAgent {
 public:
  // `app` is "PACKAGE" or "PACKAGE/ACTIVITY" (the component to start).
  AndroidAppAgent(TargetShell& shell, const std::string& app, uint64_t interval_bytes);

  const std::string& package() const { return package_; }
  // `run-as PKG id`: fails for apps that are not debuggable (or not installed).
  Status CheckDebuggable(const CancelToken& cancel);
  // Copies the agent pushed to `pushed_agent` (a shell-readable path) into the
  // app's code_cache, where the app may load it.
  Status Install(const std::string& pushed_agent, const CancelToken& cancel);
  // Starts the app with the agent (or attaches it to the running app) and
  // returns the app's pid. `say` reports which of the two happened.
  Result<long> Launch(const std::function<void(const std::string&)>& say,
                      const CancelToken& cancel);
  // Shell command sending `sig` (TERM, KILL) to the app as the app's uid:
  // the shell user may not signal apps itself.
  std::string SignalCommand(const std::string& sig) const;
  // `am force-stop PKG`: the last resort when the app ignores SIGTERM.
  std::string ForceStopCommand() const { return "am force-stop " + package_; }
  // Copies the agent's log out of the app's data directory to `remote_path`.
  Status FetchLog(const std::string& remote_path, const CancelToken& cancel);
  // Removes the log and the agent copy from the app's data directory.
  void Cleanup();
  // The command shown on the Record page.
  std::string DescribeCommand() const;

 private:
  Result<adb::ShellResult> Sh(const std::string& command, const CancelToken& cancel);
  std::string AgentArgument() const;

  TargetShell& shell_;
  std::string package_;
  std::string component_;  // empty: resolved with `cmd package resolve-activity`
  uint64_t interval_bytes_;
  std::string data_dir_;  // what `run-as PKG pwd` prints (/data/user/0/PKG)
  long pid_ = 0;
};

}  // namespace fathom::record
