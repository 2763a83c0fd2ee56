#include "core/symbols/symbolize.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "core/storage/trace_storage.h"
#include "core/symbols/binary_finder.h"
#include "core/symbols/elf_build_id.h"
#include "core/symbols/llvm_symbolizer.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom::symbols {

Result<SymbolizeResult> SymbolizeTrace(const TraceStorage& s, const SymbolizeOptions& options) {
  const auto& frames = s.profile.stack_profile_frame;
  const auto& mappings = s.profile.stack_profile_mapping;
  // (mapping path, build id as stored) -> distinct rel_pcs of unsymbolized frames.
  std::map<std::pair<std::string, std::string>, std::set<uint64_t>> todo;
  for (uint32_t f = 0; f < frames.row_count(); ++f) {
    if (frames.symbol_set_id.Get(f).has_value()) continue;
    uint32_t m = frames.mapping[f];
    if (m >= mappings.row_count()) continue;
    std::string path(s.GetString(mappings.name[m]));
    // Pseudo mappings ([anon], [vdso], [unknown], "") have no file to read.
    if (path.empty() || path[0] == '[') continue;
    std::string build_id(s.GetString(mappings.build_id[m]));
    todo[{path, build_id}].insert(static_cast<uint64_t>(frames.rel_pc[f]));
  }

  SymbolizeResult result;
  // Debug directories are roots after the binary path: their .build-id/ candidate is
  // the one that matches, and they come before the (often stripped) local file.
  std::vector<std::string> roots = options.binary_path;
  roots.insert(roots.end(), options.debug_dirs.begin(), options.debug_dirs.end());
  BinaryFinder finder(roots, options.index_dirs, options.use_local_path);
  perfetto::protos::Trace trace;
  for (const auto& [key, pcs] : todo) {
    const auto& [path, stored_id] = key;
    ModuleReport rep;
    rep.path = path;
    rep.frames = pcs.size();
    result.frames += pcs.size();
    // The importer shows binary build ids as hex; a printable one is kept as is.
    std::string raw_id = BuildIdFromHex(stored_id);
    if (raw_id.empty()) raw_id = stored_id;
    rep.build_id_hex = BuildIdToHex(raw_id);
    if (raw_id.empty()) {
      rep.problem = "no build id in the trace (cannot verify a local file)";
      result.modules.push_back(std::move(rep));
      continue;
    }
    FindResult found = finder.Find(path, raw_id);
    if (!found.path) {
      rep.problem = "not found";
      if (!found.mismatched.empty()) {
        rep.problem = "build id differs in";
        for (const std::string& m : found.mismatched) rep.problem += " " + m;
      }
      result.modules.push_back(std::move(rep));
      continue;
    }
    rep.binary = *found.path;
    auto symbolizer = LlvmSymbolizer::Start(rep.binary, options.llvm_symbolizer);
    if (!symbolizer.ok()) return symbolizer.status();  // the same for every library
    std::vector<uint64_t> addresses(pcs.begin(), pcs.end());
    auto lines = (*symbolizer)->Symbolize(addresses);
    if (!lines.ok()) {
      rep.problem = lines.status().message();
      result.modules.push_back(std::move(rep));
      continue;
    }
    auto* ms = trace.add_packet()->mutable_module_symbols();
    ms->set_path(path);
    ms->set_build_id(raw_id);
    for (size_t i = 0; i < addresses.size(); ++i) {
      if ((*lines)[i].empty()) continue;
      auto* as = ms->add_address_symbols();
      as->set_address(addresses[i]);
      for (const SymbolLine& l : (*lines)[i]) {
        auto* line = as->add_lines();
        line->set_function_name(l.function_name);
        if (!l.source_file.empty()) line->set_source_file_name(l.source_file);
        if (l.line) line->set_line_number(l.line);
      }
      rep.resolved++;
    }
    if (ms->address_symbols_size() == 0) trace.mutable_packet()->RemoveLast();
    if (rep.resolved < rep.frames) rep.problem = "no symbols for some addresses (stripped?)";
    result.resolved += rep.resolved;
    result.modules.push_back(std::move(rep));
  }
  result.packets = trace.SerializeAsString();
  return result;
}

void AddEnvironmentSearchPaths(SymbolizeOptions* options) {
  for (std::string& d : BinaryPathFromEnvironment()) options->binary_path.push_back(d);
  const char* mode = getenv("PERFETTO_SYMBOLIZER_MODE");
  if (mode && std::string(mode) == "index")
    options->index_dirs.insert(options->index_dirs.end(), options->binary_path.begin(),
                               options->binary_path.end());
}

}  // namespace fathom::symbols
