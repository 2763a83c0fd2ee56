// fathom-cli: load, inspect and query traces from the command line.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#if defined(_WIN32)
#include <fcntl.h>
#include <io.h>
#endif

#include "app/cli/commands.h"
#include "app/cli/load_limit_flags.h"
#include "app/cli/sql_package_flags.h"

namespace {

void PrintUsage(FILE* out) {
  fprintf(
      out,
      "usage: fathom-cli COMMAND [ARGS]\n"
      "\n"
      "commands:\n"
      "  info TRACE                           duration, bounds, rows per table, import problems\n"
      "  query TRACE (SQL | -f FILE) [--format table|csv|json]\n"
      "                                       run SQL; csv matches upstream diff-test output\n"
      "  profiles TRACE                       heap dumps, heap graphs, sample sets with totals\n"
      "  flamegraph TRACE [--kind K] [--view V] [--format F] [-o OUT] ...\n"
      "                                       export a flamegraph "
      "(folded|svg|pprof|speedscope|json)\n"
      "  symbolize TRACE -o SYMBOLS [--index DIR]  ModuleSymbols for unsymbolized native frames\n"
      "                                       (llvm-symbolizer; FATHOM_BINARY_PATH); cat TRACE "
      "SYMBOLS\n"
      "  deobfuscate TRACE -o OUT --map PKG=MAPPING.txt[:...]\n"
      "                                       DeobfuscationMapping from ProGuard/R8 maps\n"
      "  devices [-l]                         Android devices: adb server, USB, remembered TCP\n"
      "  shell [-s SERIAL] CMD...             run CMD on the device; exits with its status\n"
      "  push [-s SERIAL] LOCAL REMOTE        copy a file or directory to the device\n"
      "  pull [-s SERIAL] REMOTE [LOCAL]      copy a file or directory from the device\n"
      "  connect|disconnect HOST:PORT         remember/forget a TCP device (adb tcpip)\n"
      "     (adb verbs take --transport auto|usb|tcp|server; ANDROID_SERIAL is honoured)\n"
      "  record [-s SERIAL|--local] (-c CONFIG [--txt]|--preset NAME) [--time 10s]\n"
      "         [--app NAME] -o OUT           record a trace on a device or this computer\n"
      "  heapprofile [--interval BYTES] [--dump-interval MS] [--block] -o OUT\n"
      "         (-- PROGRAM ARGS... | --pid PID)  native heap profile of a program\n"
      "  --version                            print the version\n"
      "\n%s%s",
      fathom::cli::LoadLimitFlagsUsage(), fathom::cli::SqlPackageFlagsUsage());
}

}  // namespace

int main(int argc, char** argv) {
#if defined(_WIN32)
  // stdout carries data (query results, exports, a device's bytes) and stdin may too
  // (piped to `shell`): the same bytes as on Linux, without the C runtime's LF <-> CRLF
  // translation or its end of input at Ctrl-Z. stderr stays text for people.
  _setmode(_fileno(stdout), _O_BINARY);
  _setmode(_fileno(stdin), _O_BINARY);
#endif
  if (argc < 2) {
    PrintUsage(stderr);
    return 2;
  }
  std::string cmd = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  // Load limits apply to every command that loads a trace, wherever they stand
  // (a shell command line is the device's, left alone).
  bool loads = cmd != "shell" && cmd != "push" && cmd != "pull" && cmd != "devices" &&
               cmd != "connect" && cmd != "disconnect";
  fathom::Status st = fathom::Status::Ok();
  if (loads) st = fathom::cli::TakeLoadLimitFlags(&args, &fathom::cli::CommandLineLoadLimits());
  if (loads && st.ok())
    st = fathom::cli::TakeImportOptionFlags(&args, &fathom::cli::CommandLineImportOptions());
  if (loads && st.ok())
    st = fathom::cli::TakeSqlPackageFlags(&args, &fathom::cli::CommandLineSqlPackages());
  if (!st.ok()) {
    fprintf(stderr, "fathom-cli: %s\n", st.message().c_str());
    return 2;
  }
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
  if (cmd == "profiles") return fathom::cli::RunProfiles(args);
  if (cmd == "flamegraph") return fathom::cli::RunFlamegraph(args);
  if (cmd == "heapprofile") return fathom::cli::RunHeapprofile(args);
  if (cmd == "symbolize") return fathom::cli::RunSymbolize(args);
  if (cmd == "deobfuscate") return fathom::cli::RunDeobfuscate(args);
#if defined(FATHOM_CLI_HAVE_ADB)
  if (cmd == "devices") return fathom::cli::RunDevices(args);
  if (cmd == "shell") return fathom::cli::RunShell(args);
  if (cmd == "push") return fathom::cli::RunPush(args);
  if (cmd == "pull") return fathom::cli::RunPull(args);
  if (cmd == "connect") return fathom::cli::RunConnect(args, true);
  if (cmd == "disconnect") return fathom::cli::RunConnect(args, false);
  if (cmd == "record") return fathom::cli::RunRecord(args, argv[0]);
#endif
  fprintf(stderr, "fathom-cli: unknown command '%s'\n", cmd.c_str());
  PrintUsage(stderr);
  return 2;
}
