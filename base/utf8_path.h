// Paths to and from the UTF-8 strings Fathom passes around (argv under the
// executables' UTF-8 manifest, messages, options). On Windows, std::filesystem::path
// built from a char string decodes it with the C runtime's locale (msvcrt's "C":
// one byte, one character), so "Récord" named a file that does not exist and
// path::string() gave mojibake. char8_t strings are always decoded as UTF-8. On
// POSIX both are the same bytes.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace fathom {

inline std::filesystem::path PathFromUtf8(std::string_view utf8) {
  return std::filesystem::path(
      std::u8string_view(reinterpret_cast<const char8_t*>(utf8.data()), utf8.size()));
}

inline std::string PathToUtf8(const std::filesystem::path& p) {
  const std::u8string u = p.u8string();
  return std::string(u.begin(), u.end());
}

}  // namespace fathom
