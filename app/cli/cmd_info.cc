// `fathom-cli info TRACE`: what is in a trace at a glance.
#include <cinttypes>
#include <cstdio>

#include "app/cli/commands.h"
#include "app/cli/load.h"
#include "app/cli/terminal_text.h"
#include "core/storage/stats.h"

namespace fathom::cli {

int RunInfo(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    fprintf(stderr, "usage: fathom-cli info TRACE\n");
    return 2;
  }
  TraceProcessor tp;
  if (!LoadOrReport(&tp, args[0])) return 1;
  PrintInfo(tp, args[0]);
  return 0;
}

void PrintInfo(TraceProcessor& tp, const std::string& path) {
  const TraceStorage& s = tp.storage();
  const LoadReport& r = tp.report();
  int64_t start = s.min_ts(), end = s.max_ts();
  // The format names archive members, and the warnings quote the file:
  // untrusted text, printed TerminalSafe.
  printf("trace:     %s\n", TerminalSafe(path).c_str());
  printf("format:    %s\n", TerminalSafe(r.format).c_str());
  printf("size:      %" PRIu64 " bytes, %" PRIu64 " packets, %" PRIu64 " events\n", r.file_bytes,
         r.packets, r.events);
  printf("bounds:    %" PRId64 " .. %" PRId64 " ns\n", start, end);
  printf("duration:  %.3f s\n", static_cast<double>(end - start) / 1e9);
  printf("\nrows per table:\n");
  for (Table* t : const_cast<TraceStorage&>(s).AllTables()) {
    if (t == &s.stats_table || t == &s.trace_bounds) continue;
    printf("  %-28s %10u\n", t->name().c_str(), t->row_count());
  }
  bool header = false;
  for (uint32_t i = 0; i < static_cast<uint32_t>(Stat::kCount); ++i) {
    Stat st = static_cast<Stat>(i);
    const StatInfo& info = GetStatInfo(st);
    std::string sev = info.severity;
    if (sev == "info") continue;
    auto print = [&](const std::string& label, int64_t v) {
      if (v == 0) return;
      if (!header) printf("\nimport problems (stats):\n");
      header = true;
      printf("  %-40s %12" PRId64 "  [%s] %s\n", label.c_str(), v, info.severity, info.description);
    };
    if (const auto* indexed = s.stats.GetIndexed(st)) {
      for (const auto& [idx, v] : *indexed)
        print(std::string(info.name) + "[" + std::to_string(idx) + "]", v);
    } else {
      print(info.name, s.stats.Get(st));
    }
  }
  for (const std::string& w : r.warnings) printf("warning: %s\n", TerminalSafe(w).c_str());
}

}  // namespace fathom::cli
