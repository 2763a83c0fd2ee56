// The intrinsic functions the standard library's modules call, through the
// modules themselves (../shared/perfetto-stdlib) and directly. Expected
// values are trace_processor_shell v58.2's answers to the same queries.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/sql/functions/strip_hex.h"
#include "core/sql/result_printer.h"
#include "core/trace_processor.h"
#include "tests/core/perfetto_sql/query_csv.h"

namespace fathom {
namespace {

namespace fs = std::filesystem;

class Intrinsics : public ::testing::Test {
 protected:
  void SetUp() override {
    const fs::path stdlib = fs::path(FATHOM_SHARED_DIR) / "perfetto-stdlib";
    if (!fs::exists(stdlib)) GTEST_SKIP() << "needs " << stdlib.string();
    ASSERT_TRUE(tp_.sql_packages().SetStdlib(stdlib.string()).ok());
  }
  TraceProcessor tp_;
};

// Partitioned intersection with zero-length spans: one at a span's start
// joins it, one at its end does not, two at the same ts join.
TEST_F(Intrinsics, IntervalIntersect) {
  EXPECT_EQ(Csv(tp_, R"sql(
INCLUDE PERFETTO MODULE intervals.intersect;
CREATE PERFETTO TABLE A AS WITH data(id, ts, dur, p) AS (VALUES (0, 3, 0, 1), (1, 10, 0, 1),
  (2, 20, 0, 1), (3, 30, 10, 1), (4, 50, 10, 1), (5, 60, 5, 1), (6, 0, 100, 2), (7, 5, 0, 1))
SELECT * FROM data;
CREATE PERFETTO TABLE B AS WITH data(id, ts, dur, p) AS (VALUES (10, 3, 5, 1), (11, 5, 5, 1),
  (12, 20, 0, 1), (13, 35, 20, 1), (14, 50, 1, 2), (15, 10, 1, 2), (16, 58, 10, 1), (17, 0, 3, 1))
SELECT * FROM data;
SELECT * FROM _interval_intersect!((A, B), (p)) ORDER BY p, ts, id_0, id_1;
)sql"),
            "\"ts\",\"dur\",\"id_0\",\"id_1\",\"p\"\n"
            "3,0,0,10,1\n5,0,7,10,1\n5,0,7,11,1\n20,0,2,12,1\n35,5,3,13,1\n50,5,4,13,1\n"
            "58,2,4,16,1\n60,5,5,16,1\n10,1,6,15,2\n50,1,6,14,2\n");
}

// thread_slice joins thread_track, _thread_with_process and slice. With
// many tracks besides the thread ones (3000 counters here) and many slices,
// upstream's shell still scans the tracks and threads and looks the slices up
// by track_id (its EXPLAIN QUERY PLAN lists __intrinsic_slice last); driving
// from every slice instead made two lookups per slice, 25x slower on the
// 100 MB bench trace.
TEST_F(Intrinsics, ThreadSliceLooksUpSlicesByTrack) {
  std::string json = R"({"traceEvents":[)";
  for (int i = 0; i < 20000; ++i) {
    json += R"({"name":"n)" + std::to_string(i % 7) + R"(","ph":"X","ts":)" +
            std::to_string(i * 10) + R"(,"dur":5,"pid":1,"tid":)" + std::to_string(1 + i % 4) +
            "},";
  }
  for (int i = 0; i < 3000; ++i) {
    json += R"({"name":"c)" + std::to_string(i) + R"(","ph":"C","ts":)" + std::to_string(i) +
            R"(,"pid":1,"args":{"v":1}})" + (i + 1 < 3000 ? "," : "");
  }
  json += "]}";
  ASSERT_TRUE(tp_.LoadBuffer(reinterpret_cast<const uint8_t*>(json.data()), json.size()).ok());
  const std::string plan = Csv(tp_, R"sql(
INCLUDE PERFETTO MODULE slices.with_context;
EXPLAIN QUERY PLAN SELECT count(*) FROM thread_slice;
)sql");
  const size_t slice = plan.find("SCAN __intrinsic_slice");
  ASSERT_NE(slice, std::string::npos) << plan;
  EXPECT_NE(plan.find("SCAN __intrinsic_track"), std::string::npos) << plan;
  EXPECT_LT(plan.find("SCAN __intrinsic_track"), slice) << plan;
  EXPECT_LT(plan.find("SCAN _thread_with_process"), slice) << plan;
  EXPECT_EQ(Csv(tp_, "SELECT count(*) FROM thread_slice"), "\"count(*)\"\n20000\n");
}

TEST_F(Intrinsics, IntervalCreate) {
  EXPECT_EQ(Csv(tp_, R"sql(
INCLUDE PERFETTO MODULE intervals.create_intervals;
WITH starts(ts) AS (VALUES (10), (30), (50), (70), (30)), ends(ts) AS (VALUES (25), (55), (30))
SELECT * FROM _interval_create!(starts, ends);
)sql"),
            "\"ts\",\"dur\"\n10,15\n30,25\n30,25\n50,5\n");
}

// Runs of one value keep their first and last rows and merge the middle;
// the last run merges everything after its first row up to the trace end
// (100001 in lmk_lmkd_atrace.pb).
TEST_F(Intrinsics, CounterLeadingIntervals) {
  const fs::path trace = fs::path(FATHOM_SHARED_DIR) / "testdata" / "lmk_lmkd_atrace.pb";
  if (!fs::exists(trace)) GTEST_SKIP() << "needs " << trace.string();
  ASSERT_TRUE(tp_.LoadFile(trace.string()).ok());
  EXPECT_EQ(Csv(tp_, R"sql(
INCLUDE PERFETTO MODULE counters.intervals;
CREATE PERFETTO TABLE c AS WITH d(id, ts, track_id, value) AS (VALUES (1, 0, 1, 10),
  (2, 10, 1, 30), (3, 20, 1, 30), (4, 30, 1, 30), (5, 40, 1, 30), (6, 50, 1, 30), (7, 60, 1, 7),
  (8, 70, 1, 7), (9, 80, 1, 7), (10, 90, 1, 7))
SELECT * FROM d;
SELECT * FROM counter_leading_intervals!(c);
)sql"),
            "\"id\",\"ts\",\"dur\",\"track_id\",\"value\",\"next_value\",\"delta_value\"\n"
            "1,0,10,1,10.000000,30.000000,\"[NULL]\"\n"
            "2,10,10,1,30.000000,30.000000,20.000000\n"
            "3,20,30,1,30.000000,30.000000,0.000000\n"
            "6,50,10,1,30.000000,7.000000,0.000000\n"
            "7,60,10,1,7.000000,7.000000,-23.000000\n"
            "8,70,99931,1,7.000000,\"[NULL]\",0.000000\n");
}

// DFS walks the last start first and visits on pop; BFS marks on queueing;
// the dominator tree lists reachable nodes in depth-first preorder.
TEST_F(Intrinsics, GraphWalksAndDominators) {
  const std::string graph = R"sql(
INCLUDE PERFETTO MODULE graphs.search;
INCLUDE PERFETTO MODULE graphs.dominator_tree;
CREATE PERFETTO TABLE e AS WITH d(source_node_id, dest_node_id) AS (VALUES (1, 3), (1, 2),
  (2, 4), (3, 4), (4, 5), (5, 2), (3, 6), (6, 5), (7, 8), (2, 2)) SELECT * FROM d;
CREATE PERFETTO TABLE s AS SELECT 1 AS node_id UNION ALL SELECT 7;
)sql";
  ASSERT_EQ(Csv(tp_, graph), "");
  EXPECT_EQ(Csv(tp_, "SELECT * FROM graph_reachable_dfs!(e, s)"),
            "\"node_id\",\"parent_node_id\"\n7,\"[NULL]\"\n8,7\n1,\"[NULL]\"\n3,1\n4,3\n5,4\n"
            "2,5\n6,3\n");
  EXPECT_EQ(Csv(tp_, "SELECT * FROM graph_reachable_bfs!(e, s)"),
            "\"node_id\",\"parent_node_id\"\n1,\"[NULL]\"\n7,\"[NULL]\"\n3,1\n2,1\n8,7\n4,3\n"
            "6,3\n5,4\n");
  EXPECT_EQ(Csv(tp_,
                "SELECT * FROM graph_dominator_tree!((SELECT * FROM e WHERE source_node_id < 7), "
                "1)"),
            "\"node_id\",\"dominator_node_id\"\n1,\"[NULL]\"\n3,1\n4,1\n5,1\n2,1\n6,3\n");
}

// The catalogue of the library's objects, read from the module files.
TEST_F(Intrinsics, StdlibObjects) {
  EXPECT_EQ(Csv(tp_,
                "SELECT o.object_type, o.return_type, o.return_description, "
                "a.value ->> 'name' AS arg_name, a.value ->> 'type' AS arg_type "
                "FROM __intrinsic_stdlib_objects AS o, json_each(o.args) AS a "
                "WHERE o.qualified_name = 'time.conversion.time_from_ns'"),
            "\"object_type\",\"return_type\",\"return_description\",\"arg_name\",\"arg_type\"\n"
            "\"FUNCTION\",\"TIMESTAMP\",\"Time duration in nanoseconds.\",\"nanos\",\"LONG\"\n");
  EXPECT_EQ(Csv(tp_,
                "SELECT qualified_name, object_type, exposed, short_description "
                "FROM __intrinsic_stdlib_objects "
                "WHERE module = 'slices.with_context' AND name = 'thread_slice'"),
            "\"qualified_name\",\"object_type\",\"exposed\",\"short_description\"\n"
            "\"slices.with_context.thread_slice\",\"VIEW\",1,\"All thread slices with data about "
            "thread, thread track and process.\"\n");
}

// A DAG 1->2, 1->3, 2->4, 3->4, 4->5, 2->5: the plain scan follows every
// edge of each step's rows at once; the aggregating one waits for all of a
// node's in-edges.
TEST_F(Intrinsics, GraphScans) {
  const std::string edges = R"sql(
INCLUDE PERFETTO MODULE graphs.scan;
CREATE PERFETTO TABLE e AS SELECT 1 AS source_node_id, 2 AS dest_node_id UNION ALL SELECT 1, 3
  UNION ALL SELECT 2, 4 UNION ALL SELECT 3, 4 UNION ALL SELECT 4, 5 UNION ALL SELECT 2, 5;
)sql";
  EXPECT_EQ(Csv(tp_, edges + R"sql(SELECT * FROM _graph_scan!(e, (SELECT 1 AS id, 10 AS v), (v),
  (SELECT t.id, t.v + 1 AS v FROM $table t));)sql"),
            "\"id\",\"v\"\n1,10\n2,11\n3,11\n4,12\n5,12\n4,12\n5,13\n5,13\n");
  EXPECT_EQ(Csv(tp_, R"sql(SELECT * FROM _graph_scan!(e, (SELECT 1 AS id, 10 AS v), (v),
  (SELECT t.id, sum(t.v) + 1 AS v FROM $table t GROUP BY t.id));)sql"),
            "\"id\",\"v\"\n1,10\n2,11\n3,11\n4,23\n5,12\n5,24\n");
  EXPECT_EQ(Csv(tp_, R"sql(SELECT * FROM _graph_aggregating_scan!(e, (SELECT 1 AS id, 10 AS v),
  (v), (SELECT t.id, sum(t.v) + 1 AS v FROM $table t GROUP BY t.id));)sql"),
            "\"id\",\"v\"\n1,10\n2,11\n3,11\n4,23\n5,35\n");
}

