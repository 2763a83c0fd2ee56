#include "record/android_app_agent.h"

#include <chrono>
#include <sstream>
#include <thread>

namespace fathom::record {
namespace {

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::string LastLine(const std::string& text) {
  std::istringstream in(text);
  std::string last;
  for (std::string line; std::getline(in, line);) {
    line = Trim(line);
    if (!line.empty()) last = line;
  }
  return last;
}

// First number of `pidof`'s answer (an app may have several processes; the
// main one carries the package name alone).
long FirstPid(const std::string& text) {
  std::istringstream in(text);
  long pid = 0;
  return (in >> pid) ? pid : 0;
}

bool ValidPackage(const std::string& p) {
  if (p.empty()) return false;
  for (char c : p) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '_';
    if (!ok) return false;
  }
  return true;
}

constexpr const char* kAgentName = "libfathom_jvmti.so";
constexpr const char* kLogName = "fathom-alloc.log";

}  // namespace

AndroidAppAgent::AndroidAppAgent(TargetShell& shell, const std::string& app,
                                 uint64_t interval_bytes)
    : shell_(shell), interval_bytes_(interval_bytes) {
  const size_t slash = app.find('/');
  package_ = app.substr(0, slash);
  if (slash != std::string::npos) component_ = app;
}

Result<adb::ShellResult> AndroidAppAgent::Sh(const std::string& command,
                                             const CancelToken& cancel) {
  return shell_.Run(command, {}, Deadline::After(Millis(20000)), cancel);
}

Status AndroidAppAgent::CheckDebuggable(const CancelToken& cancel) {
  if (!ValidPackage(package_)) {
    return ErrorStatus("'" + package_ +
                       "' is not an Android package name (give --app PACKAGE or "
                       "PACKAGE/ACTIVITY, e.g. com.example.app/.MainActivity)");
  }
  auto r = Sh("run-as " + package_ + " id", cancel);
  if (!r.ok()) return r.status();
  if (r->exit_code == 0) return Status::Ok();
  const std::string why = Trim(r->err.empty() ? r->out : r->err);
  if (why.find("unknown package") != std::string::npos) {
    return ErrorStatus(package_ + " is not installed on the device (" + why + ")");
  }
  return ErrorStatus(package_ +
                     " is not debuggable; Java allocation sampling needs "
                     "android:debuggable=true (or a userdebug/eng build with root)" +
                     (why.empty() ? std::string() : " [" + why + "]"));
}

Status AndroidAppAgent::Install(const std::string& pushed_agent, const CancelToken& cancel) {
  // run-as starts in the app's data directory; pwd names it for the agent path.
  auto r = Sh("run-as " + package_ + " mkdir -p code_cache && run-as " + package_ + " cp " +
                  pushed_agent + " code_cache/" + kAgentName + " && run-as " + package_ + " pwd",
              cancel);
  if (!r.ok()) return r.status();
  data_dir_ = LastLine(r->out);
  if (r->exit_code != 0 || data_dir_.empty() || data_dir_[0] != '/') {
    return ErrorStatus("copying the agent into " + package_ +
                       "'s data directory failed: " + Trim(r->err + r->out));
  }
  return Status::Ok();
}

std::string AndroidAppAgent::AgentArgument() const {
  // tiallocsample's argument: interval, stack depth, log path.
  const std::string dir = data_dir_.empty() ? "/data/data/" + package_ : data_dir_;
  return dir + "/code_cache/" + kAgentName + "=" + std::to_string(interval_bytes_) + ",64," + dir +
         "/code_cache/" + kLogName;
}

std::string AndroidAppAgent::DescribeCommand() const {
  return "run-as " + package_ + " cp /data/local/tmp/fathom/" + kAgentName +
         " code_cache/ && am start --attach-agent " + AgentArgument() + " -n " +
         (component_.empty() ? package_ + "/<launcher activity>" : component_) +
         "   (cmd activity attach-agent " + package_ + " … when it runs)";
}

Result<long> AndroidAppAgent::Launch(const std::function<void(const std::string&)>& say,
                                     const CancelToken& cancel) {
  // A stale log from an earlier run must not be taken for this one's.
  Sh("run-as " + package_ + " rm -f code_cache/" + kLogName, cancel);
  auto running = Sh("pidof " + package_, cancel);
  if (!running.ok()) return running.status();
  if (long pid = FirstPid(running->out); pid > 0) {
    say(package_ + " is running (pid " + std::to_string(pid) +
        "): attaching the agent (cmd activity attach-agent)…");
    auto r = Sh("cmd activity attach-agent " + package_ + " " + AgentArgument(), cancel);
    if (!r.ok()) return r.status();
    if (r->exit_code != 0) {
      return ErrorStatus("attaching the agent to " + package_ +
                         " failed: " + Trim(r->err + r->out));
    }
    pid_ = pid;
    return pid;
  }
  std::string component = component_;
  if (component.empty()) {
    auto r = Sh("cmd package resolve-activity --brief " + package_, cancel);
    if (!r.ok()) return r.status();
    component = LastLine(r->out);
    if (r->exit_code != 0 || component.find('/') == std::string::npos) {
      return ErrorStatus("cannot find the launcher activity of " + package_ +
                         "; give it as --app " + package_ + "/.MainActivity");
    }
  }
  say("Starting " + component + " with the allocation agent (am start --attach-agent)…");
  auto r = Sh("am start --attach-agent " + AgentArgument() + " -n '" + component + "'", cancel);
  if (!r.ok()) return r.status();
  const std::string answer = Trim(r->out + r->err);
  if (r->exit_code != 0 || answer.find("Error") != std::string::npos) {
    return ErrorStatus("am start " + component + " failed: " + answer);
  }
  // The process appears once the activity manager has forked it.
  for (int i = 0; i < 50 && !cancel.cancelled(); ++i) {
    auto p = Sh("pidof " + package_, cancel);
    if (!p.ok()) return p.status();
    if (long pid = FirstPid(p->out); pid > 0) {
      pid_ = pid;
      return pid;
    }
    std::this_thread::sleep_for(Millis(200));
  }
  return ErrorStatus(package_ + " did not start within 10 s of `am start` (" + answer + ")");
}

std::string AndroidAppAgent::SignalCommand(const std::string& sig) const {
  if (pid_ <= 0) return "true";
  return "run-as " + package_ + " kill -" + sig + " " + std::to_string(pid_) + " 2>/dev/null";
}

Status AndroidAppAgent::FetchLog(const std::string& remote_path, const CancelToken& cancel) {
  // The redirect runs as the shell user, so the copy lands where adb can pull it.
  auto r = Sh("run-as " + package_ + " cat code_cache/" + kLogName + " > " + remote_path, cancel);
  if (!r.ok()) return r.status();
  if (r->exit_code != 0) {
    return ErrorStatus("reading the allocation log from " + package_ +
                       " failed: " + Trim(r->err + r->out));
  }
  return Status::Ok();
}

void AndroidAppAgent::Cleanup() {
  Sh("run-as " + package_ + " rm -f code_cache/" + kLogName + " code_cache/" + kAgentName,
     CancelToken());
}

}  // namespace fathom::record
