// Kernel function names from /proc/kallsyms, read once when the first kernel frame needs
// one. With kptr_restrict the file lists every address as 0: then frames stay unnamed.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fathom::recorder {

class KernelSymbols {
 public:
  // `path` is /proc/kallsyms except in tests.
  explicit KernelSymbols(std::string path = "/proc/kallsyms") : path_(std::move(path)) {}
  // The function containing `addr`, or "" when unknown.
  const std::string& Lookup(uint64_t addr);

 private:
  void Load();
  std::string path_;
  bool loaded_ = false;
  std::vector<std::pair<uint64_t, std::string>> syms_;  // sorted by address
};

}  // namespace fathom::recorder
