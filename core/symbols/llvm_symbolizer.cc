#include "core/symbols/llvm_symbolizer.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

#include "core/import/json_value.h"
#include "core/symbols/subprocess.h"

namespace fathom::symbols {
namespace {
// Addresses written before reading their answers: small enough that our
// writes never fill the child's stdin pipe while it waits for us to read.
constexpr size_t kBatch = 256;
}  // namespace

std::string DefaultLlvmSymbolizer() {
  const char* env = getenv("FATHOM_LLVM_SYMBOLIZER");
  return env && *env ? env : "llvm-symbolizer";
}

LlvmSymbolizer::LlvmSymbolizer(std::unique_ptr<Subprocess> child, std::string binary)
    : child_(std::move(child)), binary_(std::move(binary)) {}
LlvmSymbolizer::~LlvmSymbolizer() = default;

Result<std::unique_ptr<LlvmSymbolizer>> LlvmSymbolizer::Start(const std::string& binary,
                                                              const std::string& program) {
  std::string exe = program.empty() ? DefaultLlvmSymbolizer() : program;
  auto child = Subprocess::Start({exe, "--obj=" + binary, "--output-style=JSON", "--inlines",
                                  "--functions=linkage", "--demangle"});
  if (!child.ok())
    return ErrorStatus(child.status().message() +
                       " (llvm-symbolizer is needed to symbolize; Debian package llvm, or set "
                       "FATHOM_LLVM_SYMBOLIZER)");
  return std::unique_ptr<LlvmSymbolizer>(new LlvmSymbolizer(std::move(*child), binary));
}

Result<AddressLines> LlvmSymbolizer::ParseJsonLine(const std::string& line) {
  size_t err = 0;
  auto v = json::Parse(line, &err);
  if (!v || !v->is_object())
    return ErrorStatus("llvm-symbolizer: unexpected output at column " + std::to_string(err) +
                       ": " + line.substr(0, 200));
  AddressLines out;
  if (const json::Value* e = v->Find("Error")) {
    const json::Value* m = e->Find("Message");
    return ErrorStatus("llvm-symbolizer: " + (m && m->is_string() ? m->str : line));
  }
  const json::Value* symbols = v->Find("Symbol");
  if (!symbols) return out;
  for (const json::Value& s : symbols->items) {
    SymbolLine l;
    if (const json::Value* f = s.Find("FunctionName"); f && f->is_string())
      l.function_name = f->str;
    if (const json::Value* f = s.Find("FileName"); f && f->is_string()) l.source_file = f->str;
    if (const json::Value* f = s.Find("Line"); f && f->is_number() && f->number > 0)
      l.line = static_cast<uint32_t>(f->number);
    // "??" is llvm-symbolizer's "unknown"; an entry without a function is
    // no symbol at all.
    if (l.function_name.empty() || l.function_name == "??") continue;
    if (l.source_file == "??") l.source_file.clear();
    out.push_back(std::move(l));
  }
  return out;
}

Result<std::vector<AddressLines>> LlvmSymbolizer::Symbolize(
    const std::vector<uint64_t>& addresses) {
  std::vector<AddressLines> out;
  out.reserve(addresses.size());
  for (size_t start = 0; start < addresses.size(); start += kBatch) {
    size_t end = std::min(addresses.size(), start + kBatch);
    std::string req;
    char buf[32];
    for (size_t i = start; i < end; ++i) {
      snprintf(buf, sizeof buf, "0x%" PRIx64 "\n", addresses[i]);
      req += buf;
    }
    if (Status st = child_->Write(req); !st.ok()) return st;
    for (size_t i = start; i < end; ++i) {
      auto line = child_->ReadLine();
      if (!line.ok())
        return ErrorStatus(line.status().message() + " (symbolizing " + binary_ + ")");
      auto parsed = ParseJsonLine(*line);
      if (!parsed.ok()) return parsed.status();
      out.push_back(std::move(*parsed));
    }
  }
  return out;
}

}  // namespace fathom::symbols
