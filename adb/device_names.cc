#include "adb/device_names.h"

#include <cstdio>

namespace fathom::adb {

std::string UnsafeEntryNameReason(std::string_view name) {
  if (name.empty()) return "empty name";
  if (name == "." || name == "..") return "refers to a directory itself or its parent";
  if (name.find('\0') != std::string_view::npos) return "contains a NUL byte";
  if (name.find('/') != std::string_view::npos || name.find('\\') != std::string_view::npos) {
    return "contains a path separator";
  }
  const auto is_letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (name.size() >= 2 && is_letter(name[0]) && name[1] == ':') return "starts with a drive letter";
  if (name.size() > kMaxEntryName) {
    return "longer than " + std::to_string(kMaxEntryName) + " bytes";
  }
  return {};
}

std::string EscapeForTerminal(std::string_view bytes, size_t max) {
  std::string out;
  const size_t n = bytes.size() < max ? bytes.size() : max;
  out.reserve(n + 8);
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    }
  }
  if (n < bytes.size()) out += "...";
  return out;
}

}  // namespace fathom::adb
