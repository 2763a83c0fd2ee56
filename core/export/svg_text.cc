#include "core/export/svg_text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/export/json_escape.h"

namespace fathom {

std::string XmlText(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t len = Utf8SequenceLength(s, i);
      if (len == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD
        ++i;
      } else {
        out.append(s.substr(i, len));
        i += len;
      }
      continue;
    }
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out.push_back(c < 0x20 && c != '\t' && c != '\n' ? '?' : char(c));
    }
    ++i;
  }
  return out;
}

size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string_view Utf8Prefix(std::string_view s, size_t n) {
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (chars++ == n) return s.substr(0, i);
  }
  return s;
}

std::string WithThousands(int64_t v) {
  // The magnitude as unsigned, so INT64_MIN has one too.
  const uint64_t magnitude = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : uint64_t(v);
  std::string digits = std::to_string(magnitude);
  std::string out = v < 0 ? "-" : "";
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string HslToRgb(double h, double s, double l) {
  s /= 100;
  l /= 100;
  const double c = (1 - std::fabs(2 * l - 1)) * s;
  const double hp = std::fmod(h, 360) / 60;
  const double x = c * (1 - std::fabs(std::fmod(hp, 2) - 1));
  double r = 0, g = 0, b = 0;
  if (hp < 1)
    r = c, g = x;
  else if (hp < 2)
    r = x, g = c;
  else if (hp < 3)
    g = c, b = x;
  else if (hp < 4)
    g = x, b = c;
  else if (hp < 5)
    r = x, b = c;
  else
    r = c, b = x;
  const double m = l - c / 2;
  char buf[40];
  snprintf(buf, sizeof(buf), "rgb(%d,%d,%d)", int(std::lround((r + m) * 255)),
           int(std::lround((g + m) * 255)), int(std::lround((b + m) * 255)));
  return buf;
}

}  // namespace fathom
