// __intrinsic_strip_hex(text, min_len): text with its numbers replaced by
// "<num>", as upstream's function answers (the standard library uses it to
// group slice names that differ only by ids):
//  1. hex digits right after "0x"/"0X", at least min_len of them, become
//     "<num>" (the prefix stays);
//  2. then every maximal run of hex characters holding at least one decimal
//     digit and at least min_len long becomes "<num>".
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

#include "base/status.h"

namespace fathom {

std::string StripHex(std::string_view text, int64_t min_len);

Status RegisterStripHexFunction(sqlite3* db);

}  // namespace fathom
