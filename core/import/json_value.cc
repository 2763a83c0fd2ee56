#include "core/import/json_value.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "core/base/utf8.h"

namespace fathom::json {

namespace {

bool ReadHex4(const char* p, const char* end, uint32_t* out) {
  if (end - p < 4) return false;
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    char h = p[i];
    v <<= 4;
    if (h >= '0' && h <= '9')
      v |= static_cast<uint32_t>(h - '0');
    else if (h >= 'a' && h <= 'f')
      v |= static_cast<uint32_t>(h - 'a' + 10);
    else if (h >= 'A' && h <= 'F')
      v |= static_cast<uint32_t>(h - 'A' + 10);
    else
      return false;
  }
  *out = v;
  return true;
}

}  // namespace

const char* DecodeStringBody(const char* p, const char* end, std::string* out, const char** stop) {
  // Fast path: no escapes before the closing quote.
  const char* q = p;
  while (q < end && *q != '"' && *q != '\\') ++q;
  if (q < end && *q == '"') {
    out->assign(p, static_cast<size_t>(q - p));
    return q + 1;
  }
  out->clear();
  auto fail = [&](const char* at) -> const char* {
    if (stop) *stop = at;
    return nullptr;
  };
  while (p < end) {
    char c = *p++;
    if (c == '"') return p;
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    if (p >= end) return fail(p);
    char e = *p++;
    switch (e) {
      case '"':
        out->push_back('"');
        break;
      case '\\':
        out->push_back('\\');
        break;
      case '/':
        out->push_back('/');
        break;
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'u': {
        uint32_t cp;
        if (!ReadHex4(p, end, &cp)) return fail(p);
        p += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
          uint32_t low;
          if (!ReadHex4(p + 2, end, &low)) return fail(p + 2);
          p += 6;
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        AppendUtf8(cp, out);
        break;
      }
      default:
        return fail(p);
    }
  }
  return fail(p);
}

namespace {

// "123", "-4.25": at most 15 significant digits and 22 decimals, so the
// digits and the power of ten are exact doubles and one (correctly
// rounded) division gives what strtod gives. Anything else: strtod.
bool FastNumber(std::string_view t, double* out) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && t[i] == '-') neg = true, ++i;
  uint64_t digits = 0;
  int n = 0, decimals = 0;
  bool dot = false, any = false;
  for (; i < t.size(); ++i) {
    char c = t[i];
    if (c >= '0' && c <= '9') {
      any = true;
      if (digits == 0 && c == '0' && !dot) continue;
      if (++n > 15) return false;
      digits = digits * 10 + static_cast<uint64_t>(c - '0');
      if (dot) ++decimals;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      return false;
    }
  }
  if (!any || decimals > 22) return false;
  // Leading zeros after the point ("0.001") count as decimals too.
  if (dot) {
    size_t point = t.find('.');
    int all = static_cast<int>(t.size() - point - 1);
    decimals = all;
    if (decimals > 22) return false;
  }
  double d = static_cast<double>(digits) / kPow10[decimals];
  *out = neg ? -d : d;
  return true;
}

}  // namespace

bool NumberFromText(std::string_view text, double* out) {
  if (FastNumber(text, out)) return true;
  std::string tmp(text);
  char* end = nullptr;
  *out = strtod(tmp.c_str(), &end);
  return end != tmp.c_str();
}

namespace {

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  std::optional<Value> ReadDocument() {
    auto v = ReadValue(0);
    if (!v) return std::nullopt;
    SkipSpace();
    if (p_ != s_.size()) return Fail();
    return v;
  }
  size_t offset() const { return p_; }

 private:
  static constexpr int kMaxDepth = 256;

