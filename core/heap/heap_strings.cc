#include "core/heap/heap_strings.h"

#include "core/heap/heap_duplicates.h"
#include "core/heap/heap_queries.h"
#include "core/storage/trace_storage.h"

namespace fathom::heap {
namespace {

void AppendUtf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += char(c);
  } else if (c < 0x800) {
    out += char(0xC0 | (c >> 6)), out += char(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += char(0xE0 | (c >> 12)), out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  } else {
    out += char(0xF0 | (c >> 18)), out += char(0x80 | ((c >> 12) & 0x3F));
    out += char(0x80 | ((c >> 6) & 0x3F)), out += char(0x80 | (c & 0x3F));
  }
}

// UTF-16 units to UTF-8; a lone surrogate becomes U+FFFD.
std::string FromUtf16(const std::vector<uint8_t>& b, bool big_endian, size_t max_chars) {
  std::string out;
  size_t chars = 0;
  auto unit = [&](size_t i) -> uint32_t {
    return big_endian ? (uint32_t(b[i]) << 8 | b[i + 1]) : (uint32_t(b[i + 1]) << 8 | b[i]);
  };
  for (size_t i = 0; i + 1 < b.size() && chars < max_chars; i += 2, ++chars) {
    uint32_t c = unit(i);
    if (c >= 0xD800 && c < 0xDC00 && i + 3 < b.size()) {
      uint32_t low = unit(i + 2);
      if (low >= 0xDC00 && low < 0xE000) {
        AppendUtf8(out, 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00));
        i += 2;
        continue;
      }
    }
    AppendUtf8(out, c >= 0xD800 && c < 0xE000 ? 0xFFFD : c);
  }
  return out;
}

}  // namespace

Result<std::string> StringText(const TraceStorage& s, const HeapAnalysis& a,
                               const HeapContents& contents, uint32_t v, size_t max_chars) {
  const uint32_t value = FieldTarget(s, a, v, s.strings.Find("java.lang.String.value"));
  if (value == kNoObject) return std::string();  // no array: ""
  const size_t k = contents.IndexOf(a.rows[value]);
  if (k == HeapContents::kNone || k >= contents.data_offsets.size() || !contents.read_bytes)
    return ErrorStatus("the text is not in the dump's contents");
  const bool chars = ClassName(s, a.cls[value]) == "char[]";
  const bool utf16 = chars || contents.IsUtf16String(a.rows[v]);
  const uint64_t size = uint64_t(std::max<int64_t>(0, a.self_size[value]));
  const uint64_t want = std::min<uint64_t>(size, (max_chars + 1) * (utf16 ? 2 : 1));
  auto bytes = contents.read_bytes(contents.data_offsets[k], want);
  if (!bytes.ok()) return bytes.status();
  std::string out;
  if (utf16) {
    out = FromUtf16(*bytes, chars, max_chars);
  } else {
    for (size_t i = 0; i < bytes->size() && i < max_chars; ++i) AppendUtf8(out, (*bytes)[i]);
  }
  if (size > uint64_t(max_chars) * (utf16 ? 2 : 1)) out += "\u2026";
  return out;
}

}  // namespace fathom::heap
