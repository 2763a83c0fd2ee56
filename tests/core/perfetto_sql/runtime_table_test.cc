// PERFETTO TABLEs held in columns (core/sql/perfetto_sql/runtime_table.h):
// types, sorted and equality look-ups, joins, _auto_id, indexes, DROP and
// upstream's rules for columns whose values mix types. Every expected value
// and error text is trace_processor_shell v58.2's answer to the same query
// (on any trace; these run on an empty one).
#include "core/sql/perfetto_sql/runtime_table.h"

#include <gtest/gtest.h>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"
#include "tests/core/perfetto_sql/query_csv.h"

namespace fathom {
namespace {

constexpr const char* kTable =
    "CREATE PERFETTO TABLE t AS SELECT 3 AS id, 10 AS ts, 'b' AS name, 1.5 AS v "
    "UNION ALL SELECT 1, 20, 'a', 2.5 UNION ALL SELECT 2, 20, NULL, 0.5 "
    "UNION ALL SELECT 0, 40, 'a', NULL;";

class RuntimeTable : public ::testing::Test {
 protected:
  std::string Run(const std::string& sql) { return Csv(tp_, kTable + (" " + sql)); }
  TraceProcessor tp_;
};

TEST_F(RuntimeTable, KeepsEachValuesType) {
  EXPECT_EQ(Run("SELECT id, ts, name, v, typeof(id) || typeof(name) || typeof(v) AS types "
                "FROM t"),
            "\"id\",\"ts\",\"name\",\"v\",\"types\"\n"
            "3,10,\"b\",1.500000,\"integertextreal\"\n"
            "1,20,\"a\",2.500000,\"integertextreal\"\n"
            "2,20,\"[NULL]\",0.500000,\"integernullreal\"\n"
            "0,40,\"a\",\"[NULL]\",\"integertextnull\"\n");
  // No affinity: an integer column never equals text.
  EXPECT_EQ(Csv(tp_, "SELECT count(*) AS c FROM t WHERE id = '1'"), "\"c\"\n0\n");
  EXPECT_EQ(Csv(tp_,
                "CREATE PERFETTO TABLE e AS SELECT * FROM t WHERE 0; "
                "SELECT count(*) AS c FROM e"),
            "\"c\"\n0\n");
}

TEST_F(RuntimeTable, SortedRangesEqualityJoinsAndAutoId) {
  EXPECT_EQ(Run("SELECT id, ts FROM t WHERE ts >= 20 AND ts < 40 ORDER BY ts"),
            "\"id\",\"ts\"\n1,20\n2,20\n");
  EXPECT_EQ(Csv(tp_, "SELECT a.id AS a, b.id AS b FROM t a JOIN t b USING (name) ORDER BY a, b"),
            "\"a\",\"b\"\n0,0\n0,1\n1,0\n1,1\n3,3\n");
  EXPECT_EQ(Csv(tp_, "SELECT _auto_id AS i, id FROM t WHERE name = 'a'"),
            "\"i\",\"id\"\n1,1\n3,0\n");
}

TEST_F(RuntimeTable, NumbersMixToDoublesTextAndNumbersDoNot) {
  EXPECT_EQ(Csv(tp_,
                "CREATE PERFETTO TABLE m AS SELECT 1 AS x UNION ALL SELECT 2.5 "
                "UNION ALL SELECT NULL; SELECT x, typeof(x) FROM m"),
            "\"x\",\"typeof(x)\"\n1.000000,\"real\"\n2.500000,\"real\"\n\"[NULL]\",\"null\"\n");
  EXPECT_EQ(Csv(tp_,
                "CREATE PERFETTO TABLE d(x LONG) AS SELECT 3 AS x UNION ALL SELECT 2.5; "
                "SELECT x, typeof(x) FROM d"),
            "\"x\",\"typeof(x)\"\n3.000000,\"real\"\n2.500000,\"real\"\n");
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO TABLE m2 AS SELECT 1 AS x UNION ALL SELECT 'a'"),
            "ERROR: SQL error: CREATE PERFETTO TABLE(m2): column 'x' was inferred to be LONG, "
            "but later received a value of type STRING");
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO TABLE m3 AS SELECT 1.5 AS x UNION ALL SELECT 'a'"),
            "ERROR: SQL error: CREATE PERFETTO TABLE(m3): column 'x' was inferred to be DOUBLE, "
            "but later received a value of type STRING");
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO TABLE m4 AS SELECT 'a' AS x UNION ALL SELECT 1"),
            "ERROR: SQL error: CREATE PERFETTO TABLE(m4): column 'x' was inferred to be STRING, "
            "but later received a value of type LONG");
  // No affinity conversion of numeric text, unlike a SQLite REAL column.
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO TABLE m5(x DOUBLE) AS SELECT '1.5' AS x"),
            "ERROR: SQL error: CREATE PERFETTO TABLE(m5): column 'x' declared as DOUBLE in the "
            "schema, but STRING found");
}

// Upstream's shell aborts on a blob in a PERFETTO TABLE ("Blob type not
// supported in Dataframe"); Fathom keeps such a table in SQLite, values as
// SQLite stores them.
TEST_F(RuntimeTable, BlobsStayInSqlite) {
  EXPECT_EQ(Csv(tp_,
                "CREATE PERFETTO TABLE b AS SELECT x'00ff' AS x UNION ALL SELECT 1; "
                "SELECT hex(x) AS h, typeof(x) AS t FROM b"),
            "\"h\",\"t\"\n\"00FF\",\"blob\"\n\"31\",\"integer\"\n");
}

TEST_F(RuntimeTable, IndexesAndDrop) {
  EXPECT_EQ(Run("CREATE PERFETTO INDEX ti ON t(name); CREATE PERFETTO INDEX ti ON t(ts)"),
            "ERROR: SQL error: CREATE PERFETTO INDEX: Index 'ti' already exists");
  EXPECT_EQ(Csv(tp_,
                "CREATE OR REPLACE PERFETTO INDEX ti ON t(ts); DROP PERFETTO INDEX ti ON t; "
                "CREATE PERFETTO INDEX ti ON t(id); SELECT id FROM t WHERE id = 2"),
            "\"id\"\n2\n");
  EXPECT_EQ(Csv(tp_, "CREATE PERFETTO INDEX tn ON t(nope)"),
            "ERROR: SQL error: CREATE PERFETTO INDEX: Column 'nope' not found in table 't'");
  EXPECT_EQ(Csv(tp_,
                "DROP TABLE t; CREATE PERFETTO TABLE t AS SELECT 'x' AS name; "
                "SELECT * FROM t"),
            "\"name\"\n\"x\"\n");
}

}  // namespace
}  // namespace fathom