// graphs.partition's own example: parents become the nearest ancestor of the
// same group, rows in upstream's walk order.
TEST_F(Intrinsics, StructuralTreePartition) {
  EXPECT_EQ(
      Csv(tp_, R"sql(
INCLUDE PERFETTO MODULE graphs.partition;
CREATE PERFETTO TABLE t AS SELECT 1 AS id, NULL AS parent_id, 1 AS group_key
  UNION ALL SELECT 2, 1, 1 UNION ALL SELECT 3, 2, 2 UNION ALL SELECT 4, 2, 2
  UNION ALL SELECT 5, 4, 1 UNION ALL SELECT 6, 5, 3 UNION ALL SELECT 7, 5, 2
  UNION ALL SELECT 8, 4, 1;
SELECT * FROM tree_structural_partition_by_group!(t);
)sql"),
      "\"id\",\"parent_id\",\"group_key\"\n1,\"[NULL]\",1\n2,1,1\n4,\"[NULL]\",2\n8,2,1\n5,2,1\n"
      "7,4,2\n6,\"[NULL]\",3\n3,\"[NULL]\",2\n");
}

TEST_F(Intrinsics, Base64DemangleAutoIdAbsentTables) {
  EXPECT_EQ(Csv(tp_,
                "SELECT typeof(base64_decode('aGVsbG8=')) AS b, "
                "base64_encode(x'68656c6c6f') AS c, hex(base64_decode('AP8=')) AS g, "
                "base64_decode(NULL) AS e"),
            "\"b\",\"c\",\"g\",\"e\"\n\"blob\",\"aGVsbG8=\",\"00FF\",\"[NULL]\"\n");
  EXPECT_EQ(Csv(tp_, "SELECT base64_decode('!!')"), "ERROR: SQL error: BASE64: Invalid input");
  EXPECT_EQ(Csv(tp_,
                "SELECT demangle('_Z3foov') AS a, demangle('foo') AS b, "
                "demangle('_ZN3art6Thread3RunEv') AS d, demangle('_Zfoo') AS e"),
            "\"a\",\"b\",\"d\",\"e\"\n\"foo()\",\"[NULL]\",\"art::Thread::Run()\",\"[NULL]\"\n");
  EXPECT_EQ(Csv(tp_, R"sql(
CREATE PERFETTO TABLE t AS SELECT 'b' AS x UNION ALL SELECT 'a' UNION ALL SELECT 'c'
  ORDER BY x DESC;
SELECT t._auto_id AS a, x FROM t WHERE x != 'b' ORDER BY _auto_id;
)sql"),
            "\"a\",\"x\"\n0,\"c\"\n2,\"a\"\n");
  EXPECT_EQ(Csv(tp_, "SELECT count(*) AS n FROM __intrinsic_v8_isolate"), "\"n\"\n0\n");
  EXPECT_EQ(Csv(tp_,
                "SELECT hex(substr(__intrinsic_zstd_compress('hello, hello'), 1, 4)) AS m, "
                "__intrinsic_zstd_compress(NULL) IS NULL AS n"),
            "\"m\",\"n\"\n\"28B52FFD\",1\n");
}