  std::optional<Value> Fail() {
    failed_ = true;
    return std::nullopt;
  }
  void SkipSpace() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\n' || s_[p_] == '\r' || s_[p_] == '\t'))
      ++p_;
  }
  bool Consume(std::string_view word) {
    if (s_.substr(p_, word.size()) != word) return false;
    p_ += word.size();
    return true;
  }

  std::optional<Value> ReadValue(int depth) {
    if (depth > kMaxDepth) return Fail();
    SkipSpace();
    if (p_ >= s_.size()) return Fail();
    Value v;
    char c = s_[p_];
    if (c == '{') {
      ++p_;
      v.type = Value::kObject;
      if (depth == 0) v.members.reserve(8);  // an event has ~7 keys: no regrowth moves
      SkipSpace();
      if (p_ < s_.size() && s_[p_] == '}') {
        ++p_;
        return v;
      }
      while (true) {
        SkipSpace();
        std::string key;
        if (!ReadString(&key)) return Fail();
        SkipSpace();
        if (p_ >= s_.size() || s_[p_] != ':') return Fail();
        ++p_;
        auto member = ReadValue(depth + 1);
        if (!member) return Fail();
        v.members.push_back(Member{std::move(key), std::move(*member)});
        SkipSpace();
        if (p_ < s_.size() && s_[p_] == ',') {
          ++p_;
          // A trailing comma before the '}' is accepted, as upstream does.
          SkipSpace();
          if (p_ < s_.size() && s_[p_] == '}') {
            ++p_;
            return v;
          }
          continue;
        }
        if (p_ < s_.size() && s_[p_] == '}') {
          ++p_;
          return v;
        }
        return Fail();
      }
    }
    if (c == '[') {
      ++p_;
      v.type = Value::kArray;
      SkipSpace();
      if (p_ < s_.size() && s_[p_] == ']') {
        ++p_;
        return v;
      }
      while (true) {
        auto item = ReadValue(depth + 1);
        if (!item) return Fail();
        v.items.push_back(std::move(*item));
        SkipSpace();
        if (p_ < s_.size() && s_[p_] == ',') {
          ++p_;
          SkipSpace();  // a trailing comma before the ']' is accepted too
          if (p_ < s_.size() && s_[p_] == ']') {
            ++p_;
            return v;
          }
          continue;
        }
        if (p_ < s_.size() && s_[p_] == ']') {
          ++p_;
          return v;
        }
        return Fail();
      }
    }
    if (c == '"') {
      v.type = Value::kString;
      if (!ReadString(&v.str)) return Fail();
      return v;
    }
    if (Consume("true")) {
      v.type = Value::kBool;
      v.b = true;
      return v;
    }
    if (Consume("false")) {
      v.type = Value::kBool;
      return v;
    }
    if (Consume("null")) return v;
    // Number.
    size_t start = p_;
    if (p_ < s_.size() && (s_[p_] == '-' || s_[p_] == '+')) ++p_;
    while (p_ < s_.size() && (isdigit(static_cast<unsigned char>(s_[p_])) || s_[p_] == '.' ||
                              s_[p_] == 'e' || s_[p_] == 'E' || s_[p_] == '-' || s_[p_] == '+'))
      ++p_;
    if (p_ == start) return Fail();
    v.type = Value::kNumber;
    v.number_text = s_.substr(start, p_ - start);
    if (!NumberFromText(v.number_text, &v.number)) return Fail();
    return v;
  }

  bool ReadString(std::string* out) {
    if (p_ >= s_.size() || s_[p_] != '"') return false;
    const char* end = s_.data() + s_.size();
    const char* stop = nullptr;
    const char* after = DecodeStringBody(s_.data() + p_ + 1, end, out, &stop);
    if (!after) {
      p_ = static_cast<size_t>(stop - s_.data());
      return false;
    }
    p_ = static_cast<size_t>(after - s_.data());
    return true;
  }

  std::string_view s_;
  size_t p_ = 0;
  bool failed_ = false;
};

}  // namespace

std::optional<Value> Parse(std::string_view text, size_t* error_offset) {
  Reader r(text);
  auto v = r.ReadDocument();
  if (!v && error_offset) *error_offset = r.offset();
  return v;
}

