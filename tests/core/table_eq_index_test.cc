// Equality lookups on unsorted columns of the trace's tables go through an
// index (core/sql/table_eq_index.h); the answers, row order included, must be
// those of a full scan. `col + 0 = x` cannot be pushed to the table, so it is
// the scan to compare with.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"

namespace fathom {
namespace {

std::string CsvAnswer(TraceProcessor* tp, const std::string& sql) {
  auto it = tp->Query(sql);
  std::string out;
  Status st = PrintResults(it.get(), ResultFormat::kCsv, &out);
  if (!st.ok()) return "<query failed: " + st.message() + ">";
  return out;
}

// 300 slices on 5 threads, interleaved in time, with 7 names: more rows than
// a lookup scans without the index.
std::string InterleavedTrace() {
  std::string json = R"({"traceEvents":[)";
  for (int i = 0; i < 300; ++i) {
    if (i) json += ",";
    json += R"({"name":"n)" + std::to_string(i % 7) + R"(","ph":"X","ts":)" +
            std::to_string(i * 10) + R"(,"dur":5,"pid":1,"tid":)" + std::to_string(1 + i % 5) + "}";
  }
  return json + "]}";
}

class TableEqIndex : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string json = InterleavedTrace();
    ASSERT_TRUE(tp_.LoadBuffer(reinterpret_cast<const uint8_t*>(json.data()), json.size()).ok());
  }
  TraceProcessor tp_;
};

TEST_F(TableEqIndex, IntegerLookupMatchesScanInOrder) {
  const std::string indexed = CsvAnswer(
      &tp_,
      "SELECT group_concat(id) FROM slice WHERE track_id = (SELECT max(track_id) FROM slice)");
  const std::string scanned = CsvAnswer(&tp_,
                                        "SELECT group_concat(id) FROM slice WHERE track_id + 0 = "
                                        "(SELECT max(track_id) FROM slice)");
  EXPECT_EQ(indexed, scanned);
  EXPECT_NE(indexed.find(','), std::string::npos);  // 60 rows, not none
}

TEST_F(TableEqIndex, StringLookupMatchesScan) {
  EXPECT_EQ(
      CsvAnswer(&tp_, "SELECT count(*), group_concat(id) FROM slice WHERE name = 'n3'"),
      CsvAnswer(&tp_, "SELECT count(*), group_concat(id) FROM slice WHERE name || '' = 'n3'"));
  EXPECT_EQ(CsvAnswer(&tp_, "SELECT count(*) FROM slice WHERE name = 'absent'"),
            "\"count(*)\"\n0\n");
}

// A join probing slice once per track, with a range on the sorted ts column
// as well: index rows outside the range are left out.
TEST_F(TableEqIndex, JoinWithRangeMatchesScan) {
  const char* q =
      "SELECT group_concat(s.id) FROM thread_track t JOIN slice s ON s.track_id %s = t.id "
      "AND s.ts >= 1000 AND s.ts < 2500";
  char indexed[256], scanned[256];
  std::snprintf(indexed, sizeof indexed, q, "");
  std::snprintf(scanned, sizeof scanned, q, "+ 0");
  EXPECT_EQ(CsvAnswer(&tp_, indexed), CsvAnswer(&tp_, scanned));
  EXPECT_EQ(
      CsvAnswer(&tp_, "SELECT count(*) FROM thread_track t JOIN slice s ON s.track_id = t.id"),
      "\"count(*)\"\n300\n");
}

// `ORDER BY col` is left to the table when its values never decrease in
// table order (found by a pass when not declared): the result must be that
// of SQLite's own sort, for a column that is in order (ts), one that is not
// (track_id: threads interleave) and one with ties throughout (dur).
TEST_F(TableEqIndex, OrderByMatchesSqliteSort) {
  for (const char* col : {"ts", "track_id", "dur", "depth"}) {
    const std::string by_table = std::string("SELECT group_concat(") + col + ") FROM (SELECT " +
                                 col + " FROM slice ORDER BY " + col + ")";
    const std::string by_sqlite = std::string("SELECT group_concat(") + col + ") FROM (SELECT " +
                                  col + " FROM slice ORDER BY " + col + " + 0)";
    EXPECT_EQ(CsvAnswer(&tp_, by_table), CsvAnswer(&tp_, by_sqlite)) << col;
  }
  // ts is in order: no sort step in the plan; track_id is given in order by
  // its equality index; parent_id holds NULLs, which SQLite sorts first and
  // the index leaves out: SQLite sorts.
  EXPECT_EQ(CsvAnswer(&tp_, "EXPLAIN QUERY PLAN SELECT * FROM slice ORDER BY ts").find("B-TREE"),
            std::string::npos);
  EXPECT_EQ(
      CsvAnswer(&tp_, "EXPLAIN QUERY PLAN SELECT * FROM slice ORDER BY track_id").find("B-TREE"),
      std::string::npos);
  EXPECT_NE(
      CsvAnswer(&tp_, "EXPLAIN QUERY PLAN SELECT * FROM slice ORDER BY parent_id").find("B-TREE"),
      std::string::npos);
  // A range of ids keeps few rows, found by binary search: SQLite sorts
  // them rather than the whole index being walked.
  EXPECT_NE(
      CsvAnswer(&tp_, "EXPLAIN QUERY PLAN SELECT * FROM slice WHERE id < 50 ORDER BY track_id")
          .find("B-TREE"),
      std::string::npos);
}

