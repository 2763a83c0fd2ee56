// Chrome JSON traces from ../shared/testdata. Expected numbers come from the
// files' text (counting phases with a regex), not from Fathom's output.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include "core/import/json_value.h"
#include "core/trace_processor.h"

namespace fathom {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t CountPhase(const std::string& text, char ph) {
  std::regex re(std::string("\"ph\":\\s*\"") + ph + "\"");
  return std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator());
}

int64_t QueryInt(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  EXPECT_TRUE(it->NextResultSet()) << it->status().message();
  EXPECT_TRUE(it->NextRow()) << sql;
  return it->Get(0).i;
}

const std::string kDir = std::string(FATHOM_SHARED_DIR) + "/testdata/";

TEST(JsonImport, BigTraceArrayFormBeginEndPairs) {
  std::string path = kDir + "chrome_big_trace.json";
  std::string text = Slurp(path);
  size_t begins = CountPhase(text, 'B'), ends = CountPhase(text, 'E');
  ASSERT_GT(begins, 0u);
  std::set<std::string> pids;
  std::regex pid_re("\"pid\":\\s*(\\d+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pid_re);
       it != std::sregex_iterator(); ++it)
    pids.insert((*it)[1]);

  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(path).ok());
  EXPECT_EQ(tp.report().format, "chrome json");
  EXPECT_EQ(QueryInt(tp, "select count(*) from slice"), static_cast<int64_t>(begins));
  // Every B has its E in this file, so no slice stays open.
  EXPECT_EQ(begins, ends);
  EXPECT_EQ(QueryInt(tp, "select count(*) from slice where dur < 0"), 0);
  EXPECT_EQ(QueryInt(tp, "select count(*) from process where pid != 0"),
            static_cast<int64_t>(pids.size()));
  // Nesting is consistent: each child lies within its parent.
  EXPECT_EQ(QueryInt(tp,
                     "select count(*) from slice c join slice p on c.parent_id = p.id "
                     "where c.ts < p.ts or c.ts + c.dur > p.ts + p.dur or c.depth != p.depth + 1"),
            0);
}

TEST(JsonImport, SimpleTraceObjectFormAllPhases) {
  std::string path = kDir + "chrome_simple_trace.json";
  std::string text = Slurp(path);
  size_t slices = CountPhase(text, 'B') + CountPhase(text, 'X') + CountPhase(text, 'I');
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(path).ok());
  EXPECT_EQ(QueryInt(tp, "select count(*) from slice"), static_cast<int64_t>(slices));
  // Each C event in this file carries exactly one numeric arg ("value").
  EXPECT_EQ(QueryInt(tp, "select count(*) from counter"),
            static_cast<int64_t>(CountPhase(text, 'C')));
  EXPECT_EQ(QueryInt(tp, "select count(*) from counter_track where name = 'counter value'"), 1);
  // Microsecond timestamps become exact nanoseconds: the earliest event is "ts": 818.
  EXPECT_EQ(QueryInt(tp, "select min(ts) from slice"), 818000);
  EXPECT_EQ(QueryInt(tp, "select dur from slice where name = 'Long X type'"), 15000);
  // M events name the threads.
  EXPECT_EQ(
      QueryInt(tp, "select count(*) from thread where name in ('threadA','threadB','threadC')"), 3);
  // Args of the first B event survive with their types.
  EXPECT_EQ(QueryInt(tp,
                     "select extract_arg(arg_set_id, 'args.value_true') from slice "
                     "where name like 'A long name%'"),
            1);
}

TEST(JsonImport, MicrosToNanosIsExact) {
  auto ns = [](const char* text) {
    auto v = json::Parse(text);
    return json::MicrosToNanos(*v);
  };
  EXPECT_EQ(ns("0.001"), 1);
  EXPECT_EQ(ns("438877834451"), 438877834451000);
  EXPECT_EQ(ns("1.5"), 1500);
  EXPECT_EQ(ns("6845940.1418570001"), 6845940141);
  EXPECT_EQ(ns("-2.25"), -2250);
  EXPECT_EQ(ns("\"12\""), 12000);
  EXPECT_FALSE(ns("\"abc\"").has_value());
}

