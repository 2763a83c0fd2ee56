#include "core/sql/perfetto_sql/engine.h"

#include <sqlite3.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "base/utf8_path.h"
#include "core/sql/perfetto_sql/auto_id.h"
#include "core/sql/perfetto_sql/functions.h"
#include "core/sql/perfetto_sql/runtime_table.h"
#include "core/sql/perfetto_sql/statement_profile.h"
#include "core/sql/perfetto_sql/tokenizer.h"
#include "core/sql/table_vtab.h"

namespace fathom::psql {
namespace {

std::string QuoteIdent(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Upstream's message when a declared schema and the SELECT's columns differ.
Status CheckSchemaNames(const std::string& what, const std::vector<ColumnDecl>& declared,
                        const std::vector<std::string>& actual) {
  std::vector<std::string> missing, undeclared;
  for (const ColumnDecl& d : declared) {
    bool found = false;
    for (const std::string& a : actual) found = found || EqualsNoCase(a, d.name);
    if (!found) missing.push_back(d.name);
  }
  for (const std::string& a : actual) {
    bool found = false;
    for (const ColumnDecl& d : declared) found = found || EqualsNoCase(a, d.name);
    if (!found) undeclared.push_back(a);
  }
  if (!missing.empty() && !undeclared.empty())
    return ErrorStatus(
        what +
        ": the following columns are declared in the schema, but do not exist: " + Join(missing) +
        "; and the following columns exist, but are not declared: " + Join(undeclared));
  if (!missing.empty())
    return ErrorStatus(
        what +
        ": the following columns are declared in the schema, but do not exist: " + Join(missing));
  if (!undeclared.empty())
    return ErrorStatus(what +
                       ": the following columns are missing from the schema: " + Join(undeclared));
  return Status::Ok();
}

const char* TypeofName(const std::string& t) {
  if (t == "integer") return "LONG";
  if (t == "real") return "DOUBLE";
  if (t == "text") return "STRING";
  return "BYTES";
}

}  // namespace

void LineColumn(std::string_view text, size_t offset, int* line, int* column) {
  *line = 1;
  *column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++*line;
      *column = 1;
    } else {
      ++*column;
    }
  }
}

PerfettoSqlEngine::PerfettoSqlEngine(sqlite3* db, const SqlPackages* packages,
                                     RuntimeTableRegistry* runtime_tables)
    : db_(db), packages_(packages), runtime_tables_(runtime_tables) {}

PerfettoSqlEngine::~PerfettoSqlEngine() = default;

Status PerfettoSqlEngine::Exec(const std::string& sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    return ErrorStatus(msg);
  }
  return Status::Ok();
}

std::string PerfettoSqlEngine::ObjectType(const std::string& name) {
  sqlite3_stmt* s = nullptr;
  std::string type;
  const char* q =
      "SELECT type FROM sqlite_master WHERE name = ?1 COLLATE NOCASE "
      "AND type IN ('table', 'view')";
  if (sqlite3_prepare_v2(db_, q, -1, &s, nullptr) == SQLITE_OK) {
    sqlite3_bind_text(s, 1, name.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s) == SQLITE_ROW)
      type = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  }
  sqlite3_finalize(s);
  return type;
}

Status PerfettoSqlEngine::Prepare(std::string_view text, StatementSpan span, sqlite3_stmt** stmt,
                                  long* error_offset) {
  return PrepareIn(Source{"", text}, span, stmt, error_offset);
}

