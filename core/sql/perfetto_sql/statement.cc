#include "core/sql/perfetto_sql/statement.h"

#include <optional>
#include <string>
#include <vector>

#include "core/sql/perfetto_sql/tokenizer.h"

namespace fathom::psql {
namespace {

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

// A CREATE [TEMP] TRIGGER statement holds ';' between BEGIN and END.
bool StartsTrigger(const std::vector<const Token*>& sig) {
  if (sig.empty() || !sig[0]->IsWord("create")) return false;
  size_t i = 1;
  if (i < sig.size() && (sig[i]->IsWord("temp") || sig[i]->IsWord("temporary"))) ++i;
  return i < sig.size() && sig[i]->IsWord("trigger");
}

// Walks the significant tokens of one statement.
class Cursor {
 public:
  Cursor(std::string_view text, std::vector<Token> tokens) : text_(text) {
    for (const Token& t : tokens)
      if (t.significant()) sig_.push_back(t);
  }
  bool AtEnd() const { return i_ >= sig_.size(); }
  const Token* Peek(size_t ahead = 0) const {
    return i_ + ahead < sig_.size() ? &sig_[i_ + ahead] : nullptr;
  }
  bool TakeWord(std::string_view w) {
    if (Peek() && Peek()->IsWord(w)) return ++i_, true;
    return false;
  }
  bool TakePunct(std::string_view p) {
    if (Peek() && Peek()->Is(p)) return ++i_, true;
    return false;
  }
  // A name: a bare word or a quoted identifier.
  bool TakeName(std::string* out) {
    const Token* t = Peek();
    if (!t || (t->kind != TokenKind::kIdent && t->kind != TokenKind::kQuotedIdent)) return false;
    *out = std::string(UnquoteIdentView(t->text));
    ++i_;
    return true;
  }
  const Token& Take() { return sig_[i_++]; }
  long Offset() const { return AtEnd() ? static_cast<long>(text_.size()) : Peek()->offset; }
  SqlError Error(const std::string& what) const {
    std::string near = AtEnd() ? "the end of the statement" : "'" + std::string(Peek()->text) + "'";
    return SqlError{what + " (near " + near + ")", Offset()};
  }
  // The text from the current token to the end of the statement.
  std::string_view Rest() const { return AtEnd() ? std::string_view() : text_.substr(Offset()); }