// graphs.search's weight-bounded DFS: the running sum of followed edges'
// weights stops the walk at the first edge past the root's target (that node
// kept only for a floor bound).
TEST_F(Intrinsics, WeightBoundedDfs) {
  const std::string graph = R"sql(
INCLUDE PERFETTO MODULE graphs.search;
CREATE PERFETTO TABLE g AS SELECT 1 AS source_node_id, 2 AS dest_node_id, 1 AS edge_weight
  UNION ALL SELECT 1, 3, 2 UNION ALL SELECT 2, 4, 1 UNION ALL SELECT 3, 5, 1
  UNION ALL SELECT 4, 6, 5 UNION ALL SELECT 2, 7, 0 UNION ALL SELECT 7, 8, 0;
CREATE PERFETTO TABLE r AS SELECT 1 AS root_node_id, 100 AS root_target_weight
  UNION ALL SELECT 2, 1;
)sql";
  EXPECT_EQ(Csv(tp_, graph + "SELECT * FROM graph_reachable_weight_bounded_dfs!(g, r, 0);"),
            "\"root_node_id\",\"node_id\",\"parent_node_id\"\n1,1,\"[NULL]\"\n1,2,1\n1,4,2\n"
            "1,6,4\n1,7,2\n1,8,7\n1,3,1\n1,5,3\n2,2,\"[NULL]\"\n2,4,2\n");
  EXPECT_EQ(Csv(tp_,
                "SELECT * FROM graph_reachable_weight_bounded_dfs!(g, r, 1) "
                "WHERE root_node_id = 2;"),
            "\"root_node_id\",\"node_id\",\"parent_node_id\"\n2,2,\"[NULL]\"\n2,4,2\n2,6,4\n");
}

