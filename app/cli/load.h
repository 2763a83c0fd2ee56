// Shared by the subcommands: load a trace with warnings on stderr.
#pragma once

#include <cstdio>
#include <string>

#include "core/trace_processor.h"

namespace fathom::cli {

inline bool LoadOrReport(TraceProcessor* tp, const std::string& path) {
  Status st = tp->LoadFile(path);
  if (!st.ok()) {
    fprintf(stderr, "fathom-cli: error: %s\n", st.message().c_str());
    return false;
  }
  for (const std::string& w : tp->report().warnings) fprintf(stderr, "fathom-cli: warning: %s\n", w.c_str());
  return true;
}

}  // namespace fathom::cli
