// Names and text that come from a device, checked before they touch the local filesystem or
// the terminal. A device is not trusted: a directory entry named "..\0" once made
// `pull DIR` chmod the directory above its destination.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fathom::adb {

// Longest entry name accepted from a listing (Linux and Android allow 255 bytes).
inline constexpr size_t kMaxEntryName = 255;

// Why `name` (one entry of a device's directory listing) cannot be used as a single local
// path component, or an empty string when it can. Rejected everywhere, whatever the host:
// empty names, "." and "..", NUL, '/' and '\\' (separators, hence absolute paths too), a
// drive letter ("C:..."), names over kMaxEntryName bytes. The same rules on every platform,
// so a pull gives the same files on Linux, macOS and Windows.
std::string UnsafeEntryNameReason(std::string_view name);

// `bytes` for a terminal or a log line: printable ASCII kept, backslash and anything else as
// \xNN, cut to `max` input bytes with "..." (a device's text must not move the cursor or
// change colours, and a 4 GiB message must not fill the screen).
std::string EscapeForTerminal(std::string_view bytes, size_t max = 200);

}  // namespace fathom::adb