Status PerfettoSqlEngine::PrepareIn(const Source& src, StatementSpan span, sqlite3_stmt** stmt,
                                    long* error_offset) {
  *stmt = nullptr;
  *error_offset = -1;
  const std::string_view stmt_text = src.text.substr(span.begin, span.end - span.begin);
  // Errors in a module name its file and the place; the query's own errors
  // keep SQLite's wording (the caller knows the offset and points at it).
  auto fail = [&](const std::string& msg, long at) {
    *error_offset = static_cast<long>(span.begin) + (at >= 0 ? at : 0);
    if (src.name.empty()) return ErrorStatus(msg);
    int line, col;
    LineColumn(src.text, static_cast<size_t>(*error_offset), &line, &col);
    return ErrorStatus(src.name + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " +
                       msg);
  };
  ParseResult parsed = ParseStatement(stmt_text);
  if (!parsed.ok) return fail(parsed.error.message, parsed.error.offset);
  if (!std::holds_alternative<PlainSql>(parsed.statement)) {
    Status st = Execute(parsed.statement, stmt_text);
    if (st.ok()) return st;
    // An include's own failure already says where in the module; add where it was included.
    if (std::holds_alternative<IncludeModule>(parsed.statement)) {
      int line, col;
      LineColumn(src.text, span.begin, &line, &col);
      *error_offset = static_cast<long>(span.begin);
      return ErrorStatus(st.message() + "\n  included from " +
                         (src.name.empty() ? "the query" : src.name) + ":" + std::to_string(line) +
                         ":" + std::to_string(col));
    }
    // A body's error (no such table, ...) is about the body: point there.
    long at = -1;
    if (const auto* t = std::get_if<CreateTableOrView>(&parsed.statement))
      at = static_cast<long>(t->body_offset);
    if (const auto* f = std::get_if<CreateFunction>(&parsed.statement))
      at = static_cast<long>(f->body_offset);
    return fail(st.message(), at);
  }
  std::string expanded;
  SqlError err;
  if (!ExpandMacros(stmt_text, macros_, &expanded, &err)) return fail(err.message, err.offset);
  expanded = RewriteAutoId(expanded);
  if (sqlite3_prepare_v2(db_, expanded.c_str(), static_cast<int>(expanded.size()), stmt, nullptr) !=
      SQLITE_OK) {
    sqlite3_finalize(*stmt);
    *stmt = nullptr;
    // SQLite's offset is into the expanded text: exact only when nothing expanded.
    const int off = sqlite3_error_offset(db_);
    return fail(sqlite3_errmsg(db_), expanded == stmt_text ? off : -1);
  }
  return Status::Ok();
}

Status PerfettoSqlEngine::Execute(const Statement& s, std::string_view stmt_text) {
  // Bodies are macro-expanded when defined, as upstream does.
  auto expand = [&](const std::string& body, std::string* out) {
    SqlError err;
    if (!ExpandMacros(body, macros_, out, &err)) return ErrorStatus(err.message);
    *out = RewriteAutoId(*out);
    return Status::Ok();
  };
  (void)stmt_text;
  return std::visit(
      [&](const auto& x) -> Status {
        using T = std::decay_t<decltype(x)>;
        std::string body;
        if constexpr (std::is_same_v<T, IncludeModule>) {
          return Include(x.module);
        } else if constexpr (std::is_same_v<T, CreateTableOrView>) {
          Status st = expand(x.body, &body);
          return st.ok() ? CreateTableOrViewImpl(x, body) : st;
        } else if constexpr (std::is_same_v<T, CreateFunction>) {
          Status st = expand(x.body, &body);
          return st.ok() ? CreateFunctionImpl(x, body) : st;
        } else if constexpr (std::is_same_v<T, CreateMacro>) {
          return CreateMacroImpl(x);
        } else if constexpr (std::is_same_v<T, CreateIndex>) {
          return CreateIndexImpl(x);
        } else if constexpr (std::is_same_v<T, DropIndex>) {
          return DropIndexImpl(x);
        } else if constexpr (std::is_same_v<T, Memoize>) {
          // The latest definition of that name is the one SQLite calls.
          for (auto it = functions_.rbegin(); it != functions_.rend(); ++it)
            if (EqualsNoCase((*it)->def().name, x.function)) return (*it)->Memoize();
          return ErrorStatus("EXPERIMENTAL_MEMOIZE: Function " + x.function + " does not exist");
        } else {
          return Status::Ok();
        }
      },
      s);
}

Status PerfettoSqlEngine::Include(const std::string& key) {
  Result<std::vector<ModuleFile>> files = packages_->Resolve(key);
  if (!files.ok()) return files.status();
  for (const ModuleFile& f : *files) {
    if (included_.count(f.key)) continue;
    // Marked first: a module that includes itself, directly or not, runs once.
    included_.insert(f.key);
    Status st = RunModule(f);
    if (!st.ok()) {
      included_.erase(f.key);
      return st;
    }
  }
  return Status::Ok();
}

Status PerfettoSqlEngine::RunModule(const ModuleFile& file) {
  std::ifstream in(PathFromUtf8(file.path), std::ios::binary);
  if (!in) return ErrorStatus("INCLUDE: cannot read " + file.path + " (module " + file.key + ")");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  Source src{file.path, text};
  StatementProfile* profile = StatementProfile::FromEnv();
  for (const StatementSpan& span : SplitStatements(text)) {
    sqlite3_stmt* stmt = nullptr;
    long offset = -1;
    StatementProfile::Timer timer(profile);
    Status st = PrepareIn(src, span, &stmt, &offset);
    int rc = SQLITE_DONE;
    while (st.ok() && stmt && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    }
    int line = 0, col = 0;
    if (profile) {
      LineColumn(text, span.begin, &line, &col);
      timer.Stop(file.path, line, std::string_view(text).substr(span.begin, span.end - span.begin));
    }
    if (!st.ok()) return st;
    if (!stmt) continue;
    std::string msg = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db_);
    sqlite3_finalize(stmt);
    if (!msg.empty()) {
      LineColumn(text, span.begin, &line, &col);
      return ErrorStatus(file.path + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " +
                         msg);
    }
  }
  return Status::Ok();
}