TEST(JsonImport, TruncatedJsonLoadsWholeEventsAndWarns) {
  std::string text = Slurp(kDir + "chrome_big_trace.json");
  // Cut inside an event object (just before one of its keys).
  std::string cut = text.substr(0, text.find("\"name\"", text.size() / 2));
  TraceProcessor tp;
  ASSERT_TRUE(
      tp.LoadBuffer(reinterpret_cast<const uint8_t*>(cut.data()), cut.size(), "half.json").ok());
  // Whole events before the cut are all there.
  size_t whole_events = CountPhase(cut.substr(0, cut.rfind('}') + 1), 'B') +
                        CountPhase(cut.substr(0, cut.rfind('}') + 1), 'E');
  EXPECT_EQ(tp.report().packets, whole_events);
  ASSERT_FALSE(tp.report().warnings.empty());
  EXPECT_NE(tp.report().warnings[0].find("half.json: byte offset"), std::string::npos);
}

TEST(JsonImport, SimpleTraceSamplesResolveStackFrames) {
  // The file has three P events; only SampleC carries "sf": 8, whose frame
  // "frame8" has parent "1" ("main"). Checked with python's json module.
  std::string path = kDir + "chrome_simple_trace.json";
  std::string text = Slurp(path);
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(path).ok());
  EXPECT_EQ(QueryInt(tp, "select count(*) from perf_sample"),
            static_cast<int64_t>(CountPhase(text, 'P')));
  EXPECT_EQ(QueryInt(tp, "select count(*) from perf_sample where callsite_id is not null"), 1);
  EXPECT_EQ(QueryInt(tp, "select ts from perf_sample where callsite_id is not null"), 878000);
  EXPECT_EQ(QueryInt(tp,
                     "select c.depth from perf_sample p join stack_profile_callsite c "
                     "on p.callsite_id = c.id"),
            1);
  for (const auto& w : tp.report().warnings) EXPECT_EQ(w.find("stackFrames"), std::string::npos);
}

TEST(JsonImport, MalformedInputNamesOffsetAndKeepsWhatCameBefore) {
  // An unbalanced closing bracket stops the scan at its byte offset.
  std::string bad = R"([{"ph":"X","pid":1,"tid":1,"ts":1,"dur":1,"name":"a"}]])";
  TraceProcessor tp;
  ASSERT_TRUE(
      tp.LoadBuffer(reinterpret_cast<const uint8_t*>(bad.data()), bad.size(), "b.json").ok());
  EXPECT_EQ(QueryInt(tp, "select count(*) from slice"), 1);
  ASSERT_FALSE(tp.report().warnings.empty());
  EXPECT_NE(tp.report().warnings[0].find("byte offset " + std::to_string(bad.size() - 1)),
            std::string::npos)
      << tp.report().warnings[0];
}

}  // namespace
}  // namespace fathom

