#include "core/sql/perfetto_sql/macros.h"

#include "core/sql/perfetto_sql/tokenizer.h"

namespace fathom::psql {
namespace {

// Deeper than any real library nests; stops a macro that calls itself.
constexpr int kMaxDepth = 64;

std::string_view Trim(std::string_view s) {
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// `s` trimmed, with each comment turned into a space: an argument's
// `-- comment` would otherwise swallow what follows it in the expansion.
std::string CleanArg(std::string_view s) {
  std::string out;
  for (const Token& t : Tokenize(Trim(s)))
    out += t.kind == TokenKind::kComment ? std::string_view(" ") : t.text;
  return std::string(Trim(out));
}

// Finds the significant token after `i`; tokens.size() if none.
size_t NextSig(const std::vector<Token>& t, size_t i) {
  for (++i; i < t.size(); ++i)
    if (t[i].significant()) return i;
  return t.size();
}

// Splits the text between the parentheses at tokens[open] into comma
// separated arguments (at depth 1), trimmed. Sets *close to the index of the
// matching ')'; false when there is none.
bool SplitArgs(std::string_view text, const std::vector<Token>& t, size_t open,
               std::vector<std::string>* args, size_t* close) {
  int depth = 0;
  size_t arg_begin = t[open].offset + 1;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i].Is("(")) {
      ++depth;
    } else if (t[i].Is(")")) {
      if (--depth == 0) {
        std::string last = CleanArg(text.substr(arg_begin, t[i].offset - arg_begin));
        if (!last.empty() || !args->empty()) args->push_back(last);
        *close = i;
        return true;
      }
    } else if (t[i].Is(",") && depth == 1) {
      args->push_back(CleanArg(text.substr(arg_begin, t[i].offset - arg_begin)));
      arg_begin = t[i].offset + 1;
    }
  }
  return false;
}

// "(a, b)" -> {"a", "b"}; a bare token list counts as one element.
std::vector<std::string> ListElements(std::string_view list) {
  std::vector<Token> t = Tokenize(list);
  size_t first = t.empty() || t[0].significant() ? 0 : NextSig(t, 0);
  std::vector<std::string> parts;
  size_t close = 0;
  if (first < t.size() && t[first].Is("(") && SplitArgs(list, t, first, &parts, &close) &&
      NextSig(t, close) == t.size()) {
    return parts;
  }
  if (Trim(list).empty()) return {};
  return {CleanArg(list)};
}

// As upstream: the argument's text between single quotes, its own quotes
// left as they are (so `foo''` becomes the string foo').
std::string Quote(std::string_view s) { return "'" + std::string(s) + "'"; }

bool Expand(std::string_view text, const MacroTable& macros, int depth, std::string* out,
            SqlError* err);

// The text an intrinsic macro call stands for (not yet expanded again).
bool Intrinsic(std::string_view name, const std::vector<std::string>& args, std::string* out,
               SqlError* err) {
  if (name == "__intrinsic_stringify" || name == "__intrinsic_stringify_ignore_table") {
    if (args.size() != 1) return *err = {std::string(name) + "!: takes one argument", -1}, false;
    *out = Quote(args[0]);
    return true;
  }
  std::string_view sep, prefix;
  if (name == "__intrinsic_token_apply") {
    sep = ", ";
  } else if (name == "__intrinsic_token_apply_and") {
    sep = " AND ";
  } else if (name == "__intrinsic_token_apply_prefix") {
    prefix = ", ";
  } else if (name == "__intrinsic_token_apply_and_prefix") {
    prefix = " AND ";
  } else {
    return *err = {"unknown macro '" + std::string(name) + "!'", -1}, false;
  }
  if (args.size() < 2) return *err = {std::string(name) + "!: takes a macro and lists", -1}, false;
  std::vector<std::vector<std::string>> lists;
  size_t n = SIZE_MAX;
  for (size_t i = 1; i < args.size(); ++i) {
    lists.push_back(ListElements(args[i]));
    n = std::min(n, lists.back().size());
  }
  out->clear();
  for (size_t k = 0; k < n; ++k) {
    *out += k == 0 ? prefix : std::string_view(prefix.empty() ? sep : prefix);
    *out += args[0] + "!(";
    for (size_t l = 0; l < lists.size(); ++l) *out += (l ? ", " : "") + lists[l][k];
    *out += ")";
  }
  return true;
}