// GLOB on a string column is tested by the scan, once per distinct string:
// the rows must be those of SQLite's own GLOB (`name || ''` is not handed to
// the table), for prefixes, classes, wildcards inside, and patterns that
// come from another table's rows.
TEST_F(TableEqIndex, GlobMatchesSqlite) {
  for (const char* pattern : {"n3", "n*", "*3", "[n][1-3]", "?2", "x*", "*", "N*"}) {
    const std::string q = std::string("SELECT count(*), group_concat(id) FROM slice WHERE name") +
                          " %s GLOB '" + pattern + "'";
    char pushed[256], sqlite[256];
    std::snprintf(pushed, sizeof pushed, q.c_str(), "");
    std::snprintf(sqlite, sizeof sqlite, q.c_str(), "|| ''");
    EXPECT_EQ(CsvAnswer(&tp_, pushed), CsvAnswer(&tp_, sqlite)) << pattern;
  }
  EXPECT_EQ(CsvAnswer(&tp_,
                      "SELECT count(*) FROM slice s JOIN (SELECT DISTINCT substr(name, 1, 1) "
                      "|| '?' AS p FROM slice) ON s.name GLOB p"),
            "\"count(*)\"\n300\n");
  EXPECT_NE(CsvAnswer(&tp_, "SELECT count(*) FROM slice WHERE name GLOB 'n*'"),
            "\"count(*)\"\n0\n");
}

// ORDER BY and GROUP BY served by an equality index (above) answer as
// SQLite's own sort and grouping do, ties in table order, with other filters
// and a range on the sorted ts applied on the way.
TEST_F(TableEqIndex, OrderAndGroupByIndexMatchSqlite) {
  const char* pairs[][2] = {
      {"SELECT group_concat(id) FROM (SELECT id FROM slice ORDER BY track_id)",
       "SELECT group_concat(id) FROM (SELECT id FROM slice ORDER BY track_id + 0)"},
      {"SELECT group_concat(id) FROM (SELECT id FROM slice WHERE ts >= 700000 AND ts < 2300000 AND "
       "dur > 0 ORDER BY track_id)",
       "SELECT group_concat(id) FROM (SELECT id FROM slice WHERE ts >= 700000 AND ts < 2300000 AND "
       "dur > 0 ORDER BY track_id + 0)"},
      {"SELECT group_concat(t || ':' || c || ':' || f) FROM (SELECT track_id AS t, count() AS c, "
       "group_concat(id) AS f FROM slice GROUP BY track_id)",
       "SELECT group_concat(t || ':' || c || ':' || f) FROM (SELECT track_id + 0 AS t, count() AS "
       "c, group_concat(id) AS f FROM slice GROUP BY track_id + 0)"},
  };
  for (const auto& [indexed, sorted] : pairs) {
    EXPECT_EQ(CsvAnswer(&tp_, indexed), CsvAnswer(&tp_, sorted)) << indexed;
    EXPECT_NE(CsvAnswer(&tp_, indexed).find(','), std::string::npos) << indexed;
  }
}

// The index is built by counting when a column holds few values (names,
// tracks above) and by sorting otherwise: durations here are mostly distinct,
// with a few repeated, and every lookup must still give the scan's rows.
TEST(TableEqIndexManyValues, LookupMatchesScan) {
  std::string json = R"({"traceEvents":[)";
  for (int i = 0; i < 400; ++i) {
    if (i) json += ",";
    const int dur = i % 50 == 0 ? 7 : 10 + (i * 37) % 997;
    json += R"({"name":"s","ph":"X","ts":)" + std::to_string(i * 2000) + R"(,"dur":)" +
            std::to_string(dur) + R"(,"pid":1,"tid":)" + std::to_string(1 + i % 3) + "}";
  }
  json += "]}";
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadBuffer(reinterpret_cast<const uint8_t*>(json.data()), json.size()).ok());
  for (const char* dur : {"7000", "10000", "47000", "123"}) {
    const std::string q = std::string("SELECT count(*), group_concat(id) FROM slice WHERE dur");
    EXPECT_EQ(CsvAnswer(&tp, q + " = " + dur), CsvAnswer(&tp, q + " + 0 = " + dur)) << dur;
  }
  EXPECT_EQ(CsvAnswer(&tp, "SELECT count(*) FROM slice WHERE dur = 7000"), "\"count(*)\"\n8\n");
}

}  // namespace
}  // namespace fathom
