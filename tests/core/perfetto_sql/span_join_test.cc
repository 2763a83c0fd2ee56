// SPAN_JOIN, SPAN_LEFT_JOIN and SPAN_OUTER_JOIN on small tables built in the
// query. Every expected output is trace_processor_shell v58.2's answer to the
// same statements (run with `query -f` on any trace; the tables do not read
// it).
#include <gtest/gtest.h>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"
#include "tests/core/perfetto_sql/query_csv.h"

namespace fathom {
namespace {

// Two partitioned tables with gaps, a zero-length span inside the other
// side's span (which splits it in the left and outer forms) and partitions
// that only one side has.
constexpr const char* kTables = R"sql(
CREATE PERFETTO TABLE a AS SELECT column1 AS ts, column2 AS dur, column3 AS cpu, column4 AS an
FROM (VALUES (0, 10, 1, 'a0'), (10, 10, 1, 'a1'), (5, 20, 2, 'a2'), (40, 0, 1, 'azero'),
             (50, 5, 3, 'a3'), (70, 5, 1, 'a5'));
CREATE PERFETTO TABLE b AS SELECT column1 AS ts, column2 AS dur, column3 AS cpu, column4 AS bn
FROM (VALUES (5, 10, 1, 'b0'), (15, 30, 1, 'b1'), (0, 100, 2, 'b2'), (60, 5, 4, 'b4'),
             (72, 0, 1, 'bzero'));
)sql";

TEST(SpanJoin, InnerJoinIntersectsPerPartition) {
  TraceProcessor tp;
  EXPECT_EQ(
      Csv(tp, std::string(kTables) + "CREATE VIRTUAL TABLE sj USING SPAN_JOIN(a PARTITIONED cpu, b "
                                     "PARTITIONED cpu); SELECT * FROM sj;"),
      "\"ts\",\"dur\",\"cpu\",\"an\",\"bn\"\n"
      "5,5,1,\"a0\",\"b0\"\n"
      "10,5,1,\"a1\",\"b0\"\n"
      "15,5,1,\"a1\",\"b1\"\n"
      "40,0,1,\"azero\",\"b1\"\n"
      "72,0,1,\"a5\",\"bzero\"\n"
      "5,20,2,\"a2\",\"b2\"\n");
}

TEST(SpanJoin, LeftJoinKeepsTheLeftSide) {
  TraceProcessor tp;
  EXPECT_EQ(Csv(tp, std::string(kTables) +
                        "CREATE VIRTUAL TABLE lj USING SPAN_LEFT_JOIN(a PARTITIONED cpu, b "
                        "PARTITIONED cpu); SELECT * FROM lj;"),
            "\"ts\",\"dur\",\"cpu\",\"an\",\"bn\"\n"
            "0,5,1,\"a0\",\"[NULL]\"\n"
            "5,5,1,\"a0\",\"b0\"\n"
            "10,5,1,\"a1\",\"b0\"\n"
            "15,5,1,\"a1\",\"b1\"\n"
            "40,0,1,\"azero\",\"b1\"\n"
            "70,2,1,\"a5\",\"[NULL]\"\n"
            "72,0,1,\"a5\",\"bzero\"\n"
            "72,3,1,\"a5\",\"[NULL]\"\n"
            "5,20,2,\"a2\",\"b2\"\n"
            "50,5,3,\"a3\",\"[NULL]\"\n");
}

TEST(SpanJoin, OuterJoinKeepsBothSides) {
  TraceProcessor tp;
  EXPECT_EQ(Csv(tp, std::string(kTables) +
                        "CREATE VIRTUAL TABLE oj USING SPAN_OUTER_JOIN(a PARTITIONED cpu, b "
                        "PARTITIONED cpu); SELECT * FROM oj;"),
            "\"ts\",\"dur\",\"cpu\",\"an\",\"bn\"\n"
            "0,5,1,\"a0\",\"[NULL]\"\n"
            "5,5,1,\"a0\",\"b0\"\n"
            "10,5,1,\"a1\",\"b0\"\n"
            "15,5,1,\"a1\",\"b1\"\n"
            "20,20,1,\"[NULL]\",\"b1\"\n"
            "40,0,1,\"azero\",\"b1\"\n"
            "40,5,1,\"[NULL]\",\"b1\"\n"
            "70,2,1,\"a5\",\"[NULL]\"\n"
            "72,0,1,\"a5\",\"bzero\"\n"
            "72,3,1,\"a5\",\"[NULL]\"\n"
            "0,5,2,\"[NULL]\",\"b2\"\n"
            "5,20,2,\"a2\",\"b2\"\n"
            "25,75,2,\"[NULL]\",\"b2\"\n"
            "50,5,3,\"a3\",\"[NULL]\"\n"
            "60,5,4,\"[NULL]\",\"b4\"\n");
}

// Zero-length spans at the edges: one at another span's end joins nothing,
// one at its start joins; a zero-length span on the right that falls in a
// gap of the left side is not kept even by the outer join.
TEST(SpanJoin, ZeroLengthSpansAtEdges) {
  TraceProcessor tp;
  const std::string tables = R"sql(
CREATE PERFETTO TABLE a AS SELECT column1 AS ts, column2 AS dur, column3 AS cpu, column4 AS an
FROM (VALUES (0, 10, 1, 'a0'), (20, 10, 1, 'a1'), (40, 0, 1, 'ap'), (50, 10, 1, 'a5'),
             (100, 10, 2, 'x'), (200, 0, 3, 'p3'));
CREATE PERFETTO TABLE b AS SELECT column1 AS ts, column2 AS dur, column3 AS cpu, column4 AS bn
FROM (VALUES (10, 0, 1, 'bp10'), (20, 0, 1, 'bp20'), (40, 0, 1, 'bp40'), (60, 0, 1, 'bp60'),
             (105, 0, 2, 'q'), (110, 0, 2, 'q2'), (200, 0, 3, 'q3'), (200, 5, 4, 'r'));
CREATE VIRTUAL TABLE oj USING SPAN_OUTER_JOIN(a PARTITIONED cpu, b PARTITIONED cpu);
SELECT * FROM oj;
)sql";
  EXPECT_EQ(Csv(tp, tables),
            "\"ts\",\"dur\",\"cpu\",\"an\",\"bn\"\n"
            "0,10,1,\"a0\",\"[NULL]\"\n"
            "20,0,1,\"a1\",\"bp20\"\n"
            "20,10,1,\"a1\",\"[NULL]\"\n"
            "40,0,1,\"ap\",\"bp40\"\n"
            "40,0,1,\"ap\",\"[NULL]\"\n"
            "50,10,1,\"a5\",\"[NULL]\"\n"
            "100,5,2,\"x\",\"[NULL]\"\n"
            "105,0,2,\"x\",\"q\"\n"
            "105,5,2,\"x\",\"[NULL]\"\n"
            "200,0,3,\"p3\",\"q3\"\n"
            "200,0,3,\"p3\",\"[NULL]\"\n"
            "200,5,4,\"[NULL]\",\"r\"\n");
}

