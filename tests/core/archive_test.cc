// Containers and the formats added with them: zip/tar members merged into one
// storage, zlib atrace output, systrace HTML trace-data blocks, Chrome JSON
// systemTraceEvents / stackFrames + P samples, collapsed stacks, and text
// events kept in the raw table. Every input is written here, byte by byte,
// so the expected numbers are known without running Fathom.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/flamegraph/profiles.h"
#include "core/import/archive_reader.h"
#include "core/import/systrace_text_tokenizer.h"
#include "core/trace_processor.h"

namespace fathom {
namespace {

int64_t QueryInt(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  EXPECT_TRUE(it->NextResultSet()) << it->status().message();
  EXPECT_TRUE(it->NextRow()) << sql;
  return it->Get(0).i;
}

std::string QueryStr(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  EXPECT_TRUE(it->NextResultSet()) << it->status().message();
  EXPECT_TRUE(it->NextRow()) << sql;
  auto v = it->Get(0);
  return std::string(v.s);
}

Status Load(TraceProcessor& tp, const std::string& bytes, const std::string& name = "t") {
  return tp.LoadBuffer(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), name);
}

std::string Deflate(const std::string& in, int window_bits) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&zs, in.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

void Le(std::string* s, uint32_t v, int n) {
  for (int i = 0; i < n; ++i) s->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// A zip file per APPNOTE: local headers, data, central directory, end record.
std::string Zip(const std::vector<std::pair<std::string, std::string>>& files, bool deflate) {
  std::string out, cd;
  for (const auto& [name, data] : files) {
    std::string body = deflate ? Deflate(data, -MAX_WBITS) : data;
    uint32_t crc = static_cast<uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
    uint32_t off = static_cast<uint32_t>(out.size());
    auto header = [&, &name = name, &data = data](std::string* h, bool central) {
      Le(h, central ? 0x02014b50 : 0x04034b50, 4);
      if (central) Le(h, 20, 2);
      Le(h, 20, 2), Le(h, 0, 2), Le(h, deflate ? 8 : 0, 2), Le(h, 0, 4);
      Le(h, crc, 4), Le(h, static_cast<uint32_t>(body.size()), 4);
      Le(h, static_cast<uint32_t>(data.size()), 4), Le(h, static_cast<uint32_t>(name.size()), 2);
      Le(h, 0, 2);
      if (central) Le(h, 0, 2), Le(h, 0, 2), Le(h, 0, 2), Le(h, 0, 4), Le(h, off, 4);
      *h += name;
    };
    header(&out, false);
    out += body;
    header(&cd, true);
  }
  uint32_t cd_off = static_cast<uint32_t>(out.size());
  out += cd;
  Le(&out, 0x06054b50, 4), Le(&out, 0, 2), Le(&out, 0, 2);
  Le(&out, static_cast<uint32_t>(files.size()), 2),
      Le(&out, static_cast<uint32_t>(files.size()), 2);
  Le(&out, static_cast<uint32_t>(cd.size()), 4), Le(&out, cd_off, 4), Le(&out, 0, 2);
  return out;
}

std::string Tar(const std::vector<std::pair<std::string, std::string>>& files) {
  std::string out;
  for (const auto& [name, data] : files) {
    std::string h(512, '\0');
    memcpy(&h[0], name.data(), name.size());
    snprintf(&h[100], 8, "%07o", 0644);
    snprintf(&h[124], 12, "%011o", static_cast<unsigned>(data.size()));
    h[156] = '0';
    memcpy(&h[257], "ustar", 5);
    memset(&h[148], ' ', 8);
    unsigned sum = 0;
    for (char c : h) sum += static_cast<unsigned char>(c);
    snprintf(&h[148], 8, "%06o", sum);
    out += h + data + std::string((512 - data.size() % 512) % 512, '\0');
  }
  return out + std::string(1024, '\0');
}

// Three sched_switch lines on two CPUs plus one driver event (a text event
// with no dedicated translation).
const char kText[] =
    "# tracer: nop\n"
    "          <idle>-0     [000] d..3  100.000100: sched_switch: prev_comm=swapper/0 "
    "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app prev=1 next_pid=42 next_prio=120\n"
    "             app-42    [000] d..3  100.000300: sched_switch: prev_comm=app prev_pid=42 "
    "prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n"
    "          <idle>-0     [001] d..3  100.000200: sched_switch: prev_comm=swapper/1 "
    "prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=Binder:7 2 next_pid=43 next_prio=110\n"
    "       Binder:7 2-43   [001] ...1  100.000250: my_driver_event: id=0x1f name=hello world "
    "count=-3\n";

const char kJson[] =
    R"({"traceEvents":[{"ph":"X","pid":"renderer","tid":"main","ts":100000.5,"dur":2,"name":"Paint"},)"
    R"({"ph":"b","pid":1,"tid":1,"ts":100000,"cat":"c","id":"0x7","name":"Load"},)"
    R"({"ph":"e","pid":1,"tid":1,"ts":100001,"cat":"c","id":"0x7","name":"Load"}]})";

// As the oracle does with this text: an event line with no translation makes
// no ftrace_event row, but still names its thread; only sched_switch lines
// become raw rows.
TEST(RawTextEvents, UnknownTextEventOnlyNamesItsThread) {
  TraceProcessor tp;
  ASSERT_TRUE(Load(tp, kText).ok());
  EXPECT_EQ(QueryInt(tp, "select count(*) from sched"), 3);
  EXPECT_EQ(QueryInt(tp, "select count(*) from ftrace_event where name = 'my_driver_event'"), 0);
  EXPECT_EQ(QueryInt(tp, "select count(*) from ftrace_event where name = 'sched_switch'"), 3);
  EXPECT_EQ(QueryStr(tp, "select name from thread where tid = 43"), "Binder:7 2");
}

TEST(CompressedAtrace, ZlibOutputAfterTraceMarker) {
  std::string file = "capturing trace... done\nTRACE:\n" + Deflate(kText, MAX_WBITS);
  TraceProcessor tp;
  ASSERT_TRUE(Load(tp, file).ok());
  EXPECT_EQ(tp.report().format, "systrace text (zlib)");
  EXPECT_EQ(QueryInt(tp, "select count(*) from sched"), 3);
  // Cut inside the zlib stream: what inflated still loads, with a warning.
  std::string cut = file.substr(0, file.size() - 20);
  TraceProcessor tp2;
  Status st = Load(tp2, cut);
  if (st.ok()) {
    ASSERT_FALSE(tp2.report().warnings.empty());
    EXPECT_NE(tp2.report().warnings[0].find("compressed atrace"), std::string::npos);
  }
}

TEST(Archives, ZipWithTextAndJsonMergesIntoOneStorage) {
  for (bool deflate : {false, true}) {
    std::string zip =
        Zip({{"a/sys.txt", kText}, {"b.json", kJson}, {"README", "not a trace"}}, deflate);
    TraceProcessor tp;
    ASSERT_TRUE(Load(tp, zip).ok());
    EXPECT_EQ(tp.report().format.rfind("zip [2 trace(s):", 0), 0u) << tp.report().format;
    EXPECT_EQ(QueryInt(tp, "select count(*) from sched"), 3);
    EXPECT_EQ(QueryInt(tp, "select count(*) from slice where name in ('Paint','Load')"), 2);
    EXPECT_EQ(QueryInt(tp, "select dur from slice where name = 'Paint'"), 2000);
    EXPECT_EQ(QueryInt(tp, "select ts from slice where name = 'Paint'"), 100000500);
    // The non-trace member is reported, not fatal.
    bool warned = false;
    for (const auto& w : tp.report().warnings) warned |= w.find("README") != std::string::npos;
    EXPECT_TRUE(warned);
  }
}

TEST(Archives, TarWithTwoTextTracesAndCutZip) {
  std::string second =
      "# tracer: nop\n"
      "  other-77    [002] d..3  100.000400: sched_switch: prev_comm=other "
      "prev_pid=77 prev_prio=120 prev_state=S ==> next_comm=swapper/2 "
      "next_pid=0 next_prio=120\n";
  TraceProcessor tp;
  ASSERT_TRUE(Load(tp, Tar({{"one.txt", kText}, {"two.txt", second}})).ok());
  EXPECT_EQ(tp.report().format, "tar [2 trace(s): systrace text; systrace text]");
  EXPECT_EQ(QueryInt(tp, "select count(*) from sched"), 4);
  EXPECT_EQ(QueryInt(tp, "select count(distinct cpu) from sched"), 3);

  // A zip cut inside its second member: the first still loads, the error
  // names the member and offset.
  std::string zip = Zip({{"one.txt", kText}, {"b.json", kJson}}, true);
  std::string cut = zip.substr(0, zip.find("b.json") + 10);
  TraceProcessor tp2;
  ASSERT_TRUE(Load(tp2, cut).ok());
  EXPECT_EQ(QueryInt(tp2, "select count(*) from sched"), 3);
  ASSERT_FALSE(tp2.report().warnings.empty());
  EXPECT_NE(tp2.report().warnings[0].find("b.json: member data cut short"), std::string::npos)
      << tp2.report().warnings[0];
  EXPECT_NE(tp2.report().warnings[0].find("byte offset"), std::string::npos);
}

TEST(SystraceHtml, TraceDataBlocksTextAndJsonMerged) {
  std::string page = std::string("<!DOCTYPE html><html><head><script>var x = 1;</script></head>") +
                     "<body><script class=\"trace-data\">\n" + kText + "</script>\n" +
                     "<script class=\"trace-data\">\n" + kJson + "\n</script></body></html>\n";
  TraceProcessor tp;
  ASSERT_TRUE(Load(tp, page).ok());
  EXPECT_EQ(QueryInt(tp, "select count(*) from sched"), 3);
  EXPECT_EQ(QueryInt(tp, "select count(*) from slice where name = 'Paint'"), 1);
  // A page cut inside its only block: the lines before the cut load.
  std::string cut = std::string("<html><script class=\"trace-data\">\n") + kText;
  TraceProcessor tp2;
  ASSERT_TRUE(Load(tp2, cut).ok());
  EXPECT_EQ(QueryInt(tp2, "select count(*) from sched"), 3);
  ASSERT_FALSE(tp2.report().warnings.empty());
  EXPECT_NE(tp2.report().warnings[0].find("not closed"), std::string::npos);
}

TEST(ChromeJson, SystemTraceEventsStackFramesAndSamples) {
  std::string escaped;
  for (char c : std::string(kText)) escaped += c == '\n' ? std::string("\\n") : std::string(1, c);
  std::string json =
      R"({"traceEvents":[{"ph":"P","pid":5,"tid":"6","ts":100000.2,"sf":"3","name":"s"},)"
      R"({"ph":"P","pid":5,"tid":"6","ts":100000.3,"sf":3,"name":"s"},)"
      R"({"ph":"P","pid":5,"tid":6,"ts":100000.4,"sf":"2","name":"s"}],)"
      R"("stackFrames":{"1":{"name":"main","category":"app"},)"
      R"("2":{"name":"run","parent":"1","category":"app"},)"
      R"("3":{"name":"leaf","parent":2,"category":"libc.so"}},)"
      R"("systemTraceEvents":")" +
      escaped + R"("})";
  TraceProcessor tp;
  ASSERT_TRUE(Load(tp, json).ok()) << json;
  EXPECT_EQ(QueryInt(tp, "select count(*) from sched"), 3);
  EXPECT_EQ(QueryInt(tp, "select count(*) from perf_sample"), 3);
  // Two samples on main>run>leaf (depth 2), one on main>run (depth 1).
  EXPECT_EQ(QueryInt(tp,
                     "select count(*) from perf_sample p join stack_profile_callsite c "
                     "on p.callsite_id = c.id where c.depth = 2"),
            2);
  EXPECT_EQ(QueryStr(tp,
                     "select f.name from perf_sample p join stack_profile_callsite c "
                     "on p.callsite_id = c.id join stack_profile_frame f on c.frame_id = f.id "
                     "where p.ts = 100000200"),
            "leaf");
  EXPECT_EQ(QueryInt(tp, "select count(distinct utid) from perf_sample"), 1);
  for (const auto& w : tp.report().warnings)
    EXPECT_EQ(w.find("systemTraceEvents"), std::string::npos) << w;
}