Status PerfettoSqlEngine::CreateTableOrViewImpl(const CreateTableOrView& s,
                                                const std::string& body) {
  const std::string what = s.view ? "CREATE PERFETTO VIEW" : "CREATE PERFETTO TABLE";
  sqlite3_stmt* raw = nullptr;
  // Prepared once: its column names are checked here, and a table's rows come
  // from stepping it (not run yet, so a DROP below does not lock anything).
  const int rc =
      sqlite3_prepare_v2(db_, body.c_str(), static_cast<int>(body.size()), &raw, nullptr);
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw, sqlite3_finalize);
  if (rc != SQLITE_OK) return ErrorStatus(sqlite3_errmsg(db_));
  std::vector<std::string> names;
  for (int i = 0; stmt && i < sqlite3_column_count(stmt.get()); ++i)
    names.push_back(sqlite3_column_name(stmt.get(), i));
  if (names.empty()) return ErrorStatus(what + ": the body must be a SELECT that returns columns");
  if (s.has_schema) {
    Status st = CheckSchemaNames(what, s.columns, names);
    if (!st.ok()) return st;
  }
  const std::string existing = ObjectType(s.name);
  if (!existing.empty()) {
    if (!s.replace) return ErrorStatus(existing + " " + s.name + " already exists");
    Status st = Exec("DROP " + existing + " " + QuoteIdent(s.name));
    if (!st.ok()) return st;
  }
  if (s.view) return Exec("CREATE VIEW " + QuoteIdent(s.name) + " AS " + body);
  bool unsupported = false;
  Status st = CreateColumnTable(s, stmt.get(), what, &unsupported);
  if (!unsupported) return st;
  return CreateSqliteTable(s, body, what, names);
}

Status PerfettoSqlEngine::CreateColumnTable(const CreateTableOrView& s, sqlite3_stmt* body,
                                            const std::string& what, bool* unsupported) {
  *unsupported = runtime_tables_ == nullptr;
  if (*unsupported) return Status::Ok();
  std::vector<DeclaredColumn> declared;
  for (const ColumnDecl& d : s.columns) declared.push_back({d.name, d.type});
  RuntimeTableResult built =
      BuildRuntimeTable(body, runtime_tables_->strings(), what, s.name, declared);
  sqlite3_reset(body);  // done with: the schema changes below must not see it running
  *unsupported = built.unsupported;
  if (!built.table) return built.error;
  RuntimeTableRegistry::Entry entry;
  entry.table = std::move(built.table->table);
  entry.declaration = std::move(built.table->declaration);
  runtime_tables_->Put(s.name, std::move(entry));
  Status created =
      Exec("CREATE VIRTUAL TABLE " + QuoteIdent(s.name) + " USING " + kRuntimeTableModule);
  if (!created.ok()) runtime_tables_->Remove(runtime_tables_->Find(s.name)->table.get());
  return created;
}

// SQLite's own table, for results whose columns mix types.
Status PerfettoSqlEngine::CreateSqliteTable(const CreateTableOrView& s, const std::string& body,
                                            const std::string& what,
                                            const std::vector<std::string>& names) {
  // Untyped columns store values as the SELECT gave them; a DOUBLE column
  // (REAL affinity) turns integers into doubles, as upstream's tables do.
  std::string create = "CREATE TABLE " + QuoteIdent(s.name) + "(";
  for (size_t i = 0; i < names.size(); ++i) {
    create += (i ? ", " : "") + QuoteIdent(names[i]);
    for (const ColumnDecl& d : s.columns) {
      const char* sqlite_type = nullptr;
      if (EqualsNoCase(d.name, names[i]) && DeclaredClass(d.type, &sqlite_type) &&
          std::string(sqlite_type) == "real")
        create += " REAL";
    }
  }
  Status st = Exec(create + ")");
  if (st.ok()) st = Exec("INSERT INTO " + QuoteIdent(s.name) + " " + body);
  for (size_t i = 0; st.ok() && i < s.columns.size(); ++i) {
    const char* want = nullptr;
    const char* declared = DeclaredClass(s.columns[i].type, &want);
    if (!declared) continue;
    const std::string col = QuoteIdent(s.columns[i].name);
    // A LONG column may hold doubles (upstream allows it); other classes must match.
    std::string allowed =
        std::string("'null', '") + want + "'" + (std::string(want) == "integer" ? ", 'real'" : "");
    sqlite3_stmt* q = nullptr;
    std::string sql = "SELECT typeof(" + col + ") FROM " + QuoteIdent(s.name) + " WHERE typeof(" +
                      col + ") NOT IN (" + allowed + ") LIMIT 1";
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &q, nullptr) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW) {
      std::string found = reinterpret_cast<const char*>(sqlite3_column_text(q, 0));
      st = ErrorStatus(what + "(" + s.name + "): column '" + s.columns[i].name + "' declared as " +
                       declared + " in the schema, but " + TypeofName(found) + " found");
    }
    sqlite3_finalize(q);
  }
  if (!st.ok()) Exec("DROP TABLE IF EXISTS " + QuoteIdent(s.name));
  return st;
}

