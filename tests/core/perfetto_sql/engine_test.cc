// PerfettoSQL end to end through TraceProcessor::Query: the test package in
// packages/fathomtest (written for these tests) on a real trace, and the
// statements' semantics on an empty trace. Every expected value and error
// wording is trace_processor_shell v58.2's answer to the same query
// (`--add-sql-package tests/core/perfetto_sql/packages/fathomtest`).
#include "core/sql/perfetto_sql/engine.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"
#include "tests/core/perfetto_sql/query_csv.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

namespace fs = std::filesystem;

std::string TestPackage() {
  return std::string(FATHOM_TEST_SOURCE_DIR) + "/perfetto_sql/packages/fathomtest";
}

class PerfettoSqlTrace : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const fs::path trace = testing::TestData("android_sched_binder_10s.perfetto-trace");
    if (!fs::exists(trace)) return;
    tp_ = new TraceProcessor();
    if (!tp_->LoadFile(trace.string()).ok() ||
        !tp_->sql_packages().Add(TestPackage(), "", false).ok()) {
      delete tp_;
      tp_ = nullptr;
    }
  }
  static void TearDownTestSuite() {
    delete tp_;
    tp_ = nullptr;
  }
  void SetUp() override {
    if (!tp_)
      GTEST_SKIP() << "needs " FATHOM_SHARED_DIR
                      "/testdata/android_sched_binder_10s.perfetto-trace";
  }
  static TraceProcessor* tp_;
};
TraceProcessor* PerfettoSqlTrace::tp_ = nullptr;

TEST_F(PerfettoSqlTrace, TableFromAModuleWithAFunctionInside) {
  EXPECT_EQ(Csv(*tp_,
                "INCLUDE PERFETTO MODULE fathomtest.base; select cpu, slices, busy_ns, busy_ms "
                "from ft_cpus"),
            "\"cpu\",\"slices\",\"busy_ns\",\"busy_ms\"\n"
            "0,5015,1118182602,1118.182602\n"
            "1,3801,1252370819,1252.370819\n"
            "2,3421,1012025165,1012.025165\n"
            "3,3287,1044757870,1044.757870\n");
}

TEST_F(PerfettoSqlTrace, ViewOverATableFunctionInAnIncludedModule) {
  EXPECT_EQ(
      Csv(*tp_,
          "INCLUDE PERFETTO MODULE fathomtest.sched.summary; select * from ft_busiest_threads"),
      "\"utid\",\"tid\",\"name\",\"total_ns\"\n"
      "28,5836,\"Blocking Thread\",413035735\n"
      "15,14764,\"tracebox\",406241258\n"
      "16,6599,\"reader\",340234169\n"
      "21,10950,\".shealth:remote\",213073343\n"
      "26,6596,\"AudioIn_26\",195083960\n");
}

TEST_F(PerfettoSqlTrace, WildcardIncludeAndNestedMacros) {
  EXPECT_EQ(Csv(*tp_, "INCLUDE PERFETTO MODULE fathomtest.sched.*; select * from ft_cpu_share"),
            "\"cpu\",\"pct\"\n0,25.256000\n1,28.287000\n2,22.859000\n3,23.598000\n");
}

TEST_F(PerfettoSqlTrace, MacrosAndSemicolonsInStringsInTheQuery) {
  EXPECT_EQ(Csv(*tp_,
                "INCLUDE PERFETTO MODULE fathomtest.base; select ft_label('a;b', 3) as l, "
                "ft_count_where!(ft_cpus, busy_ns > 0) as n, ft_nonzero!(0) z"),
            "\"l\",\"n\",\"z\"\n\"a;b: 3 (x;y)\",4,\"[NULL]\"\n");
}

TEST_F(PerfettoSqlTrace, AnErrorInAModuleNamesItsFileLineAndColumn) {
  const std::string err = Csv(*tp_, "select 1;\nINCLUDE PERFETTO MODULE fathomtest.broken.bad");
  EXPECT_NE(err.find("broken/bad.sql:4:1: no such table: ft_no_such_table"), std::string::npos)
      << err;
  EXPECT_NE(err.find("included from the query:2:1"), std::string::npos) << err;
}

