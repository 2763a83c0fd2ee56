#include "core/load/trace_uuid.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include "base/utf8_path.h"

namespace fathom {

uint64_t DerivedTraceUuid(const uint8_t* data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a offset basis
  for (size_t i = 0, n = std::min(size, kTraceUuidHashBytes); i < n; ++i) {
    h ^= data[i];
    h *= 0x100000001b3ull;  // FNV prime
  }
  return h;
}

std::optional<uint64_t> DerivedTraceUuidOfFile(const std::string& path) {
  // Only a regular file can be read twice: reading ahead of the loader would
  // swallow the first bytes of a pipe or FIFO.
  // UTF-8 (the path the loader opened): on Windows a char path would be misread.
  const std::filesystem::path p = PathFromUtf8(path);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) return std::nullopt;
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<uint8_t> head(kTraceUuidHashBytes);
  in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
  return DerivedTraceUuid(head.data(), static_cast<size_t>(in.gcount()));
}

}  // namespace fathom
