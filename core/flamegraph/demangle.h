// C++ symbol demangling for frame names.
#pragma once

#include <string>
#include <string_view>

namespace fathom {

// The demangled form of an Itanium-ABI name ("_Z..."), or `name` unchanged
// when it is not mangled or the platform has no demangler. A trailing
// " [DEDUPED]" (frames folded by identical-code-folding) is kept.
std::string Demangle(std::string_view name);

}  // namespace fathom
