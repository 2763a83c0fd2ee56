// A tokenizer for SQLite text with PerfettoSQL's additions ($args, `name!(...)`
// macro calls). It never fails: text SQLite would reject (an unterminated
// string, a stray character) becomes a kIllegal token for the parser or
// SQLite to report.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace fathom::psql {

enum class TokenKind {
  kSpace,        // whitespace
  kComment,      // -- to end of line, or /* ... */
  kIdent,        // a bare word (keywords included: the parser knows which it needs)
  kQuotedIdent,  // "x", `x` or [x]
  kString,       // 'x'
  kBlob,         // x'00ff'
  kNumber,       // 12, 1.5e3, 0x1f
  kVariable,     // $name, :name, @name, ?, ?12
  kSemicolon,    // ;
  kPunct,        // an operator or bracket, e.g. "(", "<=", "||", "!"
  kIllegal,      // what SQLite would not accept
};

struct Token {
  TokenKind kind = TokenKind::kIllegal;
  uint32_t offset = 0;  // into the text given to Tokenize
  uint32_t size = 0;
  std::string_view text;  // a view into that text

  bool significant() const { return kind != TokenKind::kSpace && kind != TokenKind::kComment; }
  bool Is(std::string_view punct) const { return kind == TokenKind::kPunct && text == punct; }
  // A bare word equal to `word` ignoring ASCII case (keywords).
  bool IsWord(std::string_view word) const;
};

// Splits `text` into tokens covering it entirely, in order.
std::vector<Token> Tokenize(std::string_view text);

// `text` less a pair of SQL identifier quotes ("x", `x`, [x]) with doubled quotes undone.
std::string_view UnquoteIdentView(std::string_view text);

// ASCII case-insensitive equality.
bool EqualsNoCase(std::string_view a, std::string_view b);

}  // namespace fathom::psql