// One side partitioned, the other not: the unpartitioned side is joined
// against every partition of the other, whichever side it is.
constexpr const char* kMixed = R"sql(
CREATE PERFETTO TABLE a AS SELECT column1 AS ts, column2 AS dur, column3 AS cpu, column4 AS an
FROM (VALUES (0, 10, 1, 'a0'), (20, 10, 1, 'a1'), (5, 20, 3, 'a3'));
CREATE PERFETTO TABLE u AS SELECT column1 AS ts, column2 AS dur, column3 AS un
FROM (VALUES (5, 10, 'u0'), (25, 100, 'u1'));
)sql";

TEST(SpanJoin, MixedPartitioning) {
  TraceProcessor tp;
  EXPECT_EQ(Csv(tp, std::string(kMixed) +
                        "CREATE VIRTUAL TABLE lj2 USING SPAN_LEFT_JOIN(u, a PARTITIONED cpu);"
                        "SELECT * FROM lj2;"),
            "\"ts\",\"dur\",\"cpu\",\"un\",\"an\"\n"
            "5,5,1,\"u0\",\"a0\"\n"
            "10,5,1,\"u0\",\"[NULL]\"\n"
            "25,5,1,\"u1\",\"a1\"\n"
            "30,95,1,\"u1\",\"[NULL]\"\n"
            "5,10,3,\"u0\",\"a3\"\n"
            "25,100,3,\"u1\",\"[NULL]\"\n");
  EXPECT_EQ(Csv(tp,
                "CREATE VIRTUAL TABLE oj USING SPAN_OUTER_JOIN(a PARTITIONED cpu, u);"
                "SELECT * FROM oj;"),
            "\"ts\",\"dur\",\"cpu\",\"an\",\"un\"\n"
            "0,5,1,\"a0\",\"[NULL]\"\n"
            "5,5,1,\"a0\",\"u0\"\n"
            "10,5,1,\"[NULL]\",\"u0\"\n"
            "20,5,1,\"a1\",\"[NULL]\"\n"
            "25,5,1,\"a1\",\"u1\"\n"
            "30,95,1,\"[NULL]\",\"u1\"\n"
            "5,10,3,\"a3\",\"u0\"\n"
            "15,10,3,\"a3\",\"[NULL]\"\n"
            "25,100,3,\"[NULL]\",\"u1\"\n");
  EXPECT_EQ(Csv(tp, "SELECT * FROM oj WHERE cpu = 3 AND un IS NULL;"),
            "\"ts\",\"dur\",\"cpu\",\"an\",\"un\"\n"
            "15,10,3,\"a3\",\"[NULL]\"\n");
}

