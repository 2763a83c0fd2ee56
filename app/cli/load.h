// Shared by the subcommands: load a trace with warnings on stderr. Errors and
// warnings quote the file (member names, slice names): printed TerminalSafe.
#pragma once

#include <cstdio>
#include <string>

#include "app/cli/load_limit_flags.h"
#include "app/cli/sql_package_flags.h"
#include "app/cli/terminal_text.h"
#include "core/trace_processor.h"

namespace fathom::cli {

inline bool LoadOrReport(TraceProcessor* tp, const std::string& path) {
  tp->set_load_limits(CommandLineLoadLimits());
  tp->set_import_options(CommandLineImportOptions());
  Status st = ApplySqlPackageFlags(CommandLineSqlPackages(), &tp->sql_packages());
  if (st.ok()) st = tp->LoadFile(path);
  if (!st.ok()) {
    fprintf(stderr, "fathom-cli: error: %s\n", TerminalSafe(st.message()).c_str());
    return false;
  }
  for (const std::string& w : tp->report().warnings)
    fprintf(stderr, "fathom-cli: warning: %s\n", TerminalSafe(w).c_str());
  return true;
}

}  // namespace fathom::cli
