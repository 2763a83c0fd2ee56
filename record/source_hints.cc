#include "record/source_hints.h"

#include <algorithm>

namespace fathom::record {
namespace {

bool Asked(const SessionObservations& seen, const std::string& source) {
  return std::find(seen.sources.begin(), seen.sources.end(), source) != seen.sources.end();
}

Hint TracefsHint(const SessionObservations& seen) {
  if (seen.android)
    return {"linux.ftrace gave no events: the kernel tracer (tracefs) could not be used",
            "record through the system perfetto (Android 9+), or on a rooted device run "
            "`adb root` first; Fathom's own recorder needs write access to "
            "/sys/kernel/tracing"};
  return {"linux.ftrace gave no events: the kernel tracer (tracefs) is not writable here",
          "record as root (`sudo fathom` / `sudo fathom-cli record`), or mount it and give "
          "yourself access: `sudo mount -t tracefs nodev /sys/kernel/tracing` and "
          "`sudo chmod -R a+rwX /sys/kernel/tracing` (until the next reboot)"};
}

Hint PerfHint(const SessionObservations& seen) {
  return {"linux.perf gave no CPU samples",
          std::string("perf events need root, CAP_PERFMON or a low perf_event_paranoid: ") +
              (seen.android ? "`adb shell setprop security.perf_harden 0` on a userdebug build"
                            : "`sudo sysctl kernel.perf_event_paranoid=1`") +
              "; without them name the processes to sample (a user may sample their own), and "
              "make sure they ran on a CPU during the recording"};
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& SourceRowQueries() {
  static const std::vector<std::pair<std::string, std::string>> kQueries = {
      {"linux.ftrace", "select (select count(*) from ftrace_event) + (select count(*) from sched)"},
      {"linux.perf", "select count(*) from perf_sample"},
      {"linux.process_stats", "select count(*) from process where pid > 0"},
      {"linux.sys_stats", "select count(*) from counter"},
      {"android.log", "select count(*) from android_logs"},
  };
  return kQueries;
}

std::vector<Hint> EmptySourceHints(const SessionObservations& seen, const TraceFacts& facts) {
  std::vector<Hint> hints;
  auto empty = [&](const std::string& source) {
    auto it = facts.source_rows.find(source);
    return Asked(seen, source) && it != facts.source_rows.end() && it->second == 0;
  };
  if (empty("linux.ftrace")) hints.push_back(TracefsHint(seen));
  if (empty("linux.perf")) hints.push_back(PerfHint(seen));
  if (empty("linux.process_stats"))
    hints.push_back({"linux.process_stats gave no processes",
                     "the recorder could not read /proc on the target; check that it ran "
                     "(its messages are above) and that /proc is mounted"});
  if (empty("linux.sys_stats"))
    hints.push_back({"linux.sys_stats gave no counters",
                     "set at least one period (meminfo, vmstat or stat) and record for longer "
                     "than it"});
  if (empty("android.log"))
    hints.push_back({"android.log gave no log lines",
                     "the chosen buffers had nothing at or above the minimum priority; lower "
                     "it (e.g. to debug) or choose more buffers"});
  return hints;
}

std::vector<Hint> SourceErrorHints(const SessionObservations& seen, const std::string& text) {
  std::vector<Hint> hints;
  if (Mentions(text, "tracefs") || Mentions(text, "/sys/kernel/tracing") ||
      Mentions(text, "/sys/kernel/debug/tracing"))
    hints.push_back(TracefsHint(seen));
  if (Mentions(text, "linux.perf: cannot sample")) hints.push_back(PerfHint(seen));
  return hints;
}

}  // namespace fathom::record
