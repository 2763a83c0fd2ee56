// Base64 encoding (RFC 4648, padded), shared by the SQL base64 functions and
// the importers that keep an event's raw proto as text (winscope tables'
// base64_proto_id, as upstream).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fathom {

inline constexpr char kBase64Alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

inline std::string Base64Encode(std::string_view in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  for (size_t i = 0; i < in.size(); i += 3) {
    uint32_t v = static_cast<uint32_t>(static_cast<uint8_t>(in[i])) << 16;
    if (i + 1 < in.size()) v |= static_cast<uint32_t>(static_cast<uint8_t>(in[i + 1])) << 8;
    if (i + 2 < in.size()) v |= static_cast<uint8_t>(in[i + 2]);
    out += kBase64Alphabet[(v >> 18) & 63];
    out += kBase64Alphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kBase64Alphabet[(v >> 6) & 63] : '=';
    out += i + 2 < in.size() ? kBase64Alphabet[v & 63] : '=';
  }
  return out;
}

}  // namespace fathom