 private:
  std::string_view text_;
  std::vector<Token> sig_;
  size_t i_ = 0;
};

// A type: a word, with an optional parenthesised argument ("JOINID(slice.id)").
bool ParseType(Cursor* c, std::string* type) {
  const Token* t = c->Peek();
  if (!t || t->kind != TokenKind::kIdent) return false;
  *type = Upper(c->Take().text);
  if (c->TakePunct("(")) {
    *type += "(";
    int depth = 1;
    while (!c->AtEnd() && depth > 0) {
      const Token& x = c->Take();
      if (x.Is("(")) ++depth;
      if (x.Is(")")) --depth;
      if (depth > 0) *type += Upper(x.text);
    }
    if (depth > 0) return false;
    *type += ")";
  }
  return true;
}

// "(name TYPE, ...)"; `allow_dollar` accepts "$name" (function arguments).
bool ParseDecls(Cursor* c, bool allow_dollar, std::vector<ColumnDecl>* out, SqlError* err) {
  if (!c->TakePunct("(")) return *err = c->Error("expected '('"), false;
  if (c->TakePunct(")")) return true;
  do {
    ColumnDecl d;
    const Token* t = c->Peek();
    if (allow_dollar && t && t->kind == TokenKind::kVariable && t->text[0] == '$') {
      d.name = std::string(c->Take().text.substr(1));
    } else if (!c->TakeName(&d.name)) {
      return *err = c->Error("expected a name"), false;
    }
    if (!ParseType(c, &d.type))
      return *err = c->Error("expected the type of '" + d.name + "'"), false;
    // `TYPE...` makes a function's last argument variadic.
    if (allow_dollar && c->Peek() && c->Peek()->Is(".") && c->Peek(1) && c->Peek(1)->Is(".") &&
        c->Peek(2) && c->Peek(2)->Is(".")) {
      c->TakePunct(".");
      c->TakePunct(".");
      c->TakePunct(".");
      d.variadic = true;
      if (c->Peek() && c->Peek()->Is(","))
        return *err = c->Error("only the last argument can be variadic"), false;
    }
    out->push_back(std::move(d));
  } while (c->TakePunct(","));
  if (!c->TakePunct(")")) return *err = c->Error("expected ',' or ')'"), false;
  return true;
}

bool ParseAsBody(Cursor* c, std::string* body, size_t* offset, SqlError* err) {
  if (!c->TakeWord("as")) return *err = c->Error("expected AS"), false;
  if (c->AtEnd()) return *err = c->Error("expected a body after AS"), false;
  *offset = static_cast<size_t>(c->Offset());
  *body = std::string(c->Rest());
  return true;
}

bool ParseInclude(Cursor* c, IncludeModule* out, SqlError* err) {
  std::string key;
  while (!c->AtEnd()) {
    const Token& t = c->Take();
    if (t.kind != TokenKind::kIdent && !t.Is(".") && !t.Is("*"))
      return *err = SqlError{"INCLUDE PERFETTO MODULE: unexpected '" + std::string(t.text) +
                                 "' in the module name",
                             t.offset},
             false;
    key += t.text;
  }
  if (key.empty() || key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos)
    return *err = c->Error("INCLUDE PERFETTO MODULE: expected a module name like a.b.c or a.b.*"),
           false;
  out->module = std::move(key);
  return true;
}

bool ParseTableOrView(Cursor* c, bool replace, bool view, CreateTableOrView* out, SqlError* err) {
  out->replace = replace;
  out->view = view;
  if (!c->TakeName(&out->name)) return *err = c->Error("expected a name"), false;
  if (c->Peek() && c->Peek()->Is("(")) {
    out->has_schema = true;
    if (!ParseDecls(c, false, &out->columns, err)) return false;
  }
  return ParseAsBody(c, &out->body, &out->body_offset, err);
}

bool ParseFunction(Cursor* c, bool replace, CreateFunction* out, SqlError* err) {
  out->replace = replace;
  if (!c->TakeName(&out->name)) return *err = c->Error("expected a function name"), false;
  if (!ParseDecls(c, true, &out->args, err)) return false;
  if (!c->TakeWord("returns")) return *err = c->Error("expected RETURNS"), false;
  if (c->TakeWord("table")) {
    out->returns_table = true;
    if (!ParseDecls(c, false, &out->return_columns, err)) return false;
  } else if (!ParseType(c, &out->return_type)) {
    return *err = c->Error("expected the return type"), false;
  }
  if (c->TakeWord("delegates")) {
    out->body_offset = static_cast<size_t>(c->Offset());
    if (!c->TakeWord("to") || !c->TakeName(&out->delegate) || !c->AtEnd())
      return *err = c->Error("expected DELEGATES TO function_name"), false;
    out->body = "SELECT " + out->delegate + "(";
    for (size_t i = 0; i < out->args.size(); ++i)
      out->body += (i ? ", $" : "$") + out->args[i].name;
    out->body += ")";
    return true;
  }
  return ParseAsBody(c, &out->body, &out->body_offset, err);
}

bool ParseMacro(Cursor* c, bool replace, CreateMacro* out, SqlError* err) {
  out->replace = replace;
  if (!c->TakeName(&out->name)) return *err = c->Error("expected a macro name"), false;
  if (!ParseDecls(c, true, &out->args, err)) return false;
  if (!c->TakeWord("returns")) return *err = c->Error("expected RETURNS"), false;
  if (!ParseType(c, &out->return_type)) return *err = c->Error("expected the return type"), false;
  return ParseAsBody(c, &out->body, &out->body_offset, err);
}

bool ParseIndexTarget(Cursor* c, std::string* name, std::string* table, SqlError* err) {
  if (!c->TakeName(name)) return *err = c->Error("expected an index name"), false;
  if (!c->TakeWord("on")) return *err = c->Error("expected ON"), false;
  if (!c->TakeName(table)) return *err = c->Error("expected a table name"), false;
  return true;
}

bool ParseIndex(Cursor* c, bool replace, CreateIndex* out, SqlError* err) {
  out->replace = replace;
  if (!ParseIndexTarget(c, &out->name, &out->table, err)) return false;
  if (!c->TakePunct("(")) return *err = c->Error("expected '('"), false;
  do {
    std::string col;
    if (!c->TakeName(&col)) return *err = c->Error("expected a column name"), false;
    out->columns.push_back(std::move(col));
  } while (c->TakePunct(","));
  if (!c->TakePunct(")")) return *err = c->Error("expected ',' or ')'"), false;
  if (!c->AtEnd()) return *err = c->Error("unexpected text after the index"), false;
  return true;
}

// After CREATE [OR REPLACE] PERFETTO.
bool ParseCreate(Cursor* c, bool replace, Statement* out, SqlError* err) {
  const bool table = c->TakeWord("table");
  const bool view = !table && c->TakeWord("view");
  if (table || view) {
    CreateTableOrView s;
    if (!ParseTableOrView(c, replace, view, &s, err)) return false;
    *out = std::move(s);
  } else if (c->TakeWord("function")) {
    CreateFunction s;
    if (!ParseFunction(c, replace, &s, err)) return false;
    *out = std::move(s);
  } else if (c->TakeWord("macro")) {
    CreateMacro s;
    if (!ParseMacro(c, replace, &s, err)) return false;
    *out = std::move(s);
  } else if (c->TakeWord("index")) {
    CreateIndex s;
    if (!ParseIndex(c, replace, &s, err)) return false;
    *out = std::move(s);
  } else {
    return *err = c->Error("expected TABLE, VIEW, FUNCTION, MACRO or INDEX after CREATE PERFETTO"),
           false;
  }
  return true;
}

// `SELECT name('a', 'b', ...)` with string literals only (and an optional
// ';'): the function's upper-case name and the unquoted strings.
bool LegacyCallOf(const Cursor& c, std::string* name, std::vector<std::string>* args) {
  if (!c.Peek() || !c.Peek()->IsWord("select") || !c.Peek(1) || !c.Peek(2) || !c.Peek(2)->Is("("))
    return false;
  *name = Upper(c.Peek(1)->text);
  size_t i = 3;
  for (;; i += 2) {
    const Token* t = c.Peek(i);
    if (!t || t->kind != TokenKind::kString) return false;
    std::string v;
    for (size_t k = 1; k + 1 < t->text.size(); ++k) {
      v += t->text[k];
      if (t->text[k] == '\'' && k + 2 < t->text.size() && t->text[k + 1] == '\'') ++k;
    }
    args->push_back(v);
    const Token* sep = c.Peek(i + 1);
    if (sep && sep->Is(",")) continue;
    if (!sep || !sep->Is(")")) return false;
    break;
  }
  const Token* end = c.Peek(i + 2);
  return !end || (end->Is(";") && !c.Peek(i + 3));
}

// The older spellings upstream still accepts, which give no result set:
// SELECT IMPORT('a.b.c'), SELECT EXPERIMENTAL_MEMOIZE('f'), SELECT create_function('f(x INT)',
// 'INT', 'body') and SELECT create_view_function('f(x INT)', 'col INT, ...', 'body'), the latter
// two as CREATE OR REPLACE PERFETTO FUNCTION.
std::optional<ParseResult> ParseLegacyCall(const Cursor& c) {
  std::string name;
  std::vector<std::string> args;
  if (!LegacyCallOf(c, &name, &args)) return std::nullopt;
  ParseResult r;
  if (name == "IMPORT" && args.size() == 1) {
    IncludeModule inc;
    inc.module = args[0];
    r.statement = std::move(inc);
    return r;
  }
  if (name == "EXPERIMENTAL_MEMOIZE" && args.size() == 1) {
    r.statement = Memoize{args[0]};
    return r;
  }
  std::string text;
  if (name == "CREATE_FUNCTION" && args.size() == 3)
    text =
        "CREATE OR REPLACE PERFETTO FUNCTION " + args[0] + " RETURNS " + args[1] + " AS " + args[2];
  if (name == "CREATE_VIEW_FUNCTION" && args.size() == 3)
    text = "CREATE OR REPLACE PERFETTO FUNCTION " + args[0] + " RETURNS TABLE(" + args[1] +
           ") AS " + args[2];
  if (text.empty()) return std::nullopt;
  r = ParseStatement(text);
  // Offsets into the rewritten text mean nothing to the caller.
  r.error.offset = 0;
  if (auto* f = std::get_if<CreateFunction>(&r.statement)) f->body_offset = 0;
  return r;
}

}  // namespace

std::vector<StatementSpan> SplitStatements(std::string_view text) {
  std::vector<StatementSpan> out;
  std::vector<Token> tokens = Tokenize(text);
  std::vector<const Token*> sig;  // of the statement being read
  int block = 0;                  // BEGIN/CASE ... END depth inside a trigger
  auto flush = [&]() {
    if (!sig.empty()) out.push_back({sig.front()->offset, sig.back()->offset + sig.back()->size});
    sig.clear();
    block = 0;
  };
  for (const Token& t : tokens) {
    if (t.kind == TokenKind::kSemicolon && block == 0) {
      flush();
      continue;
    }
    if (!t.significant()) continue;
    sig.push_back(&t);
    if (StartsTrigger(sig)) {
      if (t.IsWord("begin") || t.IsWord("case")) ++block;
      if (t.IsWord("end") && block > 0) --block;
    }
  }
  flush();
  return out;
}

ParseResult ParseStatement(std::string_view text) {
  ParseResult r;
  Cursor c(text, Tokenize(text));
  bool perfetto = false;
  if (c.TakeWord("include")) {
    if (!c.TakeWord("perfetto")) return r;  // not ours: SQLite will say what is wrong
    if (!c.TakeWord("module")) {
      r.ok = false;
      r.error = c.Error("expected MODULE after INCLUDE PERFETTO");
      return r;
    }
    IncludeModule inc;
    r.ok = ParseInclude(&c, &inc, &r.error);
    r.statement = std::move(inc);
    return r;
  }
  if (auto legacy = ParseLegacyCall(c)) return *legacy;
  if (c.TakeWord("create")) {
    bool replace = false;
    if (c.Peek() && c.Peek()->IsWord("or") && c.Peek(1) && c.Peek(1)->IsWord("replace") &&
        c.Peek(2) && c.Peek(2)->IsWord("perfetto")) {
      c.TakeWord("or");
      c.TakeWord("replace");
      replace = true;
    }
    perfetto = c.TakeWord("perfetto");
    if (perfetto) r.ok = ParseCreate(&c, replace, &r.statement, &r.error);
    return r;
  }
  if (c.TakeWord("drop") && c.TakeWord("perfetto")) {
    DropIndex d;
    if (!c.TakeWord("index")) {
      r.ok = false;
      r.error = c.Error("expected INDEX after DROP PERFETTO");
      return r;
    }
    r.ok = ParseIndexTarget(&c, &d.name, &d.table, &r.error);
    r.statement = std::move(d);
  }
  return r;
}

}  // namespace fathom::psql
