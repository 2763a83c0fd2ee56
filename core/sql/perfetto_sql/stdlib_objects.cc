#include "core/sql/perfetto_sql/stdlib_objects.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/utf8_path.h"
#include "core/sql/functions/table_ptr.h"
#include "core/sql/perfetto_sql/packages.h"
#include "core/sql/perfetto_sql/statement.h"
#include "core/sql/perfetto_sql/tokenizer.h"

namespace fathom::psql {
namespace {

enum Col {
  kQualifiedName,
  kModule,
  kPackage,
  kName,
  kObjectType,
  kExposed,
  kShortDescription,
  kSummary,
  kCols,
  kArgs,
  kReturnType,
  kReturnDescription,
  kColumnCount
};
constexpr const char* kSchema =
    "CREATE TABLE x(qualified_name TEXT, module TEXT, package TEXT, name TEXT, object_type TEXT, "
    "exposed INT, short_description TEXT, summary TEXT, cols TEXT, args TEXT, return_type TEXT, "
    "return_description TEXT)";

struct Documented {
  std::string name, type, description;
};

std::string Json(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string JsonList(const std::vector<Documented>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i)
    out += (i ? "," : "") + std::string("{\"name\":") + Json(v[i].name) +
           ",\"type\":" + Json(v[i].type) + ",\"description\":" + Json(v[i].description) + "}";
  return out + "]";
}

// The `--` comment lines right before token `at` (only space between them,
// no blank line), joined with spaces.
std::string CommentBefore(const std::vector<Token>& toks, size_t at) {
  std::vector<std::string> lines;
  for (size_t i = at; i-- > 0;) {
    const Token& t = toks[i];
    if (t.kind == TokenKind::kSpace) {
      size_t newlines = 0;
      for (char c : t.text) newlines += c == '\n';
      if (newlines > 1) break;
      continue;
    }
    if (t.kind != TokenKind::kComment || t.text.substr(0, 2) != "--") break;
    std::string line(t.text.substr(2));
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
    const size_t b = line.find_first_not_of(' ');
    lines.insert(lines.begin(), b == std::string::npos ? "" : line.substr(b));
  }
  std::string out;
  for (const std::string& l : lines) out += (out.empty() || l.empty() ? "" : " ") + l;
  return out;
}

// Each declared name with the comment documenting it: the comments right
// before the name where it follows '(' or ','.
std::vector<Documented> Document(const std::vector<Token>& toks, size_t from,
                                 const std::vector<ColumnDecl>& decls, size_t* end) {
  std::vector<Documented> out;
  size_t i = from;
  for (const ColumnDecl& d : decls) {
    Documented doc{d.name, d.type, ""};
    for (; i < toks.size(); ++i) {
      if (!toks[i].significant() || UnquoteIdentView(toks[i].text) != d.name) continue;
      size_t p = i;
      while (p-- > 0 && !toks[p].significant()) {
      }
      if (p < toks.size() && (toks[p].Is("(") || toks[p].Is(","))) break;
    }
    if (i < toks.size()) {
      doc.description = CommentBefore(toks, i);
      // The type as written (the parser's copy is upper-cased): the tokens
      // up to the ',' or ')' that ends the declaration.
      std::string written;
      int depth = 0;
      for (size_t k = i + 1; k < toks.size(); ++k) {
        if (!toks[k].significant()) continue;
        if (depth == 0 && (toks[k].Is(",") || toks[k].Is(")"))) break;
        depth += toks[k].Is("(") - toks[k].Is(")");
        written += toks[k].text;
      }
      if (!written.empty()) doc.type = written;
    }
    out.push_back(std::move(doc));
  }
  *end = i;
  return out;
}

struct Object {
  std::vector<SqlCell> cells = std::vector<SqlCell>(kColumnCount);
};

SqlCell Text(const std::string& s) {
  SqlCell c;
  c.type = SQLITE_TEXT;
  c.s = s;
  return c;
}

std::string FirstSentence(const std::string& s) {
  const size_t dot = s.find(". ");
  return dot == std::string::npos ? s : s.substr(0, dot + 1);
}

std::string Words(std::string s, char sep) {
  for (char& c : s)
    if (c == sep) c = ' ';
  return s;
}

std::string Summary(const std::string& qualified, const std::string& module,
                    const std::string& kind, const std::string& name, const std::string& desc,
                    const std::vector<Documented>& args, const std::vector<Documented>& cols,
                    const std::string& ret, const std::string& ret_desc) {
  std::string s = qualified + "\nKind: " + (name[0] == '_' ? "internal " : "public ") + kind +
                  "\nModule: " + module + "\nDescription: " + desc;
  auto list = [&](const char* title, const std::vector<Documented>& v) {
    if (v.empty()) return;
    s += std::string("\n") + title + ":";
    for (const Documented& d : v) s += "\n  " + d.name + " (" + d.type + "): " + d.description;
  };
  list("Arguments", args);
  list("Columns", cols);
  if (!ret.empty()) s += "\nReturns: " + ret + (ret_desc.empty() ? "" : ": " + ret_desc);
  const std::string package = module.substr(0, module.find('.'));
  s += "\nSearch aliases: " + package + " " + Words(module, '.') + " " + Words(name, '_');
  return s;
}

Object Row(const std::string& qualified, const std::string& module, const std::string& name,
           const std::string& kind) {
  Object o;
  o.cells[kQualifiedName] = Text(qualified);
  o.cells[kModule] = Text(module);
  o.cells[kPackage] = Text(module.substr(0, module.find('.')));
  o.cells[kName] = Text(name);
  o.cells[kObjectType] = Text(kind);
  o.cells[kExposed] = SqlCell::Int(!name.empty() && name[0] != '_');
  return o;
}

// The object one statement defines, if it is a CREATE PERFETTO one.
bool ObjectOf(const std::string& module, std::string_view text, Object* out) {
  const ParseResult parsed = ParseStatement(text);
  if (!parsed.ok) return false;
  const std::vector<Token> toks = Tokenize(text);
  size_t first = 0;
  while (first < toks.size() && !toks[first].significant()) ++first;
  std::string name, kind, ret, ret_desc;
  std::vector<Documented> args, cols;
  size_t end = first;
  if (const auto* t = std::get_if<CreateTableOrView>(&parsed.statement)) {
    name = t->name;
    kind = t->view ? "VIEW" : "TABLE";
    cols = Document(toks, first, t->columns, &end);
  } else if (const auto* f = std::get_if<CreateFunction>(&parsed.statement)) {
    name = f->name;
    kind = f->returns_table ? "TABLE_FUNCTION" : "FUNCTION";
    args = Document(toks, first, f->args, &end);
    size_t r = end;
    while (r < toks.size() && !toks[r].IsWord("returns")) ++r;
    if (r < toks.size()) ret_desc = CommentBefore(toks, r);
    ret = f->returns_table ? "TABLE" : f->return_type;
    if (f->returns_table) cols = Document(toks, r, f->return_columns, &end);
  } else if (const auto* m = std::get_if<CreateMacro>(&parsed.statement)) {
    name = m->name;
    kind = "MACRO";
    args = Document(toks, first, m->args, &end);
    ret = m->return_type;
    // As written (the parser upper-cases it).
    for (size_t r = end; r < toks.size(); ++r) {
      if (!toks[r].IsWord("returns")) continue;
      for (size_t k = r + 1; k < toks.size(); ++k)
        if (toks[k].significant()) {
          ret = std::string(toks[k].text);
          break;
        }
      break;
    }
  } else {
    return false;
  }
  const std::string qualified = module + "." + name;
  const std::string desc = CommentBefore(toks, first);
  *out = Row(qualified, module, name, kind);
  out->cells[kShortDescription] = Text(FirstSentence(desc));
  out->cells[kSummary] =
      Text(Summary(qualified, module, kind, name, desc, args, cols, ret, ret_desc));
  out->cells[kCols] = Text(JsonList(cols));
  out->cells[kArgs] = Text(JsonList(args));
  if (!ret.empty()) out->cells[kReturnType] = Text(ret);
  if (!ret_desc.empty()) out->cells[kReturnDescription] = Text(ret_desc);
  return true;
}

std::vector<Object> Catalogue(const SqlPackages& packages) {
  std::vector<Object> out;
  for (const std::string& key : packages.AllModules()) {
    auto files = packages.Resolve(key);
    if (!files.ok() || files->empty()) continue;
    std::ifstream in(PathFromUtf8((*files)[0].path), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    Object module = Row(key, key, key.substr(key.rfind('.') + 1), "MODULE");
    module.cells[kSummary] = Text(key + "\nKind: MODULE\nSearch aliases: " + Words(key, '.'));
    out.push_back(std::move(module));
    // A span starts at its first keyword; its documenting comments are in
    // the text since the previous statement.
    size_t prev_end = 0;
    for (const StatementSpan& span : SplitStatements(text)) {
      Object o;
      if (ObjectOf(key, std::string_view(text).substr(prev_end, span.end - prev_end), &o))
        out.push_back(std::move(o));
      prev_end = span.end;
      while (prev_end < text.size() && text[prev_end] == ';') ++prev_end;
    }
  }
  return out;
}

struct VTab : sqlite3_vtab {
  const SqlPackages* packages = nullptr;
};

struct Cursor : sqlite3_vtab_cursor {
  std::vector<Object> rows;
  size_t row = 0;
};

int Connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char**) {
  if (sqlite3_declare_vtab(db, kSchema) != SQLITE_OK) return SQLITE_ERROR;
  auto* v = new VTab();
  v->packages = static_cast<const SqlPackages*>(aux);
  *out = v;
  return SQLITE_OK;
}
int Disconnect(sqlite3_vtab* v) {
  delete static_cast<VTab*>(v);
  return SQLITE_OK;
}
int BestIndex(sqlite3_vtab*, sqlite3_index_info* info) {
  info->estimatedCost = 1e6;
  return SQLITE_OK;
}
int Open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  *out = new Cursor();
  return SQLITE_OK;
}
int Close(sqlite3_vtab_cursor* c) {
  delete static_cast<Cursor*>(c);
  return SQLITE_OK;
}
int Filter(sqlite3_vtab_cursor* cur, int, const char*, int, sqlite3_value**) {
  auto* c = static_cast<Cursor*>(cur);
  c->rows = Catalogue(*static_cast<VTab*>(cur->pVtab)->packages);
  c->row = 0;
  return SQLITE_OK;
}
int Next(sqlite3_vtab_cursor* cur) {
  ++static_cast<Cursor*>(cur)->row;
  return SQLITE_OK;
}
int Eof(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  return c->row >= c->rows.size();
}
int Column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  c->rows[c->row].cells[static_cast<size_t>(col)].Result(ctx);
  return SQLITE_OK;
}
int Rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  *out = static_cast<sqlite3_int64>(static_cast<Cursor*>(cur)->row);
  return SQLITE_OK;
}

sqlite3_module MakeModule() {
  sqlite3_module m{};
  m.xConnect = Connect;
  m.xBestIndex = BestIndex;
  m.xDisconnect = Disconnect;
  m.xDestroy = Disconnect;
  m.xOpen = Open;
  m.xClose = Close;
  m.xFilter = Filter;
  m.xNext = Next;
  m.xEof = Eof;
  m.xColumn = Column;
  m.xRowid = Rowid;
  return m;
}
const sqlite3_module kObjectsModule = MakeModule();

}  // namespace

Status RegisterStdlibObjects(sqlite3* db, const SqlPackages* packages) {
  if (sqlite3_create_module_v2(db, "__intrinsic_stdlib_objects", &kObjectsModule,
                               const_cast<SqlPackages*>(packages), nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register __intrinsic_stdlib_objects");
  return Status::Ok();
}

}  // namespace fathom::psql
