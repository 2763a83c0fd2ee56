// The load limits (core/import/load_limits.h) as flags every command that
// loads a trace takes, anywhere among its arguments:
//   --max-inflate-ratio N   --max-archive-depth N   --max-compressed-nesting N
//   --max-packet-mb N       --max-container-mb N       --max-annotation-key-mb N
// and the import options upstream's shell has as flags of the same names:
//   --crop-track-events     --analyze-trace-proto-content
// main() takes them out before the command parses the rest (never after a
// "--", where a program's own arguments start).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "core/import/import_options.h"
#include "core/import/load_limits.h"

namespace fathom::cli {

// Removes the limit flags from `args` into `limits`; an error names a flag
// with a missing or invalid value.
Status TakeLoadLimitFlags(std::vector<std::string>* args, LoadLimits* limits);

// Removes --crop-track-events and --analyze-trace-proto-content (the import
// options, core/import/import_options.h) from `args` into `options`.
Status TakeImportOptionFlags(std::vector<std::string>* args, ImportOptions* options);

// The import options main() took from the command line (defaults otherwise).
ImportOptions& CommandLineImportOptions();

// The limits main() took from the command line (defaults otherwise).
LoadLimits& CommandLineLoadLimits();

// One line per flag, for the usage text.
const char* LoadLimitFlagsUsage();

}  // namespace fathom::cli
