// The uuid of a trace that carries none: as upstream, 64-bit FNV-1a of the
// file's first 4096 bytes (as stored: a gzip file hashes its compressed
// bytes), printed as 00000000-0000-0000-<hash>. Two loads of the same file
// get the same uuid, so saved queries and comparisons can name a trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace fathom {

inline constexpr size_t kTraceUuidHashBytes = 4096;

uint64_t DerivedTraceUuid(const uint8_t* data, size_t size);
// Reads the file's leading bytes; nullopt when it cannot be read or is not a
// regular file (a pipe is read once, by the loader).
std::optional<uint64_t> DerivedTraceUuidOfFile(const std::string& path);

}  // namespace fathom
