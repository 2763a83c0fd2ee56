#include "app/cli/terminal_text.h"

#include <cstdint>

namespace fathom::cli {
namespace {

void AppendHex(std::string* out, const char* prefix, unsigned value) {
  static const char kDigits[] = "0123456789abcdef";
  out->append(prefix);
  out->push_back(kDigits[(value >> 4) & 0xf]);
  out->push_back(kDigits[value & 0xf]);
}

// Length of the valid UTF-8 sequence at the start of `s` (1–4), or 0 when the
// first byte does not start one. The ranges are RFC 3629's: they exclude
// overlong forms, UTF-16 surrogates and code points above U+10FFFF.
size_t Utf8SequenceLength(std::string_view s) {
  const auto b = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const auto in = [&](size_t i, uint8_t lo, uint8_t hi) {
    return i < s.size() && b(i) >= lo && b(i) <= hi;
  };
  const uint8_t lead = b(0);
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return in(1, 0x80, 0xbf) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const uint8_t lo = lead == 0xe0 ? 0xa0 : 0x80, hi = lead == 0xed ? 0x9f : 0xbf;
    return in(1, lo, hi) && in(2, 0x80, 0xbf) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const uint8_t lo = lead == 0xf0 ? 0x90 : 0x80, hi = lead == 0xf4 ? 0x8f : 0xbf;
    return in(1, lo, hi) && in(2, 0x80, 0xbf) && in(3, 0x80, 0xbf) ? 4 : 0;
  }
  return 0;
}

}  // namespace

std::string TerminalSafe(std::string_view text, Newlines newlines) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const uint8_t c = static_cast<uint8_t>(text[i]);
    const size_t len = Utf8SequenceLength(text.substr(i));
    if (len == 0) {  // not UTF-8: show the byte, resynchronise on the next one
      AppendHex(&out, "\\x", c);
      ++i;
    } else if (len == 2 && c == 0xc2 && static_cast<uint8_t>(text[i + 1]) <= 0x9f) {
      AppendHex(&out, "\\u00", static_cast<uint8_t>(text[i + 1]));  // C1: U+0080–U+009F
      i += 2;
    } else if (len > 1 || (c >= 0x20 && c != 0x7f)) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      const bool keep = newlines == Newlines::kKeep && (c == '\n' || c == '\t');
      if (keep)
        out.push_back(static_cast<char>(c));
      else if (c == '\n')
        out.append("\\n");
      else if (c == '\r')
        out.append("\\r");
      else if (c == '\t')
        out.append("\\t");
      else
        AppendHex(&out, "\\x", c);
      ++i;
    }
  }
  return out;
}

}  // namespace fathom::cli
