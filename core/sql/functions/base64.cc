#include "core/sql/functions/base64.h"

#include <optional>
#include <string>
#include <string_view>

#include "core/base/base64.h"

namespace fathom {
namespace {

std::string Encode(std::string_view in) { return Base64Encode(in); }

int Sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// Padding may be left out; anything else outside the alphabet is invalid.
std::optional<std::string> Decode(std::string_view in) {
  while (!in.empty() && in.back() == '=') in.remove_suffix(1);
  if (in.size() % 4 == 1) return std::nullopt;
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    const int v = Sextet(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

std::string_view Bytes(sqlite3_value* v) {
  const void* p =
      sqlite3_value_type(v) == SQLITE_BLOB ? sqlite3_value_blob(v) : sqlite3_value_text(v);
  return {static_cast<const char*>(p), p ? static_cast<size_t>(sqlite3_value_bytes(v)) : 0};
}

void EncodeFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return sqlite3_result_null(ctx);
  if (type != SQLITE_BLOB)
    return sqlite3_result_error(ctx, "Base64Encode only supports bytes argument", -1);
  const std::string out = Encode(Bytes(argv[0]));
  sqlite3_result_text(ctx, out.data(), static_cast<int>(out.size()), SQLITE_TRANSIENT);
}

void DecodeFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return sqlite3_result_null(ctx);
  if (type != SQLITE_TEXT && type != SQLITE_BLOB)
    return sqlite3_result_error(ctx, "BASE64: argument must be string or blob", -1);
  const auto out = Decode(Bytes(argv[0]));
  if (!out) return sqlite3_result_error(ctx, "BASE64: Invalid input", -1);
  sqlite3_result_blob(ctx, out->data(), static_cast<int>(out->size()), SQLITE_TRANSIENT);
}

}  // namespace

Status RegisterBase64Functions(sqlite3* db) {
  struct Fn {
    const char* name;
    void (*fn)(sqlite3_context*, int, sqlite3_value**);
  };
  for (const Fn& f : {Fn{"base64_encode", EncodeFn}, Fn{"__intrinsic_base64_encode", EncodeFn},
                      Fn{"base64_decode", DecodeFn}, Fn{"__intrinsic_base64_decode", DecodeFn}}) {
    if (sqlite3_create_function_v2(db, f.name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr, f.fn,
                                   nullptr, nullptr, nullptr) != SQLITE_OK)
      return ErrorStatus(std::string("cannot register ") + f.name);
  }
  return Status::Ok();
}

}  // namespace fathom
