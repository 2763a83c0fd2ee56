// Resolves addresses of one binary with llvm-symbolizer: one long-lived child
// per binary (--obj=BINARY, addresses on stdin, one JSON line per address), so
// the debug info is parsed once however many frames point into the binary.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace fathom::symbols {

class Subprocess;

struct SymbolLine {
  std::string function_name;
  std::string source_file;
  uint32_t line = 0;
};
// Innermost (inlined) function first, the function of the frame itself last,
// as ModuleSymbols.AddressSymbols.lines expects. Empty: unknown address.
using AddressLines = std::vector<SymbolLine>;

class LlvmSymbolizer {
 public:
  // `program`: llvm-symbolizer (PATH) unless FATHOM_LLVM_SYMBOLIZER names
  // another one. Fails when it cannot be started or does not answer.
  static Result<std::unique_ptr<LlvmSymbolizer>> Start(const std::string& binary,
                                                       const std::string& program = {});
  ~LlvmSymbolizer();

  // One entry per address, in order.
  Result<std::vector<AddressLines>> Symbolize(const std::vector<uint64_t>& addresses);

  // Parses one line of --output-style=JSON output (exposed for tests).
  static Result<AddressLines> ParseJsonLine(const std::string& line);

 private:
  explicit LlvmSymbolizer(std::unique_ptr<Subprocess> child, std::string binary);
  std::unique_ptr<Subprocess> child_;
  std::string binary_;
};

// The llvm-symbolizer that Start() would run.
std::string DefaultLlvmSymbolizer();

}  // namespace fathom::symbols
