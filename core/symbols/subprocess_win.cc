// Windows: not implemented yet (CreateProcess + anonymous pipes would do); the
// symbolizer then reports a clear error instead of failing to build.
#include "core/symbols/subprocess.h"

namespace fathom::symbols {

Result<std::unique_ptr<Subprocess>> Subprocess::Start(const std::vector<std::string>& argv) {
  return ErrorStatus("starting " + (argv.empty() ? std::string("a program") : argv[0]) +
                     " is not supported on this platform yet");
}

}  // namespace fathom::symbols