TEST_F(PerfettoSqlTrace, MissingModulesAndPackagesSayHowToAddTheLibrary) {
  std::string err = Csv(*tp_, "INCLUDE PERFETTO MODULE fathomtest.nope");
  EXPECT_NE(err.find("unknown module 'fathomtest.nope'"), std::string::npos) << err;
  err = Csv(*tp_, "INCLUDE PERFETTO MODULE android.startup.startups");
  EXPECT_NE(err.find("--override-stdlib"), std::string::npos) << err;
  EXPECT_NE(err.find("FATHOM_STDLIB"), std::string::npos) << err;
}

// Statement semantics on a trace without rows.
class PerfettoSqlEmpty : public ::testing::Test {
 protected:
  TraceProcessor tp_;
};

TEST_F(PerfettoSqlEmpty, ScalarFunctionResultsAndTypeChecks) {
  EXPECT_EQ(
      Csv(tp_,
          "CREATE PERFETTO FUNCTION f(x INT) RETURNS INT AS SELECT $x + 1; select f(4), f(NULL)"),
      "\"f(4)\",\"f(NULL)\"\n5,\"[NULL]\"\n");
  EXPECT_EQ(
      Csv(tp_, "CREATE PERFETTO FUNCTION g(x INT) RETURNS INT AS SELECT $x WHERE 0; select g(1)"),
      "\"g(1)\"\n\"[NULL]\"\n");
  EXPECT_EQ(Csv(tp_, "select f('a')"),
            "ERROR: SQL error: f[arg=a]: argument 0 does not have expected type: expected LONG, "
            "actual STRING");
  EXPECT_EQ(
      Csv(tp_, "CREATE PERFETTO FUNCTION d(x DOUBLE) RETURNS INT AS SELECT $x; select d(1)"),
      "ERROR: SQL error: d[arg=1]: argument 0 does not have expected type: expected DOUBLE, actual "
      "BOOL/INT/UINT/LONG");
  EXPECT_EQ(
      Csv(tp_, "CREATE PERFETTO FUNCTION two(x INT) RETURNS INT AS SELECT $x, 2; select two(1)"),
      "ERROR: SQL error: two: SQL definition should only return one column: returned 2 columns");
  EXPECT_EQ(Csv(tp_,
                "CREATE PERFETTO FUNCTION many(x INT) RETURNS INT AS SELECT $x union all select 3; "
                "select many(1)"),
            "ERROR: SQL error: many: multiple values were returned when executing function body. "
            "Executed SQL "
            "was SELECT $x union all select 3");
  EXPECT_EQ(
      Csv(tp_, "CREATE PERFETTO FUNCTION f(x INT) RETURNS INT AS SELECT 2"),
      "ERROR: SQL error: CREATE PERFETTO FUNCTION[prototype=f(x LONG)]: function already exists");
  EXPECT_EQ(
      Csv(tp_, "CREATE OR REPLACE PERFETTO FUNCTION f(x INT) RETURNS INT AS SELECT 2; select f(0)"),
      "\"f(0)\"\n2\n");
}

TEST_F(PerfettoSqlEmpty, RecursiveFunction) {
  EXPECT_EQ(Csv(tp_,
                "CREATE PERFETTO FUNCTION fact(n INT) RETURNS INT AS "
                "SELECT iif($n <= 1, 1, $n * fact($n - 1)); select fact(10)"),
            "\"fact(10)\"\n3628800\n");
}

TEST_F(PerfettoSqlEmpty, TableFunctions) {
  EXPECT_EQ(Csv(tp_,
                "CREATE PERFETTO FUNCTION f(x INT) RETURNS TABLE(y INT) AS SELECT $x as y; select "
                "* from f(2)"),
            "\"y\"\n2\n");
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO FUNCTION h(x INT) RETURNS TABLE(y INT) AS SELECT $x as z"),
            "ERROR: SQL error: h: column z at index 0 does not match return value name y.");
  // Two calls in one query, one of them correlated.
  EXPECT_EQ(Csv(tp_, "select a.y, b.y from f(1) a join f(a.y + 1) b"), "\"y\",\"y\"\n1,2\n");
}