TEST(SpanJoin, ErrorsNameTheProblem) {
  TraceProcessor tp;
  const std::string tables = R"sql(
CREATE PERFETTO TABLE a AS SELECT 0 AS ts, 10 AS dur, 1 AS cpu, 'a0' AS an;
CREATE PERFETTO TABLE b AS SELECT 0 AS ts, 10 AS dur, 1 AS ucpu, 1 AS cpu, 'b0' AS bn;
CREATE PERFETTO TABLE c AS SELECT 0 AS ts, 10 AS dur, 1 AS cpu, 'c0' AS an;
CREATE PERFETTO TABLE nots AS SELECT 0 AS tss, 10 AS dur, 1 AS cpu;
)sql";
  ASSERT_EQ(Csv(tp, tables), "");
  auto error_of = [&](const std::string& args) {
    std::string out = Csv(tp, "CREATE VIRTUAL TABLE sj USING SPAN_JOIN(" + args + ")");
    return out.find(':') == std::string::npos ? out : out.substr(out.rfind("SPAN_JOIN"));
  };
  EXPECT_EQ(error_of("a PARTITIONED cpu, b PARTITIONED ucpu"),
            "SPAN_JOIN: mismatching partitions between the two tables; (partition cpu in table "
            "a, partition ucpu in table b)");
  EXPECT_EQ(error_of("a PARTITIONED cpu, c PARTITIONED cpu"),
            "SPAN_JOIN: column an present in both tables a and c");
  EXPECT_EQ(error_of("a PARTITIONED cpu, nots PARTITIONED cpu"),
            "SPAN_JOIN: Missing ts column in table nots");
  EXPECT_EQ(error_of("a PARTITIONED cpu, b PARTITIONED cpu, a"),
            "SPAN_JOIN: expected exactly two arguments");
  EXPECT_NE(Csv(tp, "CREATE VIRTUAL TABLE sj USING SPAN_JOIN(a, nosuch)")
                .find("Unknown table or view name 'nosuch'"),
            std::string::npos);
}

}  // namespace
}  // namespace fathom
