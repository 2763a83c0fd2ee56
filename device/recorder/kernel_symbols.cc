#include "kernel_symbols.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>

namespace fathom::recorder {

void KernelSymbols::Load() {
  loaded_ = true;
  std::ifstream in(path_);
  std::string line;
  while (std::getline(in, line)) {
    uint64_t addr = 0;
    char type = 0;
    int name_at = 0;
    if (sscanf(line.c_str(), "%" SCNx64 " %c %n", &addr, &type, &name_at) < 2 || name_at == 0)
      continue;
    if (type != 't' && type != 'T') continue;  // only code
    if (addr == 0) continue;                   // hidden by kptr_restrict
    std::string name = line.substr(static_cast<size_t>(name_at));
    size_t module = name.find('\t');  // "name\t[module]"
    if (module != std::string::npos) name.resize(module);
    syms_.emplace_back(addr, std::move(name));
  }
  std::sort(syms_.begin(), syms_.end());
}

const std::string& KernelSymbols::Lookup(uint64_t addr) {
  static const std::string kNone;
  if (!loaded_) Load();
  auto it = std::upper_bound(syms_.begin(), syms_.end(), addr,
                             [](uint64_t a, const auto& s) { return a < s.first; });
  if (it == syms_.begin()) return kNone;
  return std::prev(it)->second;
}

}  // namespace fathom::recorder
