// unhex(text): the integer a hexadecimal string spells, as upstream Perfetto's
// function: surrounding whitespace is ignored, a "0x"/"0X" prefix is
// optional, a sign may precede the digits, and the value must fit a signed
// 64-bit integer. Anything else (non-text, empty, stray characters) is an
// error; NULL gives NULL.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/status.h"

namespace fathom {

// The value of `digits` ([+-]?[0-9a-fA-F]+), nullopt when malformed or out
// of int64 range.
std::optional<int64_t> ParseSignedHex(std::string_view digits);

Status RegisterUnhexFunction(sqlite3* db);

}  // namespace fathom
