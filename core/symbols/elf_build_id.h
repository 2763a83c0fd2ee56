// Reads the GNU build id (the NT_GNU_BUILD_ID note, usually in
// .note.gnu.build-id) of an ELF file, so a binary found on this machine is only
// used to symbolize a trace when it is the very file that was profiled.
// Portable: parses the file bytes itself (no <elf.h>), 32/64-bit, either byte
// order.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace fathom::symbols {

// The raw build id bytes. Errors name the file and the offset: not an ELF
// file, truncated headers, or no build-id note.
Result<std::string> ReadElfBuildId(const std::string& path);

// Whether the first bytes of the file are the ELF magic (cheap pre-check for
// directory scans).
bool LooksLikeElf(const std::string& path);

// "a1b2..." <-> raw bytes. FromHex returns nullopt-like empty string when
// `hex` is not an even-length hex string.
std::string BuildIdToHex(const std::string& raw);
std::string BuildIdFromHex(const std::string& hex);

}  // namespace fathom::symbols