TEST(CollapsedStacks, FoldedLinesBecomeCpuSamples) {
  std::string folded = "main;run;leaf 3\nmain;run 2\n# comment\nmain;other 1";
  TraceProcessor tp;
  ASSERT_TRUE(Load(tp, folded, "prof.folded").ok());
  EXPECT_EQ(tp.report().format, "collapsed stacks");
  EXPECT_EQ(QueryInt(tp, "select count(*) from perf_sample"), 6);
  EXPECT_EQ(QueryInt(tp, "select count(*) from stack_profile_frame"), 4);
  EXPECT_EQ(QueryInt(tp, "select count(*) from stack_profile_callsite"), 4);
  EXPECT_EQ(QueryInt(tp,
                     "select count(*) from perf_sample p join stack_profile_callsite c "
                     "on p.callsite_id = c.id join stack_profile_frame f on c.frame_id = f.id "
                     "where f.name = 'leaf' and c.depth = 2"),
            3);
  EXPECT_EQ(QueryStr(tp, "select name from process where name is not null"), "prof.folded");
  // A bad line stops the load there, naming the line; lines before it stay.
  TraceProcessor tp2;
  ASSERT_TRUE(Load(tp2, "a;b 2\na;c 1\na;d notanumber\na;e 4\n").ok());
  EXPECT_EQ(QueryInt(tp2, "select count(*) from perf_sample"), 3);
  ASSERT_FALSE(tp2.report().warnings.empty());
  EXPECT_NE(tp2.report().warnings[0].find("line 3"), std::string::npos) << tp2.report().warnings[0];
}

