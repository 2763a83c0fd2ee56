#include "core/sql/functions/utf32_text.h"

#include <cstdint>

#include "core/base/utf8.h"

namespace fathom {
namespace {

// wchar_t holds a code point on Linux and macOS; on Windows it is a UTF-16 unit, so
// code points above U+FFFF become surrogate pairs there (std::wregex then sees two units).
constexpr bool kUtf16 = sizeof(wchar_t) == 2;
static_assert(sizeof(wchar_t) == 4 || kUtf16, "wchar_t must be UTF-32 or UTF-16");

// Stray bytes map to U+DC80..U+DCFF: lone surrogates never come out of valid
// UTF-8, so they cannot collide with real text.
constexpr uint32_t kStrayByteBase = 0xDC00;

// Length of the valid UTF-8 sequence starting at s[i] and its code point, or
// 0 when the bytes there are not valid UTF-8.
size_t DecodeOne(std::string_view s, size_t i, uint32_t* cp) {
  const auto b0 = static_cast<uint8_t>(s[i]);
  size_t len;
  uint32_t min;
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  } else if ((b0 & 0xE0) == 0xC0) {
    len = 2, min = 0x80, *cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, min = 0x800, *cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, min = 0x10000, *cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<uint8_t>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    *cp = (*cp << 6) | (b & 0x3F);
  }
  const bool surrogate = *cp >= 0xD800 && *cp <= 0xDFFF;
  if (*cp < min || *cp > 0x10FFFF || surrogate) return 0;
  return len;
}

}  // namespace

std::wstring Utf8ToWide(std::string_view utf8) {
  std::wstring out;
  out.reserve(utf8.size());
  for (size_t i = 0; i < utf8.size();) {
    uint32_t cp = 0;
    size_t len = DecodeOne(utf8, i, &cp);
    if (len == 0) {
      out.push_back(static_cast<wchar_t>(kStrayByteBase + static_cast<uint8_t>(utf8[i])));
      ++i;
    } else if (kUtf16 && cp > 0xFFFF) {
      out.push_back(static_cast<wchar_t>(0xD800 + ((cp - 0x10000) >> 10)));
      out.push_back(static_cast<wchar_t>(0xDC00 + ((cp - 0x10000) & 0x3FF)));
      i += len;
    } else {
      out.push_back(static_cast<wchar_t>(cp));
      i += len;
    }
  }
  return out;
}

void AppendWideAsUtf8(std::wstring_view wide, std::string* out) {
  for (size_t i = 0; i < wide.size(); ++i) {
    auto cp = static_cast<uint32_t>(wide[i]);
    // A UTF-16 pair is one code point; a lone low surrogate is a stray byte as below.
    if (kUtf16 && cp >= 0xD800 && cp <= 0xDBFF && i + 1 < wide.size()) {
      const auto lo = static_cast<uint32_t>(wide[i + 1]);
      if (lo >= 0xDC00 && lo <= 0xDFFF) {
        AppendUtf8(0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00), out);
        ++i;
        continue;
      }
    }
    if (cp >= kStrayByteBase + 0x80 && cp <= kStrayByteBase + 0xFF) {
      out->push_back(static_cast<char>(cp - kStrayByteBase));
    } else {
      AppendUtf8(cp, out);
    }
  }
}

}  // namespace fathom
