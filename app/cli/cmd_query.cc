// `fathom-cli query TRACE (SQL | -f FILE) [--format table|csv|json]`.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "app/cli/commands.h"
#include "app/cli/load.h"
#include "app/cli/terminal_text.h"
#include "core/sql/result_printer.h"

namespace fathom::cli {

int RunQuery(const std::vector<std::string>& args) {
  std::string trace, sql, file;
  ResultFormat format = ResultFormat::kTable;
  bool have_sql = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-f" && i + 1 < args.size()) {
      file = args[++i];
      have_sql = true;
    } else if (a == "--format" && i + 1 < args.size()) {
      std::string f = args[++i];
      if (f == "table")
        format = ResultFormat::kTable;
      else if (f == "csv")
        format = ResultFormat::kCsv;
      else if (f == "json")
        format = ResultFormat::kJson;
      else {
        fprintf(stderr, "fathom-cli: unknown format '%s' (table, csv or json)\n", f.c_str());
        return 2;
      }
    } else if (trace.empty()) {
      trace = a;
    } else if (!have_sql) {
      sql = a;
      have_sql = true;
    } else {
      fprintf(stderr, "fathom-cli: unexpected argument '%s'\n", a.c_str());
      return 2;
    }
  }
  if (trace.empty() || !have_sql) {
    fprintf(stderr, "usage: fathom-cli query TRACE (SQL | -f FILE) [--format table|csv|json]\n");
    return 2;
  }
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    if (!in) {
      fprintf(stderr, "fathom-cli: error: %s: cannot open\n", file.c_str());
      return 1;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    sql = ss.str();
  }
  TraceProcessor tp;
  if (!LoadOrReport(&tp, trace)) return 1;
  auto it = tp.Query(sql);
  std::string out;
  Status st = PrintResults(it.get(), format, &out);
  // csv and json are data (csv is compared byte for byte with upstream's):
  // exact. The table is for reading, and cells hold whatever the trace held.
  if (format == ResultFormat::kTable) out = TerminalSafe(out, Newlines::kKeep);
  fwrite(out.data(), 1, out.size(), stdout);
  if (!st.ok()) {
    // Multi-line: an error in an included module lists where it was included from.
    fprintf(stderr, "fathom-cli: error: %s\n", TerminalSafe(st.message(), Newlines::kKeep).c_str());
    return 1;
  }
  return 0;
}

}  // namespace fathom::cli
