// `fathom-cli profiles TRACE`: every heap dump, heap graph and sample set.
#include <cinttypes>
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/load.h"
#include "app/cli/terminal_text.h"
#include "core/flamegraph/profiles.h"

namespace fathom::cli {

int RunProfiles(const std::vector<std::string>& args) {
  std::string path;
  bool csv = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--format" && i + 1 < args.size()) {
      csv = args[++i] == "csv";
    } else if (path.empty() && args[i][0] != '-') {
      path = args[i];
    } else {
      path.clear();
      break;
    }
  }
  if (path.empty()) {
    fprintf(stderr, "usage: fathom-cli profiles TRACE [--format table|csv]\n");
    return 2;
  }
  TraceProcessor tp;
  if (!LoadOrReport(&tp, path)) return 1;
  std::vector<ProfileDump> dumps = ListProfiles(tp.storage());
  // csv is data, byte-exact; the table is for reading: process and heap
  // names come from the trace and are printed TerminalSafe.
  if (csv) {
    printf("kind,upid,pid,process,ts,end_ts,heap,view,total\n");
    for (const ProfileDump& d : dumps)
      for (const auto& [view, total] : d.totals)
        printf("%s,%s,%s,\"%s\",%" PRId64 ",%" PRId64 ",\"%s\",%s,%" PRId64 "\n",
               std::string(KindName(d.kind)).c_str(),
               d.all_processes ? "" : std::to_string(d.upid).c_str(),
               d.all_processes ? "" : std::to_string(d.pid).c_str(), d.process_name.c_str(), d.ts,
               d.end_ts, (d.kind == ProfileKind::kAggregate ? d.sample_type : d.heap).c_str(),
               std::string(ViewName(view)).c_str(), total);
    return 0;
  }
  if (dumps.empty()) {
    printf("no heap profiles, heap graphs, CPU samples or pprof profiles in %s\n",
           TerminalSafe(path).c_str());
    return 0;
  }
  printf("%-12s %5s %7s %-28s %20s %-16s %s\n", "kind", "upid", "pid", "process", "ts", "heap",
         "totals");
  for (const ProfileDump& d : dumps) {
    std::string totals;
    for (const auto& [view, total] : d.totals) {
      if (!totals.empty()) totals += "  ";
      totals += std::string(ViewName(view)) + "=" + std::to_string(total);
      if (d.kind == ProfileKind::kAggregate)
        totals += " " + d.sample_unit + (d.default_sample_type ? " (default)" : "");
    }
    if (d.end_ts != d.ts) totals += "  (until " + std::to_string(d.end_ts) + ")";
    std::string upid = d.all_processes ? "*" : std::to_string(d.upid);
    // pprof: one line per sample type, named in the heap column.
    const std::string& heap = d.kind == ProfileKind::kAggregate ? d.sample_type : d.heap;
    std::string pid = d.all_processes ? "*" : std::to_string(d.pid);
    printf("%-12s %5s %7s %-28s %20" PRId64 " %-16s %s\n", std::string(KindName(d.kind)).c_str(),
           upid.c_str(), pid.c_str(),
           d.process_name.empty() ? "-" : TerminalSafe(d.process_name).c_str(), d.ts,
           heap.empty() ? "-" : TerminalSafe(heap).c_str(), TerminalSafe(totals).c_str());
  }
  return 0;
}

}  // namespace fathom::cli
