#include "core/sql/functions/unhex.h"

#include <limits>
#include <string>

namespace fathom {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void Unhex(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return sqlite3_result_null(ctx);
  if (type != SQLITE_TEXT) return sqlite3_result_error(ctx, "UNHEX: argument must be text", -1);
  std::string_view s(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])),
                     static_cast<size_t>(sqlite3_value_bytes(argv[0])));
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  if (s.empty()) return sqlite3_result_error(ctx, "UNHEX: input is empty or only whitespace", -1);
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    if (s.empty()) return sqlite3_result_error(ctx, "UNHEX: hex string is empty after prefix", -1);
  }
  auto value = ParseSignedHex(s);
  if (!value) return sqlite3_result_error(ctx, "UNHEX: invalid or out of range hex string", -1);
  sqlite3_result_int64(ctx, *value);
}

}  // namespace

std::optional<int64_t> ParseSignedHex(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  // Accumulate the magnitude unsigned: -2^63 is representable, +2^63 is not.
  const uint64_t limit = negative ? uint64_t{1} << 63 : std::numeric_limits<int64_t>::max();
  uint64_t magnitude = 0;
  for (char c : s) {
    const int d = HexDigitValue(c);
    if (d < 0 || magnitude > (limit - static_cast<uint64_t>(d)) / 16) return std::nullopt;
    magnitude = magnitude * 16 + static_cast<uint64_t>(d);
  }
  return negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
}

Status RegisterUnhexFunction(sqlite3* db) {
  int rc = sqlite3_create_function_v2(db, "unhex", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr,
                                      Unhex, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return ErrorStatus("cannot register unhex");
  return Status::Ok();
}

}  // namespace fathom
