#include "record/troubleshooting.h"

#include <algorithm>

#include "record/source_hints.h"

namespace fathom::record {
namespace {

int64_t Stat(const TraceFacts& f, const std::string& name) {
  auto it = f.stats.find(name);
  return it == f.stats.end() ? 0 : it->second;
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// A process name as heapprofd matches it: the cmdline's first argument, or
// its last path component ("/system/bin/foo" is also "foo").
bool NameMatches(const std::string& wanted, const std::string& process) {
  if (process == wanted) return true;
  const size_t slash = process.rfind('/');
  if (slash != std::string::npos && process.substr(slash + 1) == wanted) return true;
  const size_t space = process.find(' ');
  return space != std::string::npos && NameMatches(wanted, process.substr(0, space));
}

bool IsNumber(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Hint SelinuxHint() {
  return {"SELinux denied the recording (\"avc: denied\" / \"Permission denied\" on the target)",
          "on user builds record through the system perfetto (Android 10+) and profile only "
          "profileable or debuggable apps; on a userdebug build `adb shell su root setenforce 0` "
          "lifts the restriction until the next reboot (turn it back on with setenforce 1)"};
}

Hint TracedHint() {
  return {"the tracing service (traced) is not running on the device",
          "enable it with `adb shell setprop persist.traced.enable 1` (Android 9 ships it "
          "disabled), wait a second and record again; on Android 8 and older Fathom's own "
          "recorder is used instead"};
}

}  // namespace

TraceFacts GatherTraceFacts(const RowsQuery& query) {
  TraceFacts f;
  if (auto rows = query("select name, sum(value) from stats where value > 0 group by name");
      rows.ok()) {
    for (const auto& r : *rows)
      if (r.size() == 2) f.stats[r[0]] = std::atoll(r[1].c_str());
  }
  if (auto rows = query("select count(*) from heap_profile_allocation"); rows.ok()) {
    if (!rows->empty() && !(*rows)[0].empty()) f.heap_samples = std::atoll((*rows)[0][0].c_str());
  }
  if (auto rows = query("select distinct name from process where name is not null"); rows.ok()) {
    for (const auto& r : *rows)
      if (!r.empty() && !r[0].empty()) f.process_names.push_back(r[0]);
  }
  for (const auto& [source, sql] : SourceRowQueries())
    if (auto rows = query(sql); rows.ok() && !rows->empty() && !(*rows)[0].empty())
      f.source_rows[source] = std::atoll((*rows)[0][0].c_str());
  return f;
}

std::vector<Hint> Troubleshoot(const SessionObservations& seen, const TraceFacts& facts) {
  std::vector<Hint> hints;
  const int64_t overran = Stat(facts, "heapprofd_buffer_overran");
  const int64_t rejected = Stat(facts, "heapprofd_rejected_concurrent");
  const int64_t disconnected = Stat(facts, "heapprofd_client_disconnected");
  if (overran > 0) {
    hints.push_back(
        {"the heap profile ended early: " + std::to_string(overran) +
             " process(es) allocated faster than the profiler could read (buffer overrun)",
         "give the profiler a larger shared memory buffer (HeapprofdConfig shmem_size_bytes, "
         "e.g. 33554432) or a larger sampling interval (e.g. 16384 bytes or more, at some "
         "loss of accuracy), or set block_client so the app waits instead of the profile "
         "ending"});
  }
  if (Stat(facts, "heapprofd_hit_guardrail") > 0) {
    hints.push_back({"heapprofd stopped the profile at its CPU or memory guardrail",
                     "profile fewer processes, raise the sampling interval, or raise the "
                     "guardrails in the config (max_heapprofd_cpu_secs, "
                     "max_heapprofd_memory_kb)"});
  }
  if (seen.heap_profile && facts.heap_samples == 0) {
    const std::string who =
        seen.heap_targets.empty() ? "the profiled process" : Join(seen.heap_targets);
    // The causes, most specific first; each one the user can check.
    if (rejected > 0) {
      hints.push_back({"the heap profile of " + who +
                           " is empty: another profiling session already profiles it "
                           "(rejected_concurrent)",
                       "stop the other session (`adb shell killall perfetto`, or end the "
                       "other Fathom or heap_profile run) and record again"});
    }
    std::vector<std::string> missing;
    for (const auto& t : seen.heap_targets) {
      if (IsNumber(t)) continue;
      const bool found = std::any_of(facts.process_names.begin(), facts.process_names.end(),
                                     [&](const std::string& p) { return NameMatches(t, p); });
      if (!found) missing.push_back(t);
    }
    if (!missing.empty() && !facts.process_names.empty()) {
      hints.push_back({"no process named " + Join(missing) + " is in the trace",
                       "the name must match the process's command line exactly (the package "
                       "name for an app, \"com.example:service\" for its service process); "
                       "check it with `adb shell ps -A | grep NAME`, and start the app before "
                       "or during the recording"});
    }
    if (disconnected > 0) {
      hints.push_back({who + " disconnected from the profiler before the end (it exited or "
                             "crashed)",
                       "keep the process running until the recording ends, or use a "
                       "continuous dump interval so earlier dumps are kept"});
    }
    if (seen.android && seen.build_type != "userdebug" && seen.build_type != "eng") {
      hints.push_back(
          {"on a user build heapprofd profiles only apps marked profileable or "
           "debuggable",
           "add <profileable android:shell=\"true\"/> inside <application> in the "
           "app's AndroidManifest.xml (or build it debuggable), reinstall, and "
           "record again; system services need a userdebug build"});
    } else if (seen.android) {
      hints.push_back({"critical system services are never heap-profiled, even on userdebug",
                       "see never_profile_heap in heapprofd.te; `adb shell su root setenforce "
                       "0` lifts it until the next reboot"});
    }
    const uint64_t interval = seen.heap_interval_bytes ? seen.heap_interval_bytes : 4096;
    hints.push_back(
        {"the heap profile is empty: " + who + " made no sampled allocation while it was profiled",
         "profiling starts at the process's next allocation, so an idle process "
         "shows nothing: use the app during the recording (or start it after "
         "pressing Record to profile from startup); if it allocates little, "
         "lower the sampling interval (now " +
             std::to_string(interval) + " bytes, e.g. to 512)"});
  }
  if (seen.android && (Mentions(seen.target_messages, "avc: denied") ||
                       Mentions(seen.target_messages, "Permission denied"))) {
    hints.push_back(SelinuxHint());
  }
  const int64_t lost = Stat(facts, "traced_buf_chunks_discarded") +
                       Stat(facts, "traced_buf_chunks_overwritten") +
                       Stat(facts, "traced_buf_patches_failed");
  if (lost > 0) {
    hints.push_back({"the trace buffer filled up: " + std::to_string(lost) +
                         " chunks were dropped or overwritten",
                     "raise the buffer size, shorten the recording, or lower the polling "
                     "frequencies; in ring-buffer mode only the last part of the recording "
                     "is kept by design"});
  }
  for (Hint& h : EmptySourceHints(seen, facts)) hints.push_back(std::move(h));
  return hints;
}

bool Mentions(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

std::vector<Hint> TroubleshootError(const SessionObservations& seen, const std::string& error) {
  const std::string text = error + "\n" + seen.target_messages;
  std::vector<Hint> hints = SourceErrorHints(seen, text);
  if (Mentions(text, "avc: denied") || (seen.android && Mentions(text, "Permission denied"))) {
    hints.push_back(SelinuxHint());
  }
  const bool traced_down =
      Mentions(text, "traced") && (Mentions(text, "connect") || Mentions(text, "not running"));
  if (traced_down || (seen.android && seen.sdk == 28 && !seen.traced_enabled &&
                      seen.system_perfetto && Mentions(text, "perfetto"))) {
    hints.push_back(TracedHint());
  }
  if (Mentions(text, "is not debuggable")) {
    hints.push_back({"the app is not debuggable",
                     "build it with android:debuggable=\"true\" (a debug build from Android "
                     "Studio is), reinstall it, and record again; on a userdebug/eng build "
                     "with root any app works"});
  }
  return hints;
}

}  // namespace fathom::record