namespace fathom {
namespace {

// Async b/e events: one global track per (category, id as written) across
// processes, the string "7" and the number 7 apart, id2 {"global": x} the
// same as id x; only id2 {"local": x} is per process; no id, no slice.
// Expected tracks from trace_processor_shell v58.2 on the same JSON.
TEST(JsonImport, AsyncTracksKeyedAsUpstream) {
  const std::string json = R"json([
{"ph":"b","pid":200,"tid":201,"ts":1000,"name":"A","cat":"c","id":"7"},
{"ph":"e","pid":200,"tid":201,"ts":1100,"name":"A","cat":"c","id":"7"},
{"ph":"b","pid":300,"tid":301,"ts":1000,"name":"A","cat":"c","id":"7"},
{"ph":"e","pid":300,"tid":301,"ts":1100,"name":"A","cat":"c","id":"7"},
{"ph":"b","pid":200,"tid":201,"ts":1200,"name":"B","cat":"d","id":"7"},
{"ph":"e","pid":200,"tid":201,"ts":1300,"name":"B","cat":"d","id":"7"},
{"ph":"b","pid":200,"tid":201,"ts":1600,"name":"D","cat":"c","id":7},
{"ph":"e","pid":200,"tid":201,"ts":1700,"name":"D","cat":"c","id":7},
{"ph":"b","pid":200,"tid":201,"ts":1800,"name":"G","cat":"c","id2":{"global":"7"}},
{"ph":"e","pid":200,"tid":201,"ts":1900,"name":"G","cat":"c","id2":{"global":"7"}},
{"ph":"b","pid":200,"tid":201,"ts":2000,"name":"L","cat":"c","id2":{"local":"0x3"}},
{"ph":"e","pid":200,"tid":201,"ts":2100,"name":"L","cat":"c","id2":{"local":"0x3"}},
{"ph":"b","pid":200,"tid":201,"ts":2200,"name":"N","cat":"c"},
{"ph":"e","pid":200,"tid":201,"ts":2300,"name":"N","cat":"c"}
])json";
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadBuffer(reinterpret_cast<const uint8_t*>(json.data()), json.size()).ok());
  auto it = tp.Query(
      "select s.name || ':' || t.id || ':' || t.type from slice s join track t "
      "on s.track_id = t.id order by s.name, t.id");
  std::string got;
  ASSERT_TRUE(it->NextResultSet());
  while (it->NextRow()) got += std::string(it->Get(0).s) + " ";
  EXPECT_EQ(got,
            "A:0:legacy_async_global_slice A:0:legacy_async_global_slice "
            "B:1:legacy_async_global_slice D:2:legacy_async_global_slice "
            "G:0:legacy_async_global_slice L:3:legacy_async_process_slice ");
}

// Which end events count misplaced_end_event (trace_processor_shell v58.2 on
// these traces): an E with nothing open, or whose name/category matches no
// open slice, is ignored without a stat; only an open slice truncated because
// an enclosing slice already ended counts (jb: b is cut at a's end).
TEST(JsonImport, MisplacedEndEventOnlyForTruncatedSlices) {
  auto load = [](const std::string& events) {
    std::string text = "{\"traceEvents\":[" + events + "]}";
    auto tp = std::make_unique<TraceProcessor>();
    EXPECT_TRUE(tp->LoadBuffer(reinterpret_cast<const uint8_t*>(text.data()), text.size()).ok());
    return tp;
  };
  auto ev = [](const char* ph, int ts, const char* name, const char* cat) {
    return std::string("{\"ph\":\"") + ph + "\",\"pid\":1,\"tid\":1,\"ts\":" + std::to_string(ts) +
           ",\"name\":\"" + name + "\",\"cat\":\"" + cat + "\"}";
  };
  const char* kMisplaced = "select value from stats where name = 'misplaced_end_event'";
  // ja: an E before any B, an E after everything closed.
  auto ja = load(ev("E", 5, "x", "c") + "," + ev("B", 10, "a", "c") + "," + ev("E", 20, "a", "c") +
                 "," + ev("E", 25, "a", "c"));
  EXPECT_EQ(QueryInt(*ja, kMisplaced), 0);
  EXPECT_EQ(QueryInt(*ja, "select dur from slice where name = 'a'"), 10000);
  // jd: ends whose name or category match no open slice leave it open.
  auto jd = load(ev("B", 10, "a", "c") + "," + ev("E", 20, "b", "c") + "," + ev("E", 21, "a", "d") +
                 "," + ev("E", 30, "a", "c"));
  EXPECT_EQ(QueryInt(*jd, kMisplaced), 0);
  EXPECT_EQ(QueryInt(*jd, "select dur from slice where name = 'a'"), 20000);
  // jb: E a closes a under the still open b; b is truncated to 20 (counted once).
  auto jb = load(ev("B", 10, "a", "c") + "," + ev("B", 11, "b", "c") + "," + ev("E", 20, "a", "c") +
                 "," + ev("E", 22, "b", "c") + "," + ev("E", 25, "a", "c"));
  EXPECT_EQ(QueryInt(*jb, kMisplaced), 1);
  EXPECT_EQ(QueryInt(*jb, "select dur from slice where name = 'b'"), 9000);
}

}  // namespace
}  // namespace fathom
