// fathom-bench-search: the omnibox's lookup on a large trace, pass by pass.
//
//   fathom-bench-search TRACE TEXT... [--regex] [--legacy-sql]
//
// For each TEXT: the names pass (time to the first matches the box shows), the
// args pass, and the total; --legacy-sql also times the single SQL statement the
// box ran before (slice name or args display value, and sched of named threads),
// for comparison (run first: it pays for writing the deferred args, as the
// first search in the window did; run without it to see the passes pay that).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "widgets/search/search_engine.h"

using namespace fathom;
using namespace fathom::gui;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU seconds of this process: on a busy machine the wall time says little.
double cpuSeconds() { return double(std::clock()) / CLOCKS_PER_SEC; }

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
  return q + "'";
}

// The one statement the omnibox ran before the two passes (substring mode).
std::string legacySql(const std::string& text) {
  const std::string needle = quoted(QString::fromStdString(text).toLower().toStdString());
  auto match = [&](const std::string& e) { return "instr(lower(" + e + "), " + needle + ") > 0"; };
  return "select kind, id, ref, ts, dur from (select 0 as kind, id, track_id as ref, ts, dur "
         "from slice where " +
         match("name") +
         " or arg_set_id in (select arg_set_id from args "
         "where " +
         match("display_value") +
         ") union all select 1, id, cpu, ts, dur from sched "
         "where utid in (select utid from thread left join process using(upid) where utid != 0 "
         "and (" +
         match("thread.name") + " or " + match("process.name") +
         "))) order by ts, "
         "kind, id limit 200001";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> texts;
  const char* trace = nullptr;
  bool regex = false, legacy = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--regex"))
      regex = true;
    else if (!strcmp(argv[i], "--legacy-sql"))
      legacy = true;
    else if (!trace)
      trace = argv[i];
    else
      texts.push_back(argv[i]);
  }
  if (!trace || texts.empty()) {
    fprintf(stderr, "usage: fathom-bench-search TRACE TEXT... [--regex] [--legacy-sql]\n");
    return 2;
  }
  TraceProcessor tp;
  auto t0 = std::chrono::steady_clock::now();
  if (Status st = tp.LoadFile(trace); !st.ok()) {
    fprintf(stderr, "load failed: %s\n", st.message().c_str());
    return 1;
  }
  printf("load %.2f s\n", secondsSince(t0));
  fflush(stdout);
  auto never = [] { return false; };
  for (const std::string& text : texts) {
    const SearchQuery q{QString::fromStdString(text), regex};
    if (legacy && !regex) {
      t0 = std::chrono::steady_clock::now();
      const double l0 = cpuSeconds();
      auto it = tp.Query(legacySql(text));
      int rows = 0;
      if (it->NextResultSet())
        while (it->NextRow()) ++rows;
      printf("%-20s legacy sql (first = complete) %.3f s wall %.3f s cpu -> %d rows%s\n",
             text.c_str(), secondsSince(t0), cpuSeconds() - l0, rows,
             it->status().ok() ? "" : it->status().message().c_str());
      fflush(stdout);
    }
    t0 = std::chrono::steady_clock::now();
    const double c0 = cpuSeconds();
    SearchResult names = searchNames(tp.storage(), q, never);
    const double first = secondsSince(t0), first_cpu = cpuSeconds() - c0;
    const SearchResult args = searchArgs(tp.storage(), q, never);
    const double all = secondsSince(t0), all_cpu = cpuSeconds() - c0;
    const int n_names = int(names.matches.size());
    mergeSearchResults(names, args);
    printf(
        "%-20s first (names) %.3f s wall %.3f s cpu (%d) | complete (+args) %.3f s wall %.3f "
        "s cpu (+%d) -> %d%s\n",
        text.c_str(), first, first_cpu, n_names, all, all_cpu, int(args.matches.size()),
        int(names.matches.size()), names.truncated ? "+" : "");
    fflush(stdout);
  }
  return 0;
}