// Column types and sort states as trace_processor_shell reports them.
TEST_F(Intrinsics, PerfettoTableInfo) {
  EXPECT_EQ(Csv(tp_, R"sql(
CREATE PERFETTO TABLE foo AS
SELECT 0 AS a, -1 AS b, 5000000000 AS c, 1.5 AS d, 'x' AS e, NULL AS f, 0 AS g, 1 AS h
UNION ALL SELECT 1, 2, 1, 2, 'y', 1, 0, 1
UNION ALL SELECT 2, 3, 2, 3, 'z', 2, 2, 2
UNION ALL SELECT 3, 4, 3, 4, NULL, 3, 2, 2;
SELECT * from perfetto_table_info('foo');
)sql"),
            "\"id\",\"table_name\",\"name\",\"col_type\",\"nullable\",\"sorted\"\n"
            "0,\"foo\",\"a\",\"id\",0,0\n1,\"foo\",\"b\",\"int32\",0,2\n"
            "2,\"foo\",\"c\",\"int64\",0,3\n3,\"foo\",\"d\",\"double\",0,2\n"
            "4,\"foo\",\"e\",\"string\",1,3\n5,\"foo\",\"f\",\"uint32\",1,3\n"
            "6,\"foo\",\"g\",\"uint32\",0,1\n7,\"foo\",\"h\",\"uint32\",0,2\n"
            "8,\"foo\",\"_auto_id\",\"id\",0,0\n");
}

TEST(StripHex, MatchesUpstream) {
  EXPECT_EQ(StripHex("abc 0x1f2e foo", 1), "abc <num>x<num> foo");
  EXPECT_EQ(StripHex("deadbeef 123 a1b2c3", 1), "deadbeef <num> <num>");
  EXPECT_EQ(StripHex("id=42, ptr=0xABCDEF", 2), "id=<num>, ptr=0x<num>");
  EXPECT_EQ(StripHex("a-1234-b 99", 3), "a-<num>-b 99");
  EXPECT_EQ(StripHex("foo_bar123 baz0x", 1), "foo_bar<num> baz<num>x");
  EXPECT_EQ(StripHex("z0xab", 3), "z0xab");
  EXPECT_EQ(StripHex("x 1a2b3c4d", 5), "x <num>");
  EXPECT_EQ(StripHex("0x0x12", 3), "0x0x12");
  EXPECT_EQ(StripHex("q 0XABC", 3), "q 0X<num>");
  EXPECT_EQ(StripHex("1230xabc", 3), "<num>x<num>");
}

}  // namespace
}  // namespace fathom
