// Text helpers for the SVG exporter's static frames: XML-safe text, label
// truncation by characters, thousands separators and colours as rgb(), which
// every SVG renderer reads (librsvg and ImageMagick included).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fathom {

// `s` as XML character data or attribute text: markup characters escaped,
// malformed UTF-8 and control characters (not allowed in XML 1.0) replaced.
std::string XmlText(std::string_view s);

// The first `n` characters (code points) of UTF-8 `s`.
std::string_view Utf8Prefix(std::string_view s, size_t n);
size_t Utf8Length(std::string_view s);

// 1234567 -> "1,234,567" (as the SVG's script prints values).
std::string WithThousands(int64_t v);

// HSL (degrees, percent, percent) as "rgb(r,g,b)".
std::string HslToRgb(double h, double s, double l);

}  // namespace fathom
