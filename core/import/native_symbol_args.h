// Args that name an interned native symbol (chrome_mojo_event_info's
// mojo_interface_method_iid) are translated once the import ends, when every
// ModuleSymbols packet (usually appended to the trace by offline
// symbolization) is known: the symbol's function name becomes the mojo method
// name and interface tag. Unsymbolized, they stay as the mapping row and
// rel_pc of their source location (as upstream shows them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

inline constexpr char kMojoMethodMappingKey[] =
    "chrome_mojo_event_info.mojo_interface_method.native_symbol.mapping_id";
inline constexpr char kMojoMethodRelPcKey[] =
    "chrome_mojo_event_info.mojo_interface_method.native_symbol.rel_pc";

// stack_profile_mapping rows a ModuleSymbols packet (path, raw build id)
// describes: by build id when it has one, else by path.
std::vector<uint32_t> MappingsOfModule(const TraceStorage& s, std::string_view path,
                                       std::string_view build_id);

// Rewrites every untranslated mojo method arg pair whose symbol one of
// `module_symbols` (serialized ModuleSymbols) gives.
void TranslateNativeSymbolArgs(TraceStorage* s, const std::vector<std::string>& module_symbols);

}  // namespace fathom
