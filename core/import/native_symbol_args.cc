#include "core/import/native_symbol_args.h"

#include <map>
#include <optional>
#include <utility>

#include "core/import/profile_stack_tracker.h"
#include "core/import/proto_decoder.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {
namespace {

using perfetto::protos::AddressSymbols;
using perfetto::protos::Line;
using perfetto::protos::ModuleSymbols;

// (mapping row, address) -> function name of the address's first line.
using SymbolIndex = std::map<std::pair<uint32_t, int64_t>, std::string_view>;

void IndexModule(const TraceStorage& s, proto::Bytes module, SymbolIndex* index) {
  std::string_view path, build_id;
  std::vector<proto::Bytes> addresses;
  proto::Decoder d(module);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == ModuleSymbols::kPathFieldNumber) path = f.as_string();
    if (f.id == ModuleSymbols::kBuildIdFieldNumber) build_id = f.as_string();
    if (f.id == ModuleSymbols::kAddressSymbolsFieldNumber) addresses.push_back(f.bytes);
  }
  std::vector<uint32_t> mappings = MappingsOfModule(s, path, build_id);
  if (mappings.empty()) return;
  for (proto::Bytes a : addresses) {
    int64_t address = 0;
    std::optional<std::string_view> name;
    proto::Decoder ad(a);
    for (proto::Field f = ad.Next(); f.valid(); f = ad.Next()) {
      if (f.id == AddressSymbols::kAddressFieldNumber) address = f.as_int64();
      if (f.id != AddressSymbols::kLinesFieldNumber || name) continue;
      proto::Decoder ld(f.bytes);
      for (proto::Field g = ld.Next(); g.valid(); g = ld.Next())
        if (g.id == Line::kFunctionNameFieldNumber) name = g.as_string();
    }
    if (!name) continue;
    for (uint32_t m : mappings) index->emplace(std::make_pair(m, address), *name);
  }
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Mojo's generated "<ns>::<Interface>::<Method>_Sym::IPCStableHash[()]"
// symbols name both the method ("<ns>::<Interface>::<Method>") and the
// interface ("<ns>.<Interface>"); any other symbol is kept as the interface
// tag, and as the method name without a trailing "()".
std::pair<std::string, std::string> MethodAndInterface(std::string_view symbol) {
  constexpr std::string_view kCall = "()", kStableHash = "_Sym::IPCStableHash";
  std::string_view method = symbol;
  if (EndsWith(method, kCall)) method.remove_suffix(kCall.size());
  if (!EndsWith(method, kStableHash)) return {std::string(method), std::string(symbol)};
  method.remove_suffix(kStableHash.size());
  size_t last = method.rfind("::");
  if (last == std::string_view::npos) return {std::string(method), std::string(symbol)};
  std::string iface;
  std::string_view ns = method.substr(0, last);
  for (size_t i = 0; i < ns.size(); ++i) {
    if (ns.compare(i, 2, "::") == 0) {
      iface += '.';
      ++i;
    } else {
      iface += ns[i];
    }
  }
  return {std::string(method), iface};
}

// Whether the arg set of `row` has a row keyed `key`.
bool SetHasKey(const ArgsTable& args, uint32_t row, StringId key) {
  const auto& sets = args.arg_set_id.written();
  uint32_t set = sets[row];
  uint32_t first = row;
  while (first > 0 && sets[first - 1] == set) --first;
  for (uint32_t r = first; r < sets.size() && sets[r] == set; ++r)
    if (args.key[r] == key) return true;
  return false;
}

}  // namespace

std::vector<uint32_t> MappingsOfModule(const TraceStorage& s, std::string_view path,
                                       std::string_view build_id) {
  StringId path_id = s.strings.Find(path);
  StringId build_id_id =
      build_id.empty() ? kNullStringId : s.strings.Find(BuildIdToHex(build_id));
  const auto& mappings = s.profile.stack_profile_mapping;
  std::vector<uint32_t> out;
  for (uint32_t m = 0; m < mappings.row_count(); ++m) {
    bool match = build_id_id != kNullStringId
                     ? mappings.build_id[m] == build_id_id
                     : (path_id != kNullStringId && mappings.name[m] == path_id);
    if (match) out.push_back(m);
  }
  return out;
}

void TranslateNativeSymbolArgs(TraceStorage* s, const std::vector<std::string>& module_symbols) {
  StringId mapping_key = s->strings.Find(kMojoMethodMappingKey);
  StringId rel_pc_key = s->strings.Find(kMojoMethodRelPcKey);
  if (mapping_key == kNullStringId || rel_pc_key == kNullStringId || module_symbols.empty()) return;
  SymbolIndex index;
  for (const std::string& m : module_symbols)
    IndexModule(*s, {reinterpret_cast<const uint8_t*>(m.data()), m.size()}, &index);
  if (index.empty()) return;
  ArgsTable& args = s->args;
  const auto& sets = args.arg_set_id.written();
  StringId string_type = s->Intern("string");
  StringId method_key = s->Intern("chrome_mojo_event_info.mojo_method_name");
  StringId iface_key = s->Intern("chrome_mojo_event_info.mojo_interface_tag");
  // The importer writes the pair as adjacent rows of one set.
  for (uint32_t row = 0; row + 1 < sets.size(); ++row) {
    if (args.key[row] != mapping_key || args.key[row + 1] != rel_pc_key) continue;
    if (sets[row] != sets[row + 1]) continue;
    auto mapping = args.int_value.Get(row);
    auto rel_pc = args.int_value.Get(row + 1);
    if (!mapping || !rel_pc) continue;
    auto it = index.find({static_cast<uint32_t>(*mapping), *rel_pc});
    if (it == index.end()) continue;
    auto [method, iface] = MethodAndInterface(it->second);
    args.RewriteAsString(row, method_key, s->Intern(method), string_type);
    // An explicit mojo_interface_tag wins over the symbol's (upstream keeps
    // it); the rel_pc row then stays, as rows cannot be removed here.
    if (!SetHasKey(args, row, iface_key))
      args.RewriteAsString(row + 1, iface_key, s->Intern(iface), string_type);
  }
}

}  // namespace fathom
