#include "core/sql/perfetto_sql/auto_id.h"

#include <vector>

#include "core/sql/perfetto_sql/tokenizer.h"

namespace fathom::psql {

std::string RewriteAutoId(std::string_view sql) {
  if (sql.find("_auto_id") == std::string_view::npos) return std::string(sql);
  const std::vector<Token> tokens = Tokenize(sql);
  std::string out;
  size_t copied = 0;  // text before this offset is in `out`
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind != TokenKind::kIdent || !t.IsWord("_auto_id")) continue;
    // A qualifier right before it: `x._auto_id` (no space, as SQL writes it).
    size_t begin = t.offset;
    std::string qualifier;
    if (i >= 2 && tokens[i - 1].Is(".") &&
        (tokens[i - 2].kind == TokenKind::kIdent ||
         tokens[i - 2].kind == TokenKind::kQuotedIdent)) {
      begin = tokens[i - 2].offset;
      qualifier = std::string(tokens[i - 2].text) + ".";
    }
    out.append(sql.substr(copied, begin - copied));
    out += "(" + qualifier + "rowid - 1)";
    copied = t.offset + t.size;
  }
  out.append(sql.substr(copied));
  return out;
}

}  // namespace fathom::psql
