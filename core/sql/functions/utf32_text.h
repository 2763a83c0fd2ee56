// Lossless UTF-8 <-> UTF-32 conversion for code-point-wise text processing
// (std::wregex): each byte that is not part of valid UTF-8 becomes a code
// point of its own in a private range and turns back into the same byte, so
// odd input survives a round trip unchanged.
#pragma once

#include <string>
#include <string_view>

namespace fathom {

std::wstring Utf8ToWide(std::string_view utf8);
void AppendWideAsUtf8(std::wstring_view wide, std::string* out);

}  // namespace fathom
