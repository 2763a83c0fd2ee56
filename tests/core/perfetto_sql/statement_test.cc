// Splitting texts into statements, parsing PerfettoSQL statements and
// expanding macros.
#include "core/sql/perfetto_sql/statement.h"

#include <gtest/gtest.h>

#include "core/sql/perfetto_sql/macros.h"

namespace fathom::psql {
namespace {

std::vector<std::string> Split(std::string_view text) {
  std::vector<std::string> out;
  for (const StatementSpan& s : SplitStatements(text))
    out.emplace_back(text.substr(s.begin, s.end - s.begin));
  return out;
}

TEST(PerfettoSqlSplit, SemicolonsInsideStringsCommentsAndTriggersDoNotSplit) {
  EXPECT_EQ(Split("select ';'; -- a;b\nselect \"x;\" ;;  /* ; */ "),
            (std::vector<std::string>{"select ';'", "select \"x;\""}));
  EXPECT_EQ(
      Split("create trigger t after insert on a begin insert into b values(1); "
            "update b set x = case when 1 then 2 end; end; select 1"),
      (std::vector<std::string>{"create trigger t after insert on a begin insert into b values(1); "
                                "update b set x = case when 1 then 2 end; end",
                                "select 1"}));
  EXPECT_TRUE(Split("  -- only a comment\n ; ").empty());
}

TEST(PerfettoSqlParse, PlainSqlIsLeftToSqlite) {
  for (std::string_view sql : {"select 1", "create table x(a)", "include foo", "drop table x",
                               "create or replace view v as select 1"}) {
    ParseResult r = ParseStatement(sql);
    EXPECT_TRUE(r.ok) << sql;
    EXPECT_TRUE(std::holds_alternative<PlainSql>(r.statement)) << sql;
  }
}

TEST(PerfettoSqlParse, Include) {
  ParseResult r = ParseStatement("INCLUDE PERFETTO MODULE android.startup.startups");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(std::get<IncludeModule>(r.statement).module, "android.startup.startups");
  r = ParseStatement("include perfetto module a.b.*");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(std::get<IncludeModule>(r.statement).module, "a.b.*");
  r = ParseStatement("INCLUDE PERFETTO MODULE a..b");
  EXPECT_FALSE(r.ok);
  r = ParseStatement("INCLUDE PERFETTO MODULE a.'b'");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error.offset, 26);
}

TEST(PerfettoSqlParse, TableAndView) {
  ParseResult r = ParseStatement(
      "CREATE OR REPLACE PERFETTO TABLE foo(id JOINID(slice.id), ts TIMESTAMP, name STRING)\n"
      "AS SELECT 1 AS id, 2 AS ts, 'x' AS name");
  ASSERT_TRUE(r.ok) << r.error.message;
  const auto& t = std::get<CreateTableOrView>(r.statement);
  EXPECT_TRUE(t.replace);
  EXPECT_FALSE(t.view);
  EXPECT_EQ(t.name, "foo");
  ASSERT_EQ(t.columns.size(), 3u);
  EXPECT_EQ(t.columns[0].type, "JOINID(SLICE.ID)");
  EXPECT_EQ(t.columns[2].name, "name");
  EXPECT_EQ(t.body, "SELECT 1 AS id, 2 AS ts, 'x' AS name");
  r = ParseStatement("create perfetto view v as select 1");
  ASSERT_TRUE(r.ok);
  EXPECT_TRUE(std::get<CreateTableOrView>(r.statement).view);
  EXPECT_FALSE(std::get<CreateTableOrView>(r.statement).has_schema);
  r = ParseStatement("create perfetto table t(a) as select 1");
  EXPECT_FALSE(r.ok);  // a schema column needs a type
  r = ParseStatement("create perfetto table t select 1");
  EXPECT_FALSE(r.ok);
}

TEST(PerfettoSqlParse, Functions) {
  ParseResult r =
      ParseStatement("CREATE PERFETTO FUNCTION f(a INT, $b STRING) RETURNS LONG AS SELECT $a");
  ASSERT_TRUE(r.ok) << r.error.message;
  auto f = std::get<CreateFunction>(r.statement);
  EXPECT_EQ(f.name, "f");
  ASSERT_EQ(f.args.size(), 2u);
  EXPECT_EQ(f.args[1].name, "b");
  EXPECT_EQ(f.return_type, "LONG");
  EXPECT_FALSE(f.returns_table);
  EXPECT_EQ(f.body, "SELECT $a");
  r = ParseStatement(
      "create perfetto function g() returns table(x LONG, y DOUBLE) as select 1 x, 2.0 y");
  ASSERT_TRUE(r.ok) << r.error.message;
  f = std::get<CreateFunction>(r.statement);
  EXPECT_TRUE(f.returns_table);
  EXPECT_TRUE(f.args.empty());
  ASSERT_EQ(f.return_columns.size(), 2u);
  EXPECT_EQ(f.return_columns[1].name, "y");
  r = ParseStatement(
      "CREATE PERFETTO FUNCTION h(s STRING, n LONG) RETURNS STRING DELEGATES TO impl_fn");
  ASSERT_TRUE(r.ok) << r.error.message;
  EXPECT_EQ(std::get<CreateFunction>(r.statement).delegate, "impl_fn");
  EXPECT_EQ(std::get<CreateFunction>(r.statement).body, "SELECT impl_fn($s, $n)");
  r = ParseStatement("create perfetto function g(x) returns long as select 1");
  EXPECT_FALSE(r.ok);
  r = ParseStatement("create perfetto function g(x LONG) as select 1");
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.message.find("RETURNS"), std::string::npos);
}

