// The PerfettoSQL tokenizer: SQLite's lexical rules plus $args and name!(...).
#include "core/sql/perfetto_sql/tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace fathom::psql {
namespace {

using K = TokenKind;

// Significant tokens as "kind:text".
std::vector<std::pair<K, std::string>> Sig(std::string_view text) {
  std::vector<std::pair<K, std::string>> out;
  for (const Token& t : Tokenize(text))
    if (t.significant()) out.emplace_back(t.kind, std::string(t.text));
  return out;
}

TEST(PerfettoSqlTokenizer, CoversTheWholeTextInOrder) {
  const std::string text = "select a.b, 'x''y' -- c\n/* d */ from \"t\"\"u\"; $x";
  size_t at = 0;
  for (const Token& t : Tokenize(text)) {
    EXPECT_EQ(t.offset, at);
    EXPECT_EQ(t.text, std::string_view(text).substr(t.offset, t.size));
    at += t.size;
  }
  EXPECT_EQ(at, text.size());
}

TEST(PerfettoSqlTokenizer, StringsQuotedNamesAndComments) {
  auto t = Sig("'it''s; here' \"a;\"\"b\" `c;d` [e;f] x'0aF' -- no;\n/* no; */ ;");
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[0], std::make_pair(K::kString, std::string("'it''s; here'")));
  EXPECT_EQ(t[1], std::make_pair(K::kQuotedIdent, std::string("\"a;\"\"b\"")));
  EXPECT_EQ(t[2], std::make_pair(K::kQuotedIdent, std::string("`c;d`")));
  EXPECT_EQ(t[3], std::make_pair(K::kQuotedIdent, std::string("[e;f]")));
  EXPECT_EQ(t[4], std::make_pair(K::kBlob, std::string("x'0aF'")));
  EXPECT_EQ(t[5].first, K::kSemicolon);
  EXPECT_EQ(UnquoteIdentView("[e;f]"), "e;f");
}

TEST(PerfettoSqlTokenizer, NumbersVariablesOperators) {
  auto t = Sig("1 2.5e-3 .5 0x1F $arg :n @m ?3 a<=b||c != d->>'e' m!(x)");
  std::vector<std::string> texts;
  for (auto& [k, s] : t) texts.push_back(s);
  EXPECT_EQ(texts, (std::vector<std::string>{
                       "1",  "2.5e-3", ".5", "0x1F", "$arg", ":n",  "@m", "?3", "a", "<=", "b",
                       "||", "c",      "!=", "d",    "->>",  "'e'", "m",  "!",  "(", "x",  ")"}));
  EXPECT_EQ(t[0].first, K::kNumber);
  EXPECT_EQ(t[4].first, K::kVariable);
  EXPECT_EQ(t[18].first, K::kPunct);  // the macro call's '!'
}

TEST(PerfettoSqlTokenizer, BadInputBecomesIllegalTokensNotACrash) {
  for (std::string_view bad : {"'unterminated", "\"open", "[open", "x'00", "a # b", "$", "\x01"}) {
    auto tokens = Tokenize(bad);
    bool illegal = false;
    for (const Token& t : tokens) illegal = illegal || t.kind == K::kIllegal;
    EXPECT_TRUE(illegal) << bad;
  }
  // An unterminated block comment runs to the end, as in SQLite.
  auto t = Tokenize("select 1 /* open");
  EXPECT_EQ(t.back().kind, K::kComment);
}

}  // namespace
}  // namespace fathom::psql