Status PerfettoSqlEngine::CreateFunctionImpl(const CreateFunction& s, const std::string& body) {
  auto f = std::make_unique<FunctionImpl>(db_, s, body);
  if (!s.replace && function_names_.count(s.name))
    return ErrorStatus("CREATE PERFETTO FUNCTION[prototype=" + f->Prototype() +
                       "]: function already exists");
  Status st = f->Register();
  if (!st.ok()) return st;
  function_names_.insert(s.name);
  functions_.push_back(std::move(f));
  return Status::Ok();
}

Status PerfettoSqlEngine::CreateMacroImpl(const CreateMacro& s) {
  Macro m;
  m.name = s.name;
  for (const ColumnDecl& a : s.args) m.params.push_back(a.name);
  m.body = s.body;
  if (!macros_.Define(std::move(m), s.replace))
    return ErrorStatus("CREATE PERFETTO MACRO: macro " + s.name + " already exists");
  return Status::Ok();
}

Status PerfettoSqlEngine::CreateIndexImpl(const CreateIndex& s) {
  // As upstream, only PERFETTO TABLEs take indexes (the trace's own tables
  // have theirs built in).
  if (ObjectType(s.table) != "table")
    return ErrorStatus("CREATE PERFETTO INDEX: table '" + s.table + "' does not exist");
  std::vector<std::string> have;
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(db_, "SELECT name FROM pragma_table_info(?1)", -1, &q, nullptr) ==
      SQLITE_OK) {
    sqlite3_bind_text(q, 1, s.table.c_str(), -1, SQLITE_TRANSIENT);
    while (sqlite3_step(q) == SQLITE_ROW)
      have.push_back(reinterpret_cast<const char*>(sqlite3_column_text(q, 0)));
  }
  sqlite3_finalize(q);
  std::string cols;
  for (const std::string& c : s.columns) {
    bool found = false;
    for (const std::string& h : have) found = found || EqualsNoCase(h, c);
    if (!found)
      return ErrorStatus("CREATE PERFETTO INDEX: Column '" + c + "' not found in table '" +
                         s.table + "'");
    cols += (cols.empty() ? "" : ", ") + QuoteIdent(c);
  }
  if (runtime_tables_ && runtime_tables_->Find(s.table)) return IndexColumnTable(s);
  if (s.replace) {
    Status st = Exec("DROP INDEX IF EXISTS " + QuoteIdent(s.name));
    if (!st.ok()) return st;
  }
  Status st =
      Exec("CREATE INDEX " + QuoteIdent(s.name) + " ON " + QuoteIdent(s.table) + "(" + cols + ")");
  if (!st.ok() && st.message().find("already exists") != std::string::npos)
    return ErrorStatus("CREATE PERFETTO INDEX: Index '" + s.name + "' already exists");
  return st;
}

// A PERFETTO TABLE in columns needs no index of SQLite's: its equality
// lookups build their own index on first use, and sorted columns are binary
// searched. The index is only a name, kept for "already exists" and DROP.
Status PerfettoSqlEngine::IndexColumnTable(const CreateIndex& s) {
  const std::string key = Lower(s.name);
  auto it = column_table_indexes_.find(key);
  // An index whose table was dropped went with it.
  if (it != column_table_indexes_.end() && !runtime_tables_->Find(it->second))
    column_table_indexes_.erase(it), it = column_table_indexes_.end();
  if (it != column_table_indexes_.end() && !s.replace)
    return ErrorStatus("CREATE PERFETTO INDEX: Index '" + s.name + "' already exists");
  column_table_indexes_[key] = s.table;
  return Status::Ok();
}

Status PerfettoSqlEngine::DropIndexImpl(const DropIndex& s) {
  if (column_table_indexes_.erase(Lower(s.name)) > 0) return Status::Ok();
  return Exec("DROP INDEX IF EXISTS " + QuoteIdent(s.name));
}

}  // namespace fathom::psql