std::optional<std::string_view> FindTopLevelScalar(std::string_view obj, std::string_view key) {
  size_t p = 0, n = obj.size();
  auto skip_space = [&] {
    while (p < n && (obj[p] == ' ' || obj[p] == '\n' || obj[p] == '\r' || obj[p] == '\t')) ++p;
  };
  auto skip_string = [&] {  // p at the opening quote; leaves p after the closing one
    for (++p; p < n; ++p) {
      if (obj[p] == '\\')
        ++p;
      else if (obj[p] == '"')
        return ++p, true;
    }
    return false;
  };
  skip_space();
  if (p >= n || obj[p] != '{') return std::nullopt;
  ++p;
  while (true) {
    skip_space();
    if (p >= n || obj[p] != '"') return std::nullopt;
    size_t kb = p + 1;
    if (!skip_string()) return std::nullopt;
    std::string_view k = obj.substr(kb, p - 1 - kb);
    skip_space();
    if (p >= n || obj[p] != ':') return std::nullopt;
    ++p;
    skip_space();
    if (p >= n) return std::nullopt;
    size_t vb = p;
    char c = obj[p];
    if (c == '"') {
      if (!skip_string()) return std::nullopt;
    } else if (c == '{' || c == '[') {
      int depth = 0;
      while (p < n) {
        char d = obj[p];
        if (d == '"') {
          if (!skip_string()) return std::nullopt;
          continue;
        }
        if (d == '{' || d == '[') ++depth;
        if (d == '}' || d == ']') --depth;
        ++p;
        if (depth == 0) break;
      }
    } else {
      while (p < n && obj[p] != ',' && obj[p] != '}' && obj[p] != ' ' && obj[p] != '\n' &&
             obj[p] != '\r' && obj[p] != '\t')
        ++p;
    }
    if (k == key) return obj.substr(vb, p - vb);
    skip_space();
    if (p < n && obj[p] == ',') {
      ++p;
      continue;
    }
    return std::nullopt;
  }
}

std::optional<int64_t> MicrosToNanos(const Value& v) {
  if (v.type == Value::kNumber) return MicrosTextToNanos(v.number_text);
  if (v.type == Value::kString) return MicrosTextToNanos(v.str);
  return std::nullopt;
}

namespace {

// Exponent forms ("1.5e3") go through the double.
bool ExponentMicrosToNanos(std::string_view t, int64_t* out) {
  if (t.find_first_of("eE") == std::string_view::npos) return false;
  std::string text(t);
  char* end = nullptr;
  double d = strtod(text.c_str(), &end);
  // All of it must be the number: "1.5e" or "2e+" are no time.
  if (end == text.c_str() || *end != '\0' || !std::isfinite(d)) return false;
  *out = static_cast<int64_t>(d * 1000.0);
  return true;
}

}  // namespace

bool MicrosTextToNanos(std::string_view t, int64_t* out) {
  // Integer part and up to three fraction digits as integers; anything the
  // loop does not take (an exponent) falls back to strtod.
  bool negative = false;
  size_t i = 0;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) negative = t[i++] == '-';
  int64_t whole = 0;
  bool digits = false;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
    if (whole > (INT64_MAX - 9) / 10) return ExponentMicrosToNanos(t, out);
    whole = whole * 10 + (t[i] - '0');
    digits = true;
  }
  int64_t frac = 0;
  if (i < t.size() && t[i] == '.') {
    ++i;
    int n = 0;
    for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i, ++n) {
      if (n < 3) frac = frac * 10 + (t[i] - '0');
      digits = true;
    }
    for (; n < 3; ++n) frac *= 10;
  }
  if (!digits || i != t.size()) return ExponentMicrosToNanos(t, out);
  if (whole > INT64_MAX / 1000 - 1) return false;
  int64_t ns = whole * 1000 + frac;
  *out = negative ? -ns : ns;
  return true;
}

std::optional<int64_t> AsInt(const Value& v) {
  if (v.type == Value::kNumber) return IntFromNumberText(v.number_text, v.number);
  if (v.type == Value::kString) return IntFromString(v.str);
  return std::nullopt;
}

int64_t IntFromNumberText(std::string_view text, double number) {
  // Plain digits (every pid/tid): no strtoll, no copy.
  size_t i = !text.empty() && text[0] == '-' ? 1 : 0;
  if (text.size() > i && text.size() - i <= 18) {
    int64_t v = 0;
    size_t k = i;
    for (; k < text.size() && text[k] >= '0' && text[k] <= '9'; ++k) v = v * 10 + (text[k] - '0');
    if (k == text.size()) return i ? -v : v;
  }
  if (!HasFractionOrExponent(text)) return strtoll(std::string(text).c_str(), nullptr, 10);
  return static_cast<int64_t>(number);
}

std::optional<int64_t> IntFromString(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  long long x = strtoll(s.c_str(), &end, 0);
  if (end && *end == '\0') return x;
  return std::nullopt;
}

}  // namespace fathom::json
