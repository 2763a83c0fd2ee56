// `fathom-cli symbolize` and `fathom-cli deobfuscate`: write the packets that
// name a trace's native frames (ModuleSymbols) or obfuscated Java names
// (DeobfuscationMapping); append them to the trace with `cat`.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "app/cli/commands.h"
#include "app/cli/load.h"
#include "app/cli/terminal_text.h"
#include "core/symbols/binary_finder.h"
#include "core/symbols/deobfuscate.h"
#include "core/symbols/symbolize.h"

namespace fathom::cli {
namespace {

bool WriteOut(const std::string& path, const std::string& data) {
  FILE* f = fopen(path.c_str(), "wb");
  if (!f) {
    fprintf(stderr, "fathom-cli: error: cannot write %s\n", path.c_str());
    return false;
  }
  bool ok = fwrite(data.data(), 1, data.size(), f) == data.size();
  ok = fclose(f) == 0 && ok;
  if (!ok) fprintf(stderr, "fathom-cli: error: writing %s failed\n", path.c_str());
  return ok;
}

void SymbolizeUsage() {
  fprintf(stderr,
          "usage: fathom-cli symbolize TRACE -o SYMBOLS [--binary-path DIR[:DIR...]]\n"
          "                            [--index DIR]... [--debug-dir DIR]... [--no-local]\n"
          "  Resolves unsymbolized native frames with llvm-symbolizer and writes\n"
          "  ModuleSymbols packets; then: cat TRACE SYMBOLS > symbolized.pftrace\n"
          "  Binaries are looked up (build id must match) in each directory of\n"
          "  --binary-path, FATHOM_BINARY_PATH and PERFETTO_BINARY_PATH as\n"
          "  DIR/<mapping path>, DIR/<file name>, DIR/.build-id/xx/yyyy.debug, and\n"
          "  the same in each --debug-dir DIR (default /usr/lib/debug, where -dbgsym\n"
          "  packages put separate debug files); then by build id among the ELF\n"
          "  files under every --index DIR (or under every path directory when\n"
          "  PERFETTO_SYMBOLIZER_MODE=index); then at the mapping path on this\n"
          "  machine (unless --no-local). FATHOM_LLVM_SYMBOLIZER\n"
          "  overrides the llvm-symbolizer program.\n");
}

void SplitPath(const std::string& v, std::vector<std::string>* out) {
  size_t start = 0;
  while (start <= v.size()) {
    size_t end = v.find(':', start);
    if (end == std::string::npos) end = v.size();
    if (end > start) out->push_back(v.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace

int RunSymbolize(const std::vector<std::string>& args) {
  std::string trace, out;
  symbols::SymbolizeOptions opt;
  bool debug_dir_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    bool has_value = i + 1 < args.size();
    if (a == "-h" || a == "--help") {
      SymbolizeUsage();
      return 0;
    } else if (a == "-o" && has_value) {
      out = args[++i];
    } else if (a == "--binary-path" && has_value) {
      SplitPath(args[++i], &opt.binary_path);
    } else if (a == "--index" && has_value) {
      opt.index_dirs.push_back(args[++i]);
    } else if (a == "--debug-dir" && has_value) {
      if (!debug_dir_given) opt.debug_dirs.clear();  // the first one replaces the default
      debug_dir_given = true;
      opt.debug_dirs.push_back(args[++i]);
    } else if (a == "--no-local") {
      opt.use_local_path = false;
    } else if (trace.empty() && !a.empty() && a[0] != '-') {
      trace = a;
    } else {
      SymbolizeUsage();
      return 2;
    }
  }
  if (trace.empty() || out.empty()) {
    SymbolizeUsage();
    return 2;
  }
  symbols::AddEnvironmentSearchPaths(&opt);

  TraceProcessor tp;
  if (!LoadOrReport(&tp, trace)) return 1;
  auto r = symbols::SymbolizeTrace(tp.storage(), opt);
  if (!r.ok()) {
    fprintf(stderr, "fathom-cli: error: %s\n", r.status().message().c_str());
    return 1;
  }
  if (!WriteOut(out, r->packets)) return 1;
  printf("%zu of %zu unsymbolized frames resolved in %zu libraries; wrote %s (%zu bytes)\n",
         r->resolved, r->frames, r->modules.size(), out.c_str(), r->packets.size());
  bool header = false;
  for (const symbols::ModuleReport& m : r->modules) {
    if (m.resolved == m.frames) continue;
    if (!header) printf("unresolved frames by library:\n");
    header = true;
    // Library paths come from the trace.
    printf("  %6zu  %s (build id %s): %s\n", m.frames - m.resolved, TerminalSafe(m.path).c_str(),
           m.build_id_hex.empty() ? "none" : m.build_id_hex.c_str(),
           TerminalSafe(m.problem).c_str());
  }
  return 0;
}

int RunDeobfuscate(const std::vector<std::string>& args) {
  std::string trace, out, spec;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if ((a == "--map" || a == "-m") && i + 1 < args.size()) {
      spec += (spec.empty() ? "" : ":") + args[++i];
    } else if (a == "-o" && i + 1 < args.size()) {
      out = args[++i];
    } else if (trace.empty() && !a.empty() && a[0] != '-') {
      trace = a;
    } else {
      trace.clear();
      break;
    }
  }
  if (trace.empty() || out.empty()) {
    fprintf(stderr,
            "usage: fathom-cli deobfuscate TRACE -o OUT [--map package=mapping.txt[:package=...]]\n"
            "  Writes DeobfuscationMapping packets for the obfuscated Java names in TRACE;\n"
            "  then: cat TRACE OUT > deobfuscated.pftrace. Without --map the maps come from\n"
            "  FATHOM_PROGUARD_MAP or PERFETTO_PROGUARD_MAP (same syntax).\n");
    return 2;
  }
  auto maps =
      spec.empty() ? symbols::ProguardMapsFromEnvironment() : symbols::ParseProguardMapSpecs(spec);
  if (!maps.ok()) {
    fprintf(stderr, "fathom-cli: error: %s\n", maps.status().message().c_str());
    return 2;
  }
  if (maps->empty()) {
    fprintf(stderr,
            "fathom-cli: error: no ProGuard map: give --map package=file or set "
            "FATHOM_PROGUARD_MAP / PERFETTO_PROGUARD_MAP\n");
    return 2;
  }
  TraceProcessor tp;
  if (!LoadOrReport(&tp, trace)) return 1;
  auto r = symbols::DeobfuscateTrace(tp.storage(), *maps);
  if (!r.ok()) {
    fprintf(stderr, "fathom-cli: error: %s\n", r.status().message().c_str());
    return 1;
  }
  if (!WriteOut(out, r->packets)) return 1;
  printf("%zu of %zu classes in the trace mapped, %zu fields/methods; wrote %s (%zu bytes)\n",
         r->classes_mapped, r->classes, r->members_mapped, out.c_str(), r->packets.size());
  if (!r->unmapped.empty()) {
    printf("not in any map:");
    for (const std::string& c : r->unmapped) printf(" %s", TerminalSafe(c).c_str());
    printf("%s\n", r->classes - r->classes_mapped > r->unmapped.size() ? " ..." : "");
  }
  for (const std::string& p : r->packages_without_frames)
    fprintf(stderr, "fathom-cli: warning: %s\n", symbols::NoFramesOfPackageNote(p).c_str());
  return 0;
}

}  // namespace fathom::cli
