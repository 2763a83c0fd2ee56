#include "core/sql/functions/strip_hex.h"

#include <cctype>

namespace fathom {
namespace {

bool IsHex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Step 1: hex digits after a 0x prefix.
std::string StripPrefixed(std::string_view s, int64_t min_len) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
      size_t j = i + 2;
      while (j < s.size() && IsHex(s[j])) ++j;
      if (j > i + 2 && static_cast<int64_t>(j - i - 2) >= min_len) {
        out.append(s.substr(i, 2));
        out += "<num>";
        i = j;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

void StripHexFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  if (sqlite3_value_type(argv[0]) != SQLITE_TEXT)
    return sqlite3_result_error(ctx, "__intrinsic_strip_hex: first argument must be string", -1);
  if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER)
    return sqlite3_result_error(ctx, "__intrinsic_strip_hex: second argument must be int", -1);
  std::string_view text(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])),
                        static_cast<size_t>(sqlite3_value_bytes(argv[0])));
  const std::string out = StripHex(text, sqlite3_value_int64(argv[1]));
  sqlite3_result_text(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
}

}  // namespace

std::string StripHex(std::string_view text, int64_t min_len) {
  const std::string s = StripPrefixed(text, min_len);
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (!IsHex(s[i])) {
      out += s[i++];
      continue;
    }
    size_t j = i;
    bool digit = false;
    while (j < s.size() && IsHex(s[j])) digit = IsDigit(s[j++]) || digit;
    if (digit && static_cast<int64_t>(j - i) >= min_len)
      out += "<num>";
    else
      out.append(s, i, j - i);
    i = j;
  }
  return out;
}

Status RegisterStripHexFunction(sqlite3* db) {
  if (sqlite3_create_function_v2(db, "__intrinsic_strip_hex", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                 nullptr, StripHexFn, nullptr, nullptr, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register __intrinsic_strip_hex");
  return Status::Ok();
}

}  // namespace fathom
