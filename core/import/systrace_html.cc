#include "core/import/systrace_html.h"

#include <string>

namespace fathom {

std::vector<std::string_view> FindHtmlTraceDataBlocks(std::string_view page, std::string* error) {
  std::vector<std::string_view> blocks;
  size_t pos = 0;
  while ((pos = page.find("<script", pos)) != std::string_view::npos) {
    size_t tag_end = page.find('>', pos);
    if (tag_end == std::string_view::npos) {
      *error = "byte offset " + std::to_string(pos) + ": <script> tag is not closed";
      break;
    }
    std::string_view tag = page.substr(pos, tag_end - pos);
    size_t body = tag_end + 1;
    size_t close = page.find("</script>", body);
    if (tag.find("trace-data") == std::string_view::npos) {
      pos = close == std::string_view::npos ? body : close + 9;
      continue;
    }
    if (close == std::string_view::npos) {
      *error = "byte offset " + std::to_string(pos) +
               ": trace-data block is not closed by </script> (page cut short?)";
      // The open block still holds whole lines/events up to the cut.
      blocks.push_back(page.substr(body));
      break;
    }
    std::string_view b = page.substr(body, close - body);
    while (!b.empty() && (b.front() == '\n' || b.front() == '\r' || b.front() == ' '))
      b.remove_prefix(1);
    if (!b.empty()) blocks.push_back(b);
    pos = close + 9;
  }
  return blocks;
}

std::optional<size_t> FindCompressedAtracePayload(const uint8_t* data, size_t size) {
  std::string_view s(reinterpret_cast<const char*>(data), size < 4096 ? size : 4096);
  size_t t = s.find("TRACE:");
  if (t == std::string_view::npos || (t > 0 && s[t - 1] != '\n')) return std::nullopt;
  size_t p = t + 6;
  while (p < s.size() && (s[p] == '\r' || s[p] == '\n')) ++p;
  if (p + 2 > size) return std::nullopt;
  // zlib header: CM = 8 and (CMF*256 + FLG) % 31 == 0.
  uint8_t cmf = data[p], flg = data[p + 1];
  if ((cmf & 0x0F) != 8 || ((cmf << 8) | flg) % 31 != 0) return std::nullopt;
  return p;
}

}  // namespace fathom
