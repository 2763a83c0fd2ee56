#include "core/sql/perfetto_sql/tokenizer.h"

#include <tuple>
#include <utility>

namespace fathom::psql {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
// SQLite counts every byte >= 0x80 as part of an identifier (UTF-8 names).
bool IsIdStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IsIdChar(char c) { return IsIdStart(c) || IsDigit(c) || c == '$'; }

// Length of a quoted run starting at `i` (the opening quote) whose closing
// quote is `close`, doubled to escape it when `doubling`; 0 when unterminated.
size_t QuotedLength(std::string_view s, size_t i, char close, bool doubling) {
  for (size_t j = i + 1; j < s.size(); ++j) {
    if (s[j] != close) continue;
    if (doubling && j + 1 < s.size() && s[j + 1] == close) {
      ++j;
      continue;
    }
    return j + 1 - i;
  }
  return 0;
}

size_t NumberLength(std::string_view s, size_t i) {
  size_t j = i;
  if (s[j] == '0' && j + 2 < s.size() && (s[j + 1] == 'x' || s[j + 1] == 'X') && IsHex(s[j + 2])) {
    j += 2;
    while (j < s.size() && (IsHex(s[j]) || s[j] == '_')) ++j;
    return j - i;
  }
  while (j < s.size() && (IsDigit(s[j]) || s[j] == '_')) ++j;
  if (j < s.size() && s[j] == '.') {
    ++j;
    while (j < s.size() && (IsDigit(s[j]) || s[j] == '_')) ++j;
  }
  if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
    size_t k = j + 1;
    if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
    if (k < s.size() && IsDigit(s[k])) {
      j = k;
      while (j < s.size() && IsDigit(s[j])) ++j;
    }
  }
  // SQLite rejects a number running straight into a word ("12abc").
  while (j < s.size() && IsIdChar(s[j])) ++j;
  return j - i;
}

// Two- and three-character operators, longest first.
size_t OperatorLength(std::string_view s, size_t i) {
  static constexpr std::string_view kOps[] = {
      "->>", "||", "<=", ">=", "==", "!=", "<>", "<<", ">>", "->"};
  for (std::string_view op : kOps)
    if (s.substr(i, op.size()) == op) return op.size();
  return 1;
}

// The kind and length of the token at `i` (not space or comment).
std::pair<TokenKind, size_t> Scan(std::string_view s, size_t i) {
  const char c = s[i];
  const size_t rest = s.size() - i;
  if (c == '\'') {
    size_t n = QuotedLength(s, i, '\'', true);
    return n ? std::pair{TokenKind::kString, n} : std::pair{TokenKind::kIllegal, rest};
  }
  if (c == '"' || c == '`' || c == '[') {
    size_t n = QuotedLength(s, i, c == '[' ? ']' : c, c != '[');
    return n ? std::pair{TokenKind::kQuotedIdent, n} : std::pair{TokenKind::kIllegal, rest};
  }
  if ((c == 'x' || c == 'X') && rest > 1 && s[i + 1] == '\'') {
    size_t n = QuotedLength(s, i + 1, '\'', false);
    return n ? std::pair{TokenKind::kBlob, n + 1} : std::pair{TokenKind::kIllegal, rest};
  }
  if (IsDigit(c) || (c == '.' && rest > 1 && IsDigit(s[i + 1])))
    return {TokenKind::kNumber, NumberLength(s, i)};
  if (IsIdStart(c)) {
    size_t j = i + 1;
    while (j < s.size() && IsIdChar(s[j])) ++j;
    return {TokenKind::kIdent, j - i};
  }
  if (c == '?') {
    size_t j = i + 1;
    while (j < s.size() && IsDigit(s[j])) ++j;
    return {TokenKind::kVariable, j - i};
  }
  if (c == '$' || c == ':' || c == '@' || c == '#') {
    size_t j = i + 1;
    while (j < s.size() && IsIdChar(s[j])) ++j;
    if (j == i + 1) return {TokenKind::kIllegal, 1};
    return {TokenKind::kVariable, j - i};
  }
  if (c == ';') return {TokenKind::kSemicolon, 1};
  static constexpr std::string_view kPunct = "()[],.+-*/%<>=!|&~";
  if (kPunct.find(c) != std::string_view::npos) return {TokenKind::kPunct, OperatorLength(s, i)};
  return {TokenKind::kIllegal, 1};
}

}  // namespace

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool Token::IsWord(std::string_view word) const {
  return kind == TokenKind::kIdent && EqualsNoCase(text, word);
}

std::vector<Token> Tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < s.size()) {
    TokenKind kind;
    size_t n;
    if (IsSpace(s[i])) {
      n = 1;
      while (i + n < s.size() && IsSpace(s[i + n])) ++n;
      kind = TokenKind::kSpace;
    } else if (s.substr(i, 2) == "--") {
      size_t nl = s.find('\n', i);
      n = (nl == std::string_view::npos ? s.size() : nl) - i;
      kind = TokenKind::kComment;
    } else if (s.substr(i, 2) == "/*") {
      // As SQLite: an unterminated block comment runs to the end.
      size_t end = s.find("*/", i + 2);
      n = (end == std::string_view::npos ? s.size() : end + 2) - i;
      kind = TokenKind::kComment;
    } else {
      std::tie(kind, n) = Scan(s, i);
    }
    Token t;
    t.kind = kind;
    t.offset = static_cast<uint32_t>(i);
    t.size = static_cast<uint32_t>(n);
    t.text = s.substr(i, n);
    out.push_back(t);
    i += n;
  }
  return out;
}

std::string_view UnquoteIdentView(std::string_view t) {
  if (t.size() >= 2 &&
      ((t.front() == '"' && t.back() == '"') || (t.front() == '`' && t.back() == '`') ||
       (t.front() == '[' && t.back() == ']')))
    return t.substr(1, t.size() - 2);
  return t;
}

}  // namespace fathom::psql