TEST(CollapsedStacks, FlamegraphModelShowsTheFoldedTree) {
  TraceProcessor tp;
  ASSERT_TRUE(Load(tp, "main;run;leaf 3\nmain;run 2\nmain;other 1\n", "p.folded").ok());
  auto dumps = ListProfiles(tp.storage());
  auto dump = PickLargestProfile(dumps, ProfileKind::kCpu, std::nullopt);
  ASSERT_TRUE(dump.has_value());
  auto fg = BuildFlamegraph(tp.storage(), RequestFor(*dump, FlamegraphView::kSamples));
  ASSERT_TRUE(fg.ok()) << fg.status().message();
  EXPECT_EQ(fg->Total(MetricOf(FlamegraphView::kSamples)), 6);
  ASSERT_EQ(fg->roots().size(), 1u);
  uint32_t root = fg->roots()[0];
  EXPECT_EQ(fg->name(root), "main");
  EXPECT_EQ(fg->node(root).cumulative(MetricOf(FlamegraphView::kSamples)), 6);
  EXPECT_EQ(fg->children(root).size(), 2u);  // run, other
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Archives, RealTracesInOneZipEqualTheirSeparateLoads) {
  // A Perfetto trace, a text dump and a JSON trace from ../shared/testdata in
  // one zip: the merged storage holds the sum of each file's rows.
  std::string dir = std::string(FATHOM_SHARED_DIR) + "/testdata/";
  std::vector<std::pair<std::string, std::string>> files = {
      {"binder.perfetto-trace", Slurp(dir + "android_sched_binder_10s.perfetto-trace")},
      {"systrace_android.txt", Slurp(dir + "systrace_android.txt")},
      {"chrome_big_trace.json", Slurp(dir + "chrome_big_trace.json")}};
  int64_t sched = 0, slices = 0;
  for (const auto& [name, bytes] : files) {
    TraceProcessor one;
    ASSERT_TRUE(Load(one, bytes, name).ok()) << name;
    sched += QueryInt(one, "select count(*) from sched");
    slices += QueryInt(one, "select count(*) from slice");
  }
  ASSERT_GT(sched, 0);
  TraceProcessor tp;
  ASSERT_TRUE(Load(tp, Zip(files, true), "all.zip").ok());
  EXPECT_EQ(tp.report().format, "zip [3 trace(s): perfetto protobuf; systrace text; chrome json]");
  EXPECT_EQ(QueryInt(tp, "select count(*) from sched"), sched);
  EXPECT_EQ(QueryInt(tp, "select count(*) from slice"), slices);
}

