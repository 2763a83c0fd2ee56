#include "record/target_info.h"

#include <map>
#include <sstream>

namespace fathom::record {

std::string AbiFromMachine(const std::string& m) {
  if (m == "x86_64" || m == "amd64") return "x86_64";
  if (m == "aarch64" || m == "arm64") return "arm64-v8a";
  if (m.rfind("armv7", 0) == 0 || m.rfind("armv8l", 0) == 0 || m == "arm") return "armeabi-v7a";
  if (m == "i686" || m == "i386" || m == "x86") return "x86";
  return m;
}

Result<TargetInfo> ProbeTarget(TargetShell& shell, const CancelToken& cancel) {
  // One round trip; every getprop may fail (Linux targets have none).
  static const char* kProbe =
      "echo sdk=$(getprop ro.build.version.sdk 2>/dev/null);"
      "echo release=$(getprop ro.build.version.release 2>/dev/null);"
      "echo model=$(getprop ro.product.model 2>/dev/null);"
      "echo abi=$(getprop ro.product.cpu.abi 2>/dev/null);"
      "echo buildtype=$(getprop ro.build.type 2>/dev/null);"
      "echo traced=$(getprop persist.traced.enable 2>/dev/null);"
      "echo machine=$(uname -m);echo kernel=$(uname -r);echo host=$(uname -n);"
      "echo uid=$(id -u);"
      "echo perfetto=$(command -v perfetto 2>/dev/null);"
      "if [ -d /data/local/tmp ]; then echo tmpdir=/data/local/tmp; "
      "else echo tmpdir=${TMPDIR:-/tmp}; fi;"
      "for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do "
      "[ -w $d/tracing_on ] && echo tracefs=$d && break; done";
  auto r = shell.Run(kProbe, {}, Deadline::After(Millis(15000)), cancel);
  if (!r.ok()) return r.status();
  std::map<std::string, std::string> kv;
  std::istringstream lines(r->out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t eq = line.find('=');
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
  }
  if (!kv.count("machine")) {
    return ErrorStatus(shell.Describe() + ": unexpected answer to the capability probe: " +
                       r->out.substr(0, 200) + r->err.substr(0, 200));
  }
  TargetInfo info;
  info.sdk = std::atoi(kv["sdk"].c_str());
  info.android = info.sdk > 0;
  info.model = info.android ? kv["model"] : kv["host"];
  info.release = info.android ? kv["release"] : kv["kernel"];
  info.abi = info.android && !kv["abi"].empty() ? kv["abi"] : AbiFromMachine(kv["machine"]);
  info.build_type = kv["buildtype"];
  info.root = kv["uid"] == "0";
  info.has_perfetto = !kv["perfetto"].empty();
  info.traced_enabled = kv["traced"] == "1";
  info.tracefs = kv["tracefs"];
  info.tmpdir = kv["tmpdir"];
  return info;
}

Strategy ChooseStrategy(const TargetInfo& info) {
  if (info.android && info.sdk >= 29 && info.has_perfetto) return Strategy::kSystemPerfetto;
  if (info.android && info.sdk == 28 && info.has_perfetto) {
    return info.traced_enabled ? Strategy::kSystemPerfetto : Strategy::kEnableTraced;
  }
  return Strategy::kShippedRecorder;
}

std::string StrategyDescription(Strategy s) {
  switch (s) {
    case Strategy::kSystemPerfetto:
      return "system perfetto client (config on stdin, trace in /data/misc/perfetto-traces)";
    case Strategy::kEnableTraced:
      return "Android 9: traced is off — enable it with `setprop persist.traced.enable 1`, or "
             "record with Fathom's recorder";
    case Strategy::kShippedRecorder:
      return "Fathom's recorder, pushed to the target and run there";
  }
  return {};
}

std::string TargetInfo::Summary() const {
  std::ostringstream s;
  if (android) {
    s << model << ", Android " << release << " (SDK " << sdk << "), " << abi << ", " << build_type
      << (root ? ", root" : "") << (has_perfetto ? ", perfetto" : "")
      << (sdk == 28 ? (traced_enabled ? ", traced on" : ", traced off") : "");
  } else {
    s << model << ", Linux " << release << ", " << abi << (root ? ", root" : ", not root")
      << (tracefs.empty() ? ", no kernel events (tracefs not writable)" : ", tracefs");
  }
  return s.str();
}

}  // namespace fathom::record