TEST(PerfettoSqlParse, MacroIndexAndDropIndex) {
  ParseResult r = ParseStatement(
      "CREATE PERFETTO MACRO m(t TableOrSubquery, e Expr) RETURNS Expr AS (SELECT $e FROM $t)");
  ASSERT_TRUE(r.ok) << r.error.message;
  const auto& m = std::get<CreateMacro>(r.statement);
  EXPECT_EQ(m.args.size(), 2u);
  EXPECT_EQ(m.return_type, "EXPR");
  EXPECT_EQ(m.body, "(SELECT $e FROM $t)");
  r = ParseStatement("create perfetto index i on t(a, b)");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(std::get<CreateIndex>(r.statement).columns, (std::vector<std::string>{"a", "b"}));
  r = ParseStatement("drop perfetto index i on t");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(std::get<DropIndex>(r.statement).table, "t");
  r = ParseStatement("create perfetto sequence s");
  EXPECT_FALSE(r.ok);
}

std::string Expand(const MacroTable& macros, std::string_view text, SqlError* err = nullptr) {
  std::string out;
  SqlError e;
  if (!ExpandMacros(text, macros, &out, &e)) {
    if (err) *err = e;
    return "ERROR: " + e.message;
  }
  // Collapse the spaces expansion adds, for readable expectations.
  std::string squeezed;
  for (char c : out)
    if (c != ' ' || (!squeezed.empty() && squeezed.back() != ' ')) squeezed += c;
  while (!squeezed.empty() && squeezed.back() == ' ') squeezed.pop_back();
  return squeezed;
}

TEST(PerfettoSqlMacros, ExpandNestedAndIntrinsic) {
  MacroTable macros;
  macros.Define({"twice", {"e"}, "($e) * 2"}, false);
  macros.Define({"add", {"a", "b"}, "$a + twice!($b)"}, false);
  macros.Define({"pick", {"col", "tab"}, "SELECT $col FROM $tab"}, false);
  EXPECT_EQ(Expand(macros, "select twice!(1)"), "select (1) * 2");
  EXPECT_EQ(Expand(macros, "select twice!(twice!(3))"), "select ( (3) * 2 ) * 2");
  EXPECT_EQ(Expand(macros, "select add!(f(1, 2), 'a,b')"), "select f(1, 2) + ('a,b') * 2");
  EXPECT_EQ(Expand(macros, "pick!(name, (select 1 as name))"),
            "SELECT name FROM (select 1 as name)");
  // Quotes inside are not doubled (upstream's syntax/stringify: foo'' gives foo').
  EXPECT_EQ(Expand(macros, "select __intrinsic_stringify!(foo'')"), "select 'foo'''");
  EXPECT_EQ(Expand(macros, "select __intrinsic_stringify!(foo bar)"), "select 'foo bar'");
  EXPECT_EQ(Expand(macros, "select __intrinsic_token_apply!(add, (a, b), (c, d))"),
            "select a + (c) * 2 , b + (d) * 2");
  EXPECT_EQ(Expand(macros, "x __intrinsic_token_apply_and_prefix!(add, (a), (c))"),
            "x AND a + (c) * 2");
  EXPECT_EQ(Expand(macros, "select '$e', a != b"), "select '$e', a != b");
  // A comment in an argument must not swallow what the body puts after it.
  EXPECT_EQ(Expand(macros, "select twice!(1 -- one\n) + 1"), "select (1) * 2 + 1");
}

TEST(PerfettoSqlMacros, ErrorsPointAtTheOutermostCall) {
  MacroTable macros;
  macros.Define({"twice", {"e"}, "($e) * 2"}, false);
  macros.Define({"loop", {}, "loop!()"}, false);
  SqlError err;
  EXPECT_EQ(Expand(macros, "select twice!(nope!(1))", &err), "ERROR: unknown macro 'nope!'");
  EXPECT_EQ(err.offset, 7);
  Expand(macros, "select twice!(1, 2)", &err);
  EXPECT_EQ(err.message, "macro twice! takes 1 arguments, 2 given");
  Expand(macros, "select  loop!()", &err);
  EXPECT_NE(err.message.find("nested"), std::string::npos);
  EXPECT_EQ(err.offset, 8);
  Expand(macros, "select twice!(1", &err);
  EXPECT_NE(err.message.find("never closed"), std::string::npos);
  EXPECT_FALSE(macros.Define({"twice", {}, "1"}, false));
  EXPECT_TRUE(macros.Define({"twice", {}, "1"}, true));
}

}  // namespace
}  // namespace fathom::psql