TEST(Archives, CompressedMembersAreInflated) {
  // trace.pb.gz and trace.json.gz inside a tar (as `tar czf` of already-gzipped files, or a
  // bugreport-style bundle): each member is unwrapped by its magic bytes, like a file.
  std::string dir = std::string(FATHOM_SHARED_DIR) + "/testdata/";
  const std::string proto = Slurp(dir + "android_sched_binder_10s.perfetto-trace");
  const std::string json = Slurp(dir + "chrome_big_trace.json");
  int64_t sched = 0, slices = 0;
  for (const std::string* bytes : {&proto, &json}) {
    TraceProcessor one;
    ASSERT_TRUE(Load(one, *bytes).ok());
    sched += QueryInt(one, "select count(*) from sched");
    slices += QueryInt(one, "select count(*) from slice");
  }
  ASSERT_GT(sched, 0);
  ASSERT_GT(slices, 0);
  const std::string gz_proto = Deflate(proto, 15 + 16), gz_json = Deflate(json, 15 + 16);
  ASSERT_EQ(static_cast<uint8_t>(gz_proto[0]), 0x1f);
  for (const std::string& archive :
       {Tar({{"trace.pb.gz", gz_proto}, {"trace.json.gz", gz_json}}),
        Zip({{"trace.pb.gz", gz_proto}, {"trace.json.gz", gz_json}}, true)}) {
    TraceProcessor tp;
    ASSERT_TRUE(Load(tp, archive).ok());
    EXPECT_NE(tp.report().format.find("2 trace(s): perfetto protobuf (gzip); chrome json (gzip)"),
              std::string::npos)
        << tp.report().format;
    EXPECT_EQ(QueryInt(tp, "select count(*) from sched"), sched);
    EXPECT_EQ(QueryInt(tp, "select count(*) from slice"), slices);
    EXPECT_TRUE(tp.report().warnings.empty()) << ::testing::PrintToString(tp.report().warnings);
  }
}

