#include "core/import/json_scanner.h"

#include <cstring>

#include "core/import/json_value.h"

namespace fathom::json {
namespace {

inline bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

inline const char* SkipSpace(const char* p, const char* end) {
  while (p < end && IsSpace(*p)) ++p;
  return p;
}

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Keys and values are short: a plain loop beats a memchr call.
inline bool HasBackslash(const char* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] == '\\') return true;
  return false;
}

inline bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// `p` just after the opening quote; returns the byte after the closing one.
// Validates escapes as DecodeStringBody does, without decoding.
const char* SkipStringBody(const char* p, const char* end) {
  while (true) {
    p = FindQuoteOrBackslash(p, end);
    if (p >= end) return nullptr;
    if (*p == '"') return p + 1;
    if (++p >= end) return nullptr;
    switch (*p++) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        break;
      case 'u':
        // A high surrogate's "\uXXXX" partner is checked as the next escape.
        if (end - p < 4 || !IsHex(p[0]) || !IsHex(p[1]) || !IsHex(p[2]) || !IsHex(p[3]))
          return nullptr;
        p += 4;
        break;
      default:
        return nullptr;
    }
  }
}

// Parse takes a sign, then any run of digits . e E + -, and keeps it when
// strtod reads at least one character of it: a digit, or '.' and a digit.
const char* SkipNumber(const char* p, const char* end) {
  const char* start = p;
  if (p < end && (*p == '-' || *p == '+')) ++p;
  const char* body = p;
  while (p < end && (IsDigit(*p) || *p == '.' || *p == 'e' || *p == 'E' || *p == '-' || *p == '+'))
    ++p;
  if (p == start || body == p) return nullptr;
  if (IsDigit(*body) || (*body == '.' && body + 1 < p && IsDigit(body[1]))) return p;
  return nullptr;
}

const char* SkipWord(const char* p, const char* end, const char* word, size_t n) {
  return static_cast<size_t>(end - p) >= n && memcmp(p, word, n) == 0 ? p + n : nullptr;
}

}  // namespace

const char* SkipValue(const char* p, const char* end, int depth) {
  if (depth > kMaxDepth) return nullptr;
  p = SkipSpace(p, end);
  if (p >= end) return nullptr;
  switch (*p) {
    case '{': {
      p = SkipSpace(p + 1, end);
      if (p < end && *p == '}') return p + 1;
      while (true) {
        p = SkipSpace(p, end);
        if (p >= end || *p != '"') return nullptr;
        if (!(p = SkipStringBody(p + 1, end))) return nullptr;
        p = SkipSpace(p, end);
        if (p >= end || *p != ':') return nullptr;
        if (!(p = SkipValue(p + 1, end, depth + 1))) return nullptr;
        p = SkipSpace(p, end);
        if (p < end && *p == ',') {
          // A trailing comma before the '}' is accepted, as upstream does.
          p = SkipSpace(p + 1, end);
          if (p < end && *p == '}') return p + 1;
          continue;
        }
        return p < end && *p == '}' ? p + 1 : nullptr;
      }
    }
    case '[': {
      p = SkipSpace(p + 1, end);
      if (p < end && *p == ']') return p + 1;
      while (true) {
        if (!(p = SkipValue(p, end, depth + 1))) return nullptr;
        p = SkipSpace(p, end);
        if (p < end && *p == ',') {
          p = SkipSpace(p + 1, end);
          if (p < end && *p == ']') return p + 1;  // trailing comma
          continue;
        }
        return p < end && *p == ']' ? p + 1 : nullptr;
      }
    }
    case '"':
      return SkipStringBody(p + 1, end);
    case 't':
      return SkipWord(p, end, "true", 4);
    case 'f':
      return SkipWord(p, end, "false", 5);
    case 'n':
      return SkipWord(p, end, "null", 4);
    default:
      return SkipNumber(p, end);
  }
}

ObjectReader::ObjectReader(std::string_view text, int depth)
    : begin_(text.data()), p_(text.data()), end_(text.data() + text.size()), depth_(depth) {
  if (depth_ > kMaxDepth) ok_ = false;
}

