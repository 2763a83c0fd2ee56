// General rules of upstream's SQL functions that the diff-test suite pins
// only in trivial cases. Every expected answer is what upstream's
// trace_processor_shell v58.2 printed for the same trace and query.
#include <gtest/gtest.h>

#include <string>

#include "core/sql/result_printer.h"
#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {
namespace {

// The CSV answer to `sql` on the trace `json` (JSON or binary proto), or the
// error.
std::string CsvAnswer(const std::string& json, const std::string& sql) {
  TraceProcessor tp;
  Status st = tp.LoadBuffer(reinterpret_cast<const uint8_t*>(json.data()), json.size());
  if (!st.ok()) return "<load failed: " + st.message() + ">";
  auto it = tp.Query(sql);
  std::string out;
  st = PrintResults(it.get(), ResultFormat::kCsv, &out);
  if (!st.ok()) return "<query failed: " + st.message() + ">";
  return out;
}

const char* const kOneSlice =
    R"({"traceEvents":[{"name":"E","ph":"X","ts":1,"dur":1,"pid":1,"tid":1}]})";

// Blocks (a root slice and its descendants) are placed tallest first: B's
// two-row block takes rows 0-1 although A starts earlier; C reuses row 0 once
// B has ended (ending at 12 and starting at 12 do not overlap).
TEST(SqlFunctions, SliceLayoutPlacesTallestBlocksFirst) {
  const std::string trace = R"({"traceEvents":[
    {"name":"A","ph":"X","ts":0,"dur":10,"pid":1,"tid":1},
    {"name":"B","ph":"X","ts":2,"dur":10,"pid":1,"tid":2},
    {"name":"B1","ph":"X","ts":3,"dur":1,"pid":1,"tid":2},
    {"name":"C","ph":"X","ts":12,"dur":5,"pid":1,"tid":3},
    {"name":"D","ph":"X","ts":5,"dur":10,"pid":1,"tid":4}]})";
  EXPECT_EQ(CsvAnswer(trace,
                      "select s.name, l.layout_depth from experimental_slice_layout(("
                      "select group_concat(distinct track_id) from slice)) l "
                      "join slice s using(id) order by s.name"),
            "\"name\",\"layout_depth\"\n\"A\",2\n\"B\",0\n\"B1\",1\n\"C\",0\n\"D\",3\n");
}

// Empty matches right after a match are skipped, code points (not bytes) are
// stepped over, a rewrite naming a missing group replaces nothing, a bad
// escape cuts the rewrite short; regexp_extract falls back to the whole match
// when its group captured nothing; unhex takes a sign after the prefix.
TEST(SqlFunctions, RegexAndUnhexEdgeCases) {
  EXPECT_EQ(CsvAnswer(kOneSlice,
                      "SELECT regexp_replace_simple('aaa','a*','X') a, "
                      "regexp_replace_simple('ab','x*','-') b, "
                      "regexp_replace_simple('h\xC3\xA9llo','','-') c, "
                      "regexp_replace_simple('abab','(a)b','\\2') d, "
                      "regexp_replace_simple('abab','(a)b','x\\') e, "
                      "regexp_extract('abc','a()') f, regexp_extract('abc','(x)?b') g, "
                      "regexp('a','A','ci') h, unhex('-8000000000000000') i, "
                      "unhex('0x-1') j, unhex(' +f ') k"),
            "\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\",\"j\",\"k\"\n"
            "\"X\",\"-a-b-\",\"-h-\xC3\xA9-l-l-o-\",\"abab\",\"xx\",\"a\",\"b\",1,"
            "-9223372036854775808,-1,15\n");
}

// Long texts (300k characters) match without exhausting the stack.
TEST(SqlFunctions, RegexHandlesLongTexts) {
  EXPECT_EQ(CsvAnswer(kOneSlice,
                      "select regexp('a.*x', 'a' || replace(hex(zeroblob(150000)), '0', 'b')) r, "
                      "length(regexp_replace_simple(replace(hex(zeroblob(150000)), '0', 'b'), "
                      "'b', 'c')) s, length(regexp_extract(replace(hex(zeroblob(150000)), '0', "
                      "'b'), '(b+)')) t"),
            "\"r\",\"s\",\"t\"\n0,300000,300000\n");
}

// LAST_NON_NULL over sliding and empty frames.
TEST(SqlFunctions, LastNonNullFollowsTheFrame) {
  EXPECT_EQ(CsvAnswer(kOneSlice,
                      "CREATE TABLE T(id INTEGER, val);"
                      "INSERT INTO T VALUES (1, 1), (2, NULL), (3, 'x'), (4, 4.5), (5, NULL),"
                      " (6, NULL), (7, NULL);"
                      "SELECT id, LAST_NON_NULL(val) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING"
                      " AND 1 FOLLOWING) AS a, LAST_NON_NULL(val) OVER (ORDER BY id ROWS BETWEEN"
                      " 3 PRECEDING AND 1 PRECEDING) AS b, LAST_NON_NULL(val) OVER () AS c"
                      " FROM T ORDER BY id"),
            "\"id\",\"a\",\"b\",\"c\"\n"
            "1,1,\"[NULL]\",4.500000\n2,\"x\",1,4.500000\n3,4.500000,1,4.500000\n"
            "4,4.500000,\"x\",4.500000\n5,4.500000,4.500000,4.500000\n"
            "6,\"[NULL]\",4.500000,4.500000\n7,\"[NULL]\",4.500000,4.500000\n");
}