// The body of `m` with each `$param` replaced by its argument.
std::string Substitute(const Macro& m, const std::vector<std::string>& args) {
  std::string out;
  for (const Token& t : Tokenize(m.body)) {
    bool done = false;
    if (t.kind == TokenKind::kVariable && t.text[0] == '$') {
      for (size_t p = 0; p < m.params.size(); ++p) {
        if (t.text.substr(1) == m.params[p]) {
          out += args[p];
          done = true;
          break;
        }
      }
    }
    if (!done) out += t.text;
  }
  return out;
}

// Expands the call `name!(args)`; `args` are expanded already.
bool ExpandCall(std::string_view name, const std::vector<std::string>& args,
                const MacroTable& macros, int depth, std::string* out, SqlError* err) {
  std::string text;
  if (name.substr(0, 12) == "__intrinsic_") {
    if (!Intrinsic(name, args, &text, err)) return false;
  } else {
    const Macro* m = macros.Find(name);
    if (!m) return *err = {"unknown macro '" + std::string(name) + "!'", -1}, false;
    if (args.size() != m->params.size()) {
      *err = {"macro " + std::string(name) + "! takes " + std::to_string(m->params.size()) +
                  " arguments, " + std::to_string(args.size()) + " given",
              -1};
      return false;
    }
    text = Substitute(*m, args);
  }
  return Expand(text, macros, depth + 1, out, err);
}

bool Expand(std::string_view text, const MacroTable& macros, int depth, std::string* out,
            SqlError* err) {
  if (depth > kMaxDepth)
    return *err = {"macro expansion nested over 64 deep (does a macro call itself?)", -1}, false;
  std::vector<Token> t = Tokenize(text);
  size_t copied = 0;  // text before this offset is in *out
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].kind != TokenKind::kIdent) continue;
    size_t bang = NextSig(t, i);
    if (bang >= t.size() || !t[bang].Is("!")) continue;
    size_t open = NextSig(t, bang);
    const long at = t[i].offset;
    if (open >= t.size() || !t[open].Is("("))
      return *err = {"expected '(' after '" + std::string(t[i].text) + "!'", at}, false;
    std::vector<std::string> raw;
    size_t close = 0;
    if (!SplitArgs(text, t, open, &raw, &close))
      return *err = {"macro call '" + std::string(t[i].text) + "!(' is never closed", at}, false;
    std::vector<std::string> args;
    for (const std::string& a : raw) {
      std::string e;
      if (!Expand(a, macros, depth + 1, &e, err)) return err->offset = at, false;
      args.push_back(std::move(e));
    }
    std::string expansion;
    if (!ExpandCall(t[i].text, args, macros, depth, &expansion, err))
      return err->offset = at, false;
    out->append(text.substr(copied, t[i].offset - copied));
    // Spaces keep the expansion from gluing to its neighbours' tokens.
    *out += " " + expansion + " ";
    copied = t[close].offset + 1;
    i = close;
  }
  out->append(text.substr(copied));
  return true;
}

}  // namespace

bool MacroTable::Define(Macro m, bool replace) {
  auto it = macros_.find(m.name);
  if (it != macros_.end() && !replace) return false;
  std::string name = m.name;
  macros_[name] = std::move(m);
  return true;
}

const Macro* MacroTable::Find(std::string_view name) const {
  auto it = macros_.find(name);
  return it == macros_.end() ? nullptr : &it->second;
}

bool ExpandMacros(std::string_view text, const MacroTable& macros, std::string* out,
                  SqlError* err) {
  out->clear();
  return Expand(text, macros, 0, out, err);
}

}  // namespace fathom::psql
