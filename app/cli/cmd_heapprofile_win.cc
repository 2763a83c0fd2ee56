// `fathom-cli heapprofile` on Windows: the native heap profiler works by preloading
// libfathom_heapprof.so into a Linux process (LD_PRELOAD) and forking the collector, which
// Windows has no equivalent of; say so instead of failing obscurely. Profiling an Android
// app from Windows goes through `fathom-cli record` instead.
#include <cstdio>
#include <string>
#include <vector>

#include "app/cli/commands.h"

namespace fathom::cli {

int RunHeapprofile(const std::vector<std::string>& args) {
  fprintf(stderr,
          "fathom-cli: heapprofile profiles Linux programs and is not available on Windows;\n"
          "  to profile an Android app's heap, use: fathom-cli record --help\n");
  return 2;
}

}  // namespace fathom::cli
