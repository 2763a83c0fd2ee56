// `fathom-cli symbolize`: native frames a profiler could not name (no
// stack_profile_symbol yet) are resolved offline with the binaries on this
// machine and written as ModuleSymbols packets. Appending them to the trace
// (`cat trace symbols > symbolized`) names the frames when it is loaded, as
// upstream's `traceconv symbolize` output does.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/status.h"
#include "core/symbols/binary_finder.h"

namespace fathom {
class TraceStorage;
}

namespace fathom::symbols {

struct SymbolizeOptions {
  std::vector<std::string> binary_path;  // roots searched by path (BinaryPathFromEnvironment)
  std::vector<std::string> index_dirs;   // trees indexed by build id
  bool use_local_path = true;            // also the mapping's own path on this machine
  // Separate debug files by build id, searched as roots after binary_path.
  std::vector<std::string> debug_dirs = DefaultDebugFileDirectories();
  std::string llvm_symbolizer;  // empty: DefaultLlvmSymbolizer()
};

// One library (mapping path + build id) with unsymbolized frames.
struct ModuleReport {
  std::string path;
  std::string build_id_hex;
  std::string binary;   // the file used; empty when none
  std::string problem;  // why frames stayed unresolved ("" when all resolved)
  size_t frames = 0;    // unsymbolized frames (distinct addresses) in the trace
  size_t resolved = 0;  // of them, named by llvm-symbolizer
};

struct SymbolizeResult {
  std::string packets;  // serialized Trace: one ModuleSymbols packet per library
  std::vector<ModuleReport> modules;
  size_t frames = 0;
  size_t resolved = 0;
};

// Fails only when llvm-symbolizer itself cannot run; per-library problems
// (not found, build id mismatch, no debug info) are in the report.
Result<SymbolizeResult> SymbolizeTrace(const TraceStorage& storage,
                                       const SymbolizeOptions& options);

// Adds what the environment asks for after the caller's own choices, so the
// CLI and the GUI search the same places: FATHOM_BINARY_PATH and
// PERFETTO_BINARY_PATH roots, and with PERFETTO_SYMBOLIZER_MODE=index every
// root is also indexed by build id.
void AddEnvironmentSearchPaths(SymbolizeOptions* options);

}  // namespace fathom::symbols
