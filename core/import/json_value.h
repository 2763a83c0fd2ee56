// A small JSON reader for ONE Chrome trace event object at a time. The file
// itself is never parsed into a DOM: json_tokenizer finds each event's bytes
// in the stream, and only that object is read here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fathom::json {

struct Member;

struct Value {
  enum Type : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject } type = kNull;
  bool b = false;
  std::string_view number_text;  // raw digits, for exact conversions
  double number = 0;
  std::string str;  // unescaped
  std::vector<Value> items;
  std::vector<Member> members;

  const Value* Find(std::string_view key) const;
  bool is_number() const { return type == kNumber; }
  bool is_string() const { return type == kString; }
  bool is_object() const { return type == kObject; }
};

struct Member {
  std::string key;
  Value value;
};

inline const Value* Value::Find(std::string_view key) const {
  for (const Member& m : members)
    if (m.key == key) return &m.value;
  return nullptr;
}

// Parses `text` (one JSON value). Returns nullopt and sets *error_offset on
// malformed input.
std::optional<Value> Parse(std::string_view text, size_t* error_offset = nullptr);

// Microseconds written as a JSON number ("12.345678") to integer nanoseconds
// without going through a double, so 0.001 us is exactly 1 ns. Digits past
// nanoseconds are truncated. Falls back to the double for exponent forms.
std::optional<int64_t> MicrosToNanos(const Value& v);

// The raw text of `key`'s value in the JSON object `obj` (top level only),
// without building a Value: the tokenizer only needs each event's "ts".
std::optional<std::string_view> FindTopLevelScalar(std::string_view obj, std::string_view key);

// An integer id that may be written as a number or a string ("123", "0x1f").
std::optional<int64_t> AsInt(const Value& v);

// Text-level pieces of the above, shared with json_scanner (which reads
// values without building them).
// A number's text ("-1.5e3") to the double Parse stores; false if strtod
// reads nothing.
bool NumberFromText(std::string_view text, double* out);
// Decodes a string's body: `p` is just after the opening quote. Returns the
// byte after the closing quote, or nullptr (and *stop, where it stopped) for a
// bad escape or a missing quote.
const char* DecodeStringBody(const char* p, const char* end, std::string* out,
                             const char** stop = nullptr);
// Whether a number's text has a fraction or exponent ('.', 'e', 'E'): a loop,
// not find_first_of (one memchr per character).
inline bool HasFractionOrExponent(std::string_view t) {
  for (char c : t)
    if (c == '.' || c == 'e' || c == 'E') return true;
  return false;
}
// MicrosToNanos of a number's text (or a string value's decoded text).
// The bool form is the hot path's: an optional returned through memory
// costs a store-forwarding stall per event.
bool MicrosTextToNanos(std::string_view text, int64_t* ns);
inline std::optional<int64_t> MicrosTextToNanos(std::string_view text) {
  int64_t ns;
  if (!MicrosTextToNanos(text, &ns)) return std::nullopt;
  return ns;
}
// AsInt of a number (text and its double) and of a string value.
int64_t IntFromNumberText(std::string_view text, double number);
std::optional<int64_t> IntFromString(const std::string& s);

}  // namespace fathom::json