// __intrinsic_trace_file lists the archive and its members; processing_order
// puts protobuf members first, then the rest by name. Expected rows from
// upstream's trace_processor_shell (v58.2) on a zip of the same members.
TEST(Archives, TraceFileRowsFollowUpstreamProcessingOrder) {
  const std::string json =
      R"({"traceEvents":[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"x"}]})";
  const std::string text =
      "# tracer: nop\n#\n          <idle>-0     [000] ...1  1.000000: cpu_idle: state=1 "
      "cpu_id=0\n";
  // packet { timestamp: 10 trusted_packet_sequence_id: 1 }
  const std::string proto("\x0a\x04\x40\x0a\x50\x01", 6);
  std::string zip =
      Zip({{"c.json", json}, {"a.systrace", text}, {"b.pb", proto}, {"e.json", json}}, true);
  TraceProcessor tp;
  ASSERT_TRUE(Load(tp, zip).ok());
  auto it = tp.Query(
      "select id, parent_id, name, size, trace_type, processing_order, is_container "
      "from __intrinsic_trace_file order by id");
  ASSERT_TRUE(it->NextResultSet()) << it->status().message();
  std::string rows;
  while (it->NextRow()) {
    for (int c = 0; c < 7; ++c) {
      auto v = it->Get(c);
      rows += v.type == SqlValue::kNull     ? "NULL"
              : v.type == SqlValue::kString ? std::string(v.s)
                                            : std::to_string(v.i);
      rows += c == 6 ? ";" : ",";
    }
  }
  EXPECT_EQ(rows, "0,NULL,NULL," + std::to_string(zip.size()) +
                      ",zip,0,1;"
                      "1,0,c.json,70,json,3,0;2,0,a.systrace,88,systrace,2,0;"
                      "3,0,b.pb,6,proto,1,0;4,0,e.json,70,json,4,0;");
}

}  // namespace
}  // namespace fathom
