// Reads JSON text without building json::Values: validates and skips values
// and walks an object's members as raw text spans. The Chrome JSON hot path
// reads the few keys it needs straight from each event's bytes with it, so no
// allocation happens per event. The accepted syntax is exactly json::Parse's,
// so both agree on which events are malformed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace fathom::json {

// The first '"' or '\\' in [p, end), or `end`: 16 bytes a step where SSE2
// exists (every x86-64), since a byte loop mispredicts at each string's end.
inline const char* FindQuoteOrBackslash(const char* p, const char* end) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  while (end - p >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    int m = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    if (m) return p + __builtin_ctz(static_cast<unsigned>(m));
    p += 16;
  }
#endif
  while (p < end && *p != '"' && *p != '\\') ++p;
  return p;
}

// Deepest nesting json::Parse accepts (the root is depth 0).
inline constexpr int kMaxDepth = 256;

// Skips one value starting at `p` (leading whitespace allowed) nested at
// `depth`. Returns the byte after it, or nullptr when it is malformed.
const char* SkipValue(const char* p, const char* end, int depth);

// The members of one object, in order, as raw text.
class ObjectReader {
 public:
  // `text` holds the object ('{' after optional whitespace) nested at `depth`.
  explicit ObjectReader(std::string_view text, int depth = 0);
  // The next member: its key (escapes decoded into `scratch` when it has any)
  // and its value's whole text (a string keeps its quotes). False after the
  // closing brace or on malformed input (then ok() is false).
  bool Next(std::string_view* key, std::string_view* value, std::string* scratch);
  bool ok() const { return ok_; }
  // Bytes from the start of `text` to just after the closing brace.
  size_t consumed() const { return static_cast<size_t>(p_ - begin_); }

 private:
  const char* begin_;
  const char* p_;
  const char* end_;
  int depth_;
  bool ok_ = true;
  bool started_ = false;
  bool done_ = false;
};

// The items of one array, in order, as raw text.
class ArrayReader {
 public:
  explicit ArrayReader(std::string_view text, int depth = 0);
  bool Next(std::string_view* item);
  bool ok() const { return ok_; }

 private:
  const char* p_;
  const char* end_;
  int depth_;
  bool ok_ = true;
  bool started_ = false;
  bool done_ = false;
};

enum class RawType : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
// The type of a value's raw text (already validated): from its first byte.
RawType TypeOf(std::string_view raw);

// A raw string value ("..." with quotes) as text: a view into `raw` when it
// has no escapes, else decoded into `scratch`. False if it is not a string.
bool StringOf(std::string_view raw, std::string* scratch, std::string_view* out);

// A raw value's text without the spaces between tokens (strings kept as
// written): the compact JSON form.
std::string Compact(std::string_view raw);

// A raw number's double, as json::Parse computes it.
double NumberOf(std::string_view raw);

// Microseconds (a number, or a string holding one) to integer nanoseconds,
// as json::MicrosToNanos.
std::optional<int64_t> MicrosToNanos(std::string_view raw);

// An integer id written as a number or a string ("123", "0x1f"), as
// json::AsInt.
std::optional<int64_t> AsInt(std::string_view raw);

}  // namespace fathom::json