// INTERNAL_LAYOUT: the lowest depth free at ts; instants free their depth for
// the next row, dur -1 never frees it.
TEST(SqlFunctions, InternalLayoutReusesFreedDepths) {
  EXPECT_EQ(CsvAnswer(kOneSlice,
                      "CREATE TABLE T(id INTEGER, ts INTEGER, dur INTEGER);"
                      "INSERT INTO T VALUES (1,1,0),(2,1,0),(3,1,5),(4,2,0),(5,2,-1),(6,3,1),"
                      "(7,10,1),(8,10,1),(9,11,0),(10,11,2);"
                      "SELECT id, ts, dur, INTERNAL_LAYOUT(ts, dur) over (order by ts rows"
                      " between unbounded preceding and current row) as depth FROM T"),
            "\"id\",\"ts\",\"dur\",\"depth\"\n1,1,0,0\n2,1,0,0\n3,1,5,0\n4,2,0,1\n5,2,-1,1\n"
            "6,3,1,2\n7,10,1,0\n8,10,1,2\n9,11,0,0\n10,11,2,0\n");
}

// Nested keys become objects and arrays in first-seen order; reals print
// with %.16g; non-ASCII and control characters are \u-escaped.
TEST(SqlFunctions, ArgSetToJsonNestsAndTypesValues) {
  const std::string trace =
      R"({"traceEvents":[{"name":"E","ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"args":{)"
      R"("a":1.5,"b":"q\"uo\n\t\u0001)"
      "\xC3\xA9"
      R"(/","d":true,"e":[1,{"x":2},[3,4]],"i":1e300,"j":0.1,"l":100.0,"z":1e16}}]})";
  EXPECT_EQ(CsvAnswer(trace, "select __intrinsic_arg_set_to_json(arg_set_id) j from slice"),
            "\"j\"\n"
            R"("{"args":{"a":1.5,"b":"q\"uo\n\t\u0001\u00e9/","d":true,"e":[1,{"x":2},[3,4]],)"
            R"("i":1e+300,"j":0.1,"l":100,"z":1e+16}}")"
            "\n");
}

// TO_REALTIME / TO_MONOTONIC offset ts from the latest snapshot at or before
// it; before the first snapshot they give that snapshot's value unchanged.
TEST(SqlFunctions, ClockConversionsFollowTheLatestSnapshot) {
  perfetto::protos::Trace trace;
  auto add_snapshot = [&](std::initializer_list<std::pair<uint32_t, uint64_t>> clocks) {
    auto* snapshot = trace.add_packet()->mutable_clock_snapshot();
    for (const auto& [id, ts] : clocks) {
      auto* c = snapshot->add_clocks();
      c->set_clock_id(id);
      c->set_timestamp(ts);
    }
  };
  add_snapshot({{6, 100}, {1, 1000}, {3, 70}});  // BOOTTIME, REALTIME, MONOTONIC
  add_snapshot({{6, 200}, {1, 5000}});
  EXPECT_EQ(CsvAnswer(trace.SerializeAsString(),
                      "select to_realtime(50) a, to_realtime(150) b, to_realtime(250) c, "
                      "to_monotonic(50) d, to_monotonic(250) e"),
            "\"a\",\"b\",\"c\",\"d\",\"e\"\n1000,1050,5050,70,220\n");
}

// Between two snapshots the offset never carries past the next snapshot's
// value (a wall clock set back holds), except at a snapshot's own time.
TEST(SqlFunctions, ClockConversionsStopAtTheNextSnapshotValue) {
  perfetto::protos::Trace trace;
  for (const auto& [boot, real] : {std::pair<uint64_t, uint64_t>{10, 0},
                                   {20, 1652904000000000000},
                                   {30, 1652903999999999995}}) {
    auto* snapshot = trace.add_packet()->mutable_clock_snapshot();
    auto* b = snapshot->add_clocks();
    b->set_clock_id(6);
    b->set_timestamp(boot);
    auto* r = snapshot->add_clocks();
    r->set_clock_id(1);
    r->set_timestamp(real);
  }
  EXPECT_EQ(CsvAnswer(trace.SerializeAsString(),
                      "select to_realtime(15) a, to_realtime(20) b, to_realtime(25) c, "
                      "to_realtime(35) d, to_timecode(-3600123456789) e"),
            "\"a\",\"b\",\"c\",\"d\",\"e\"\n5,1652904000000000000,1652903999999999995,"
            "1652904000000000000,\"-1:00:00 -123 -456 -789\"\n");
}

}  // namespace
}  // namespace fathom