bool ObjectReader::Next(std::string_view* key, std::string_view* value, std::string* scratch) {
  if (!ok_ || done_) return false;
  auto fail = [&] { return ok_ = false; };
  const char* p = SkipSpace(p_, end_);
  if (!started_) {
    started_ = true;
    if (p >= end_ || *p != '{') return fail();
    p = SkipSpace(p + 1, end_);
    if (p < end_ && *p == '}') {
      p_ = p + 1;
      done_ = true;
      return false;
    }
  } else {
    if (p < end_ && *p == '}') {
      p_ = p + 1;
      done_ = true;
      return false;
    }
    if (p >= end_ || *p != ',') return fail();
    p = SkipSpace(p + 1, end_);
    if (p < end_ && *p == '}') {  // a trailing comma
      p_ = p + 1;
      done_ = true;
      return false;
    }
  }
  if (p >= end_ || *p != '"') return fail();
  const char* kb = p + 1;
  const char* ke = FindQuoteOrBackslash(kb, end_);
  if (ke < end_ && *ke == '"') {  // no escapes: the key is the bytes themselves
    *key = std::string_view(kb, static_cast<size_t>(ke - kb));
    ++ke;
  } else {
    if (!(ke = SkipStringBody(kb, end_))) return fail();
    DecodeStringBody(kb, end_, scratch);
    *key = *scratch;
  }
  p = SkipSpace(ke, end_);
  if (p >= end_ || *p != ':') return fail();
  const char* vb = SkipSpace(p + 1, end_);
  // Strings and numbers (most values) directly, as SkipValue would skip them.
  const char* ve;
  if (vb < end_ && *vb == '"' && depth_ < kMaxDepth)
    ve = SkipStringBody(vb + 1, end_);
  else if (vb < end_ && (IsDigit(*vb) || *vb == '-') && depth_ < kMaxDepth)
    ve = SkipNumber(vb, end_);
  else
    ve = SkipValue(vb, end_, depth_ + 1);
  if (!ve) return fail();
  *value = std::string_view(vb, static_cast<size_t>(ve - vb));
  p_ = ve;
  return true;
}

ArrayReader::ArrayReader(std::string_view text, int depth)
    : p_(text.data()), end_(text.data() + text.size()), depth_(depth) {
  if (depth_ > kMaxDepth) ok_ = false;
}

bool ArrayReader::Next(std::string_view* item) {
  if (!ok_ || done_) return false;
  auto fail = [&] { return ok_ = false; };
  const char* p = SkipSpace(p_, end_);
  if (!started_) {
    started_ = true;
    if (p >= end_ || *p != '[') return fail();
    p = SkipSpace(p + 1, end_);
    if (p < end_ && *p == ']') {
      p_ = p + 1;
      done_ = true;
      return false;
    }
  } else {
    if (p < end_ && *p == ']') {
      p_ = p + 1;
      done_ = true;
      return false;
    }
    if (p >= end_ || *p != ',') return fail();
    p = SkipSpace(p + 1, end_);
    if (p < end_ && *p == ']') {  // a trailing comma
      p_ = p + 1;
      done_ = true;
      return false;
    }
  }
  const char* ve = SkipValue(p, end_, depth_ + 1);
  if (!ve) return fail();
  *item = std::string_view(p, static_cast<size_t>(ve - p));
  p_ = ve;
  return true;
}

std::string Compact(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  bool in_string = false, escape = false;
  for (char c : raw) {
    if (in_string) {
      if (escape)
        escape = false;
      else if (c == '\\')
        escape = true;
      else if (c == '"')
        in_string = false;
    } else if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      continue;
    } else if (c == '"') {
      in_string = true;
    }
    out += c;
  }
  return out;
}

RawType TypeOf(std::string_view raw) {
  if (raw.empty()) return RawType::kNull;
  switch (raw[0]) {
    case '{':
      return RawType::kObject;
    case '[':
      return RawType::kArray;
    case '"':
      return RawType::kString;
    case 't':
    case 'f':
      return RawType::kBool;
    case 'n':
      return RawType::kNull;
    default:
      return RawType::kNumber;
  }
}

bool StringOf(std::string_view raw, std::string* scratch, std::string_view* out) {
  if (raw.size() < 2 || raw[0] != '"') return false;
  std::string_view body = raw.substr(1, raw.size() - 2);
  if (!HasBackslash(body.data(), body.size())) {
    *out = body;
    return true;
  }
  if (!DecodeStringBody(raw.data() + 1, raw.data() + raw.size(), scratch)) return false;
  *out = *scratch;
  return true;
}

double NumberOf(std::string_view raw) {
  double d = 0;
  NumberFromText(raw, &d);
  return d;
}

std::optional<int64_t> MicrosToNanos(std::string_view raw) {
  switch (TypeOf(raw)) {
    case RawType::kNumber:
      return MicrosTextToNanos(raw);
    case RawType::kString: {
      std::string scratch;
      std::string_view s;
      if (!StringOf(raw, &scratch, &s)) return std::nullopt;
      return MicrosTextToNanos(s);
    }
    default:
      return std::nullopt;
  }
}

std::optional<int64_t> AsInt(std::string_view raw) {
  switch (TypeOf(raw)) {
    case RawType::kNumber: {
      // Plain digits (every pid/tid) first, as IntFromNumberText reads them,
      // without a scan for a fraction or exponent.
      size_t i = raw[0] == '-' ? 1 : 0, n = raw.size();
      if (n > i && n - i <= 18) {
        int64_t v = 0;
        for (; i < n && IsDigit(raw[i]); ++i) v = v * 10 + (raw[i] - '0');
        if (i == n) return raw[0] == '-' ? -v : v;
      }
      // The double is only needed for "1.5" or "1e3".
      return IntFromNumberText(raw, !HasFractionOrExponent(raw) ? 0 : NumberOf(raw));
    }
    case RawType::kString: {
      std::string scratch;
      std::string_view s;
      if (!StringOf(raw, &scratch, &s)) return std::nullopt;
      return IntFromString(std::string(s));
    }
    default:
      return std::nullopt;
  }
}

}  // namespace fathom::json
