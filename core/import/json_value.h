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

}  // namespace fathom::json
