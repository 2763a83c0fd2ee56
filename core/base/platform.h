// The few OS-specific calls core/ needs, kept in one place so everything else
// stays portable (Windows, macOS, Linux).
#pragma once

#include <cstdint>
#include <cstdio>

namespace fathom::platform {

// Size of an open file in bytes (64-bit safe); leaves the position at 0.
uint64_t FileSizeAndRewind(FILE* f);
// Whether stderr is a terminal (progress lines use \r only there).
bool StderrIsTerminal();

}  // namespace fathom::platform
