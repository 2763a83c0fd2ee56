// What Fathom provides in place of upstream's stdlib prelude. Expected values
// are trace_processor_shell v58.2's answers to the same queries.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"
#include "tests/core/perfetto_sql/query_csv.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

TEST(Prelude, TraceBounds) {
  const auto trace = testing::TestData("lmk_lmkd_atrace.pb");
  if (!std::filesystem::exists(trace)) GTEST_SKIP() << "needs " << trace.string();
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(trace.string()).ok());
  EXPECT_EQ(Csv(tp, "select trace_start(), trace_end(), trace_dur()"),
            "\"trace_start()\",\"trace_end()\",\"trace_dur()\"\n100,100001,99901\n");
}

TEST(Prelude, CastMacros) {
  TraceProcessor tp;
  EXPECT_EQ(Csv(tp,
                "select cast_int!('12abc') a, cast_double!(1) b, typeof(cast_double!(1)) c, "
                "cast_string!(1.5) d, typeof(cast_string!(2)) e, cast_int!(2.7) f"),
            "\"a\",\"b\",\"c\",\"d\",\"e\",\"f\"\n12,1.000000,\"real\",\"1.5\",\"text\",2\n");
}

TEST(Prelude, HashAndStrSplit) {
  TraceProcessor tp;
  EXPECT_EQ(Csv(tp,
                "select hash('a') h1, hash(1) h2, hash('a', 1) h3, hash('') h4, "
                "str_split('a,b,c', ',', 1) s1, str_split('a,b', ',', 5) s2, "
                "str_split('a,,b', ',', 1) s3, str_split(null, ',', 0) s4"),
            "\"h1\",\"h2\",\"h3\",\"h4\",\"s1\",\"s2\",\"s3\",\"s4\"\n"
            "-5808556873153909620,-8517097267634966620,-2387013801523068883,"
            "-3750763034362895579,\"b\",\"[NULL]\",\"\",\"[NULL]\"\n");
  EXPECT_NE(Csv(tp, "select hash(null)").find("HASH: arg 0 has unknown type"), std::string::npos);
  EXPECT_NE(Csv(tp, "select str_split('abc', '', 0)")
                .find("str_split: delimiter must be a non-empty string"),
            std::string::npos);
}

// The older spellings are statements of their own and print nothing; with
// EXPERIMENTAL_MEMOIZE the doubling recursion finishes (2^50 calls without).
TEST(Prelude, LegacyStatements) {
  TraceProcessor tp;
  EXPECT_EQ(Csv(tp,
                "SELECT create_function('f(x INT)', 'INT', "
                "'SELECT IIF($x = 0, 1, f($x - 1) + f($x - 1))');"
                "SELECT create_function('f(x INT)', 'INT', "
                "'SELECT IIF($x = 0, 1, f($x - 1) + f($x - 1))');"
                "SELECT EXPERIMENTAL_MEMOIZE('f');"
                "SELECT f(50) AS result"),
            "\"result\"\n1125899906842624\n");
  EXPECT_EQ(Csv(tp,
                "SELECT create_view_function('g(x INT)', 'y INT', 'SELECT $x + 1 AS y');"
                "SELECT * FROM g(41)"),
            "\"y\"\n42\n");
}

// A variadic argument forwarded by DELEGATES TO (upstream's answers).
TEST(Prelude, VariadicDelegate) {
  TraceProcessor tp;
  EXPECT_EQ(Csv(tp,
                "CREATE PERFETTO FUNCTION my_hash(args ANY...) RETURNS INT DELEGATES TO hash;"
                "SELECT my_hash(1, 'hello', 42) AS h1, my_hash('single_arg') AS h2"),
            "\"h1\",\"h2\"\n4730678220997103486,1309196097616646754\n");
}

// As upstream's shell, a result set whose one column is named exactly
// suppress_query_output is not printed (the oracle's output for these).
TEST(Prelude, SuppressQueryOutput) {
  TraceProcessor tp;
  EXPECT_EQ(Csv(tp, "SELECT 2 AS a; SELECT 1 AS suppress_query_output;"), "\"a\"\n2\n");
  EXPECT_EQ(Csv(tp, "SELECT 1 AS suppress_query_output, 2 AS b; SELECT 3 AS a;"),
            "\"suppress_query_output\",\"b\"\n1,2\n\n\"a\"\n3\n");
}

}  // namespace
}  // namespace fathom
