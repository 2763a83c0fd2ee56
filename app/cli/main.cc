// fathom-cli: load, inspect and query traces from the command line.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "app/cli/commands.h"

namespace {

void PrintUsage(FILE* out) {
  fprintf(out,
          "usage: fathom-cli COMMAND [ARGS]\n"
          "\n"
          "commands:\n"
          "  info TRACE                           duration, bounds, rows per table, import problems\n"
          "  query TRACE (SQL | -f FILE) [--format table|csv|json]\n"
          "                                       run SQL; csv matches upstream diff-test output\n"
          "  devices                              Android devices via the adb server and USB\n"
          "  record [-s SERIAL|--local] (-c CONFIG [--txt]|--preset NAME) [--time 10s]\n"
          "         [--app NAME] -o OUT           record a trace on a device or this computer\n"
          "  --version                            print the version\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return 2;
  }
  std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (cmd == "--version" || cmd == "version") {
    printf("fathom-cli %s\n", FATHOM_VERSION);
    return 0;
  }
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    PrintUsage(stdout);
    return 0;
  }
  if (cmd == "info") return fathom::cli::RunInfo(args);
  if (cmd == "query") return fathom::cli::RunQuery(args);
#if defined(FATHOM_CLI_HAVE_ADB)
  if (cmd == "devices") return fathom::cli::RunDevices(args);
  if (cmd == "record") return fathom::cli::RunRecord(args, argv[0]);
#endif
  fprintf(stderr, "fathom-cli: unknown command '%s'\n", cmd.c_str());
  PrintUsage(stderr);
  return 2;
}
