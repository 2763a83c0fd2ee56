// JSON string literals for the exporters. Also safe inside an SVG <script>
// CDATA block ('<', '>' and '&' become \u escapes) and always valid UTF-8
// (a byte that does not start a well-formed sequence becomes U+FFFD), so a
// binary-looking frame name cannot break the XML or the JSON.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace fathom {

// Length of the well-formed UTF-8 sequence at s[i], 0 if malformed.
inline size_t Utf8SequenceLength(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return len;
}

inline std::string JsonString(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      size_t len = Utf8SequenceLength(s, i);
      if (len == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out.append(s.substr(i, len));
        i += len;
      }
      continue;
    }
    ++i;
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
      char buf[8];
      snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out += "\"";
  return out;
}

}  // namespace fathom
