// The statements of PerfettoSQL (what SQLite itself does not know), split out
// of a text and parsed. Every other statement is PlainSql and goes to SQLite
// after macro expansion.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace fathom::psql {

// A PerfettoSQL error: what went wrong and where, as a byte offset into the
// text that was parsed (-1 when there is no better place than the statement).
struct SqlError {
  std::string message;
  long offset = -1;
};

// One statement of a text: [begin, end) without its ';'.
struct StatementSpan {
  size_t begin = 0;
  size_t end = 0;
};

// Splits `text` at the ';' that end statements (not those inside strings,
// comments or a CREATE TRIGGER's BEGIN ... END). Spans holding only space and
// comments are left out.
std::vector<StatementSpan> SplitStatements(std::string_view text);

// `name TYPE` in a schema or a signature. The type is kept as written,
// upper-cased, arguments included ("JOINID(SLICE.ID)").
struct ColumnDecl {
  std::string name;
  std::string type;
  bool variadic = false;  // `args ANY...`: the last argument, taking any number
};

struct PlainSql {};

struct IncludeModule {
  std::string module;  // "a.b.c" or "a.b.*"
};

struct CreateTableOrView {
  bool replace = false;
  bool view = false;
  std::string name;
  bool has_schema = false;
  std::vector<ColumnDecl> columns;
  std::string body;  // the SELECT
  size_t body_offset = 0;
};

struct CreateFunction {
  bool replace = false;
  std::string name;
  std::vector<ColumnDecl> args;
  bool returns_table = false;
  std::string return_type;                 // scalar functions
  std::vector<ColumnDecl> return_columns;  // table functions
  // `... RETURNS type DELEGATES TO impl`: the body is `SELECT impl($arg, ...)`.
  std::string delegate;
  std::string body;
  size_t body_offset = 0;
};

struct CreateMacro {
  bool replace = false;
  std::string name;
  std::vector<ColumnDecl> args;  // types: Expr, ColumnName, TableOrSubquery, ...
  std::string return_type;
  std::string body;  // tokens, substituted at each call
  size_t body_offset = 0;
};

struct CreateIndex {
  bool replace = false;
  std::string name;
  std::string table;
  std::vector<std::string> columns;
};

struct DropIndex {
  std::string name;
  std::string table;
};

// `SELECT EXPERIMENTAL_MEMOIZE('f')`: cache f's results by its one integer
// argument from now on.
struct Memoize {
  std::string function;
};

using Statement = std::variant<PlainSql, IncludeModule, CreateTableOrView, CreateFunction,
                               CreateMacro, CreateIndex, DropIndex, Memoize>;

struct ParseResult {
  Statement statement;
  SqlError error;
  bool ok = true;
};

// Parses one statement (a span's text). Offsets in the result are into `text`.
ParseResult ParseStatement(std::string_view text);

}  // namespace fathom::psql