TEST_F(PerfettoSqlEmpty, TableSchemasAreChecked) {
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO TABLE t2(a INT, c STRING) AS SELECT 1 AS a, 2 AS b"),
            "ERROR: SQL error: CREATE PERFETTO TABLE: the following columns are declared in the "
            "schema, but do "
            "not exist: c; and the following columns exist, but are not declared: b");
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO TABLE t2(a INT) AS SELECT 1 AS a, 2 AS b"),
            "ERROR: SQL error: CREATE PERFETTO TABLE: the following columns are missing from the "
            "schema: b");
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO TABLE t2(a INT) AS SELECT 'x' AS a union all select 1"),
            "ERROR: SQL error: CREATE PERFETTO TABLE(t2): column 'a' declared as LONG in the "
            "schema, but STRING "
            "found");
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO TABLE t2(a STRING) AS SELECT 1.5 as a"),
            "ERROR: SQL error: CREATE PERFETTO TABLE(t2): column 'a' declared as STRING in the "
            "schema, but DOUBLE "
            "found");
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO VIEW v(b STRING) AS SELECT 1.5 as a"),
            "ERROR: SQL error: CREATE PERFETTO VIEW: the following columns are declared in the "
            "schema, but do not "
            "exist: b; and the following columns exist, but are not declared: a");
  // A DOUBLE column turns integers into doubles; a LONG column keeps a double.
  EXPECT_EQ(
      Csv(tp_,
          "CREATE PERFETTO TABLE t3(a DOUBLE, b LONG, c BOOL) AS SELECT 1 AS a, 2.5 AS b, 3 as c; "
          "select * from t3"),
      "\"a\",\"b\",\"c\"\n1.000000,2.500000,3\n");
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO VIEW v(a STRING) AS SELECT 1.5 as a; select * from v"),
            "\"a\"\n1.500000\n");
}

TEST_F(PerfettoSqlEmpty, ReplaceIndexAndMacroErrorsWithPlaces) {
  EXPECT_EQ(Csv(tp_,
                "CREATE PERFETTO TABLE t AS SELECT 1 AS a; CREATE OR REPLACE PERFETTO TABLE t AS "
                "SELECT 2 AS a; CREATE PERFETTO INDEX ti ON t(a); select * from t where a = 2"),
            "\"a\"\n2\n");
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO TABLE t AS SELECT 3 AS a"),
            "ERROR: SQL error: table t already exists");
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO INDEX ti ON t(a)"),
            "ERROR: SQL error: CREATE PERFETTO INDEX: Index 'ti' already exists");
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO INDEX tb ON t(b)"),
            "ERROR: SQL error: CREATE PERFETTO INDEX: Column 'b' not found in table 't'");
  EXPECT_EQ(
      Csv(tp_, "DROP PERFETTO INDEX ti ON t; CREATE PERFETTO INDEX ti ON t(a); select 1 as x"),
      "\"x\"\n1\n");
  // Only PERFETTO TABLEs take indexes.
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO INDEX si ON thread(utid)"),
            "ERROR: SQL error: CREATE PERFETTO INDEX: table 'thread' does not exist");
  auto it = tp_.Query("select 1;\nselect  m!(1)");
  EXPECT_FALSE(it->NextResultSet() && it->NextResultSet());
  EXPECT_EQ(it->status().message(), "SQL error: unknown macro 'm!'");
  EXPECT_EQ(it->error_offset(), 18);
}

TEST_F(PerfettoSqlEmpty, PackagesResolveModulesOnceAndRejectTakenNames) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "pkg" / "sub");
  dir.Write("pkg/sub/a.sql", "CREATE PERFETTO TABLE counter_tab AS SELECT 1 AS n;");
  ASSERT_TRUE(tp_.sql_packages().Add((dir.path() / "pkg").string(), "renamed", false).ok());
  EXPECT_FALSE(tp_.sql_packages().Add((dir.path() / "pkg").string(), "renamed", false).ok());
  EXPECT_TRUE(tp_.sql_packages().Add((dir.path() / "pkg").string(), "renamed", true).ok());
  // A second include of the same module does nothing (its CREATE would fail otherwise).
  EXPECT_EQ(Csv(tp_,
                "INCLUDE PERFETTO MODULE renamed.sub.a; INCLUDE PERFETTO MODULE renamed.sub.a; "
                "INCLUDE PERFETTO MODULE renamed.*; select n from counter_tab"),
            "\"n\"\n1\n");
  EXPECT_EQ(tp_.sql_packages().AllModules(), (std::vector<std::string>{"renamed.sub.a"}));
  // The standard library's folders are packages too, so its names are taken.
  ASSERT_TRUE(tp_.sql_packages().SetStdlib(dir.path().string()).ok());
  EXPECT_FALSE(tp_.sql_packages().Add((dir.path() / "pkg").string(), "", false).ok());
  EXPECT_FALSE(tp_.sql_packages().SetStdlib((dir.path() / "nope").string()).ok());
}

}  // namespace
}  // namespace fathom
