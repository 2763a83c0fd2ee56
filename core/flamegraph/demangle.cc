#include "core/flamegraph/demangle.h"

#include <cstdlib>

// libstdc++ and libc++ both ship abi::__cxa_demangle; MSVC does not.
#if defined(__GNUC__) || defined(__clang__)
#include <cxxabi.h>
#define FATHOM_HAVE_CXA_DEMANGLE 1
#endif

namespace fathom {

std::string Demangle(std::string_view name) {
  constexpr std::string_view kDeduped = " [DEDUPED]";
  std::string_view core = name;
  std::string_view suffix;
  if (core.size() > kDeduped.size() && core.substr(core.size() - kDeduped.size()) == kDeduped) {
    suffix = kDeduped;
    core.remove_suffix(kDeduped.size());
  }
  if (core.size() < 3 || core[0] != '_' || core[1] != 'Z') return std::string(name);
#if defined(FATHOM_HAVE_CXA_DEMANGLE)
  std::string mangled(core);
  int status = 0;
  char* out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !out) {
    std::free(out);
    return std::string(name);
  }
  std::string result(out);
  std::free(out);
  result.append(suffix);
  return result;
#else
  return std::string(name);
#endif
}

}  // namespace fathom
