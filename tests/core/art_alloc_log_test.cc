// The tiallocsample log importer on logs written here from the format's
// description (ART's tools/jvmti-agents/ti-alloc-sample README): parser
// records, malformed lines, sample weights, and the rows/flamegraph the core
// builds. Logs from a real JVM are covered by tests/device/jvmti.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/import/art_alloc_log_parser.h"
#include "core/trace_processor.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

std::vector<std::string> Rows(TraceProcessor& tp, const std::string& sql) {
  return testing::JoinedRows(tp, sql);
}

std::unique_ptr<TraceProcessor> LoadText(const std::string& text, const std::string& name) {
  auto tp = std::make_unique<TraceProcessor>();
  Status st = tp->LoadBuffer(reinterpret_cast<const uint8_t*>(text.data()), text.size(), name);
  EXPECT_TRUE(st.ok()) << st.message();
  return tp;
}

// The README's example, shortened: TTS key 0, frames 1..4, stack 5 (frames
// outermost first, key 1 used twice as in the original), two samples.
const char kReadmeLog[] =
    "+0,jthread[main], jclass[[I file: <UNKNOWN_FILE>], size[24, hex: 0x18]\n"
    "+1,main([Ljava/lang/String;)V\n"
    "+2,run()V\n"
    "+3,loop()V\n"
    "+4,readFromParcel(Landroid/os/Parcel;)V\n"
    "=5,0;1;2;1;3;4\n"
    "5\n"
    "5\n";

TEST(ArtAllocLogParser, ReadsTheDocumentedRecords) {
  ArtAllocLogParser p;
  std::string log = kReadmeLog;
  size_t start = 0;
  for (size_t nl; (nl = log.find('\n', start)) != std::string::npos; start = nl + 1)
    EXPECT_TRUE(p.ParseLine(std::string_view(log).substr(start, nl - start)));
  EXPECT_FALSE(p.header().present);
  ASSERT_NE(p.Type(0), nullptr);
  EXPECT_EQ(p.Type(0)->thread, "main");
  EXPECT_EQ(p.Type(0)->class_signature, "[I");
  EXPECT_EQ(p.Type(0)->source_file, "<UNKNOWN_FILE>");
  EXPECT_EQ(p.Type(0)->size, 24);
  ASSERT_NE(p.Frame(2), nullptr);
  EXPECT_EQ(*p.Frame(2), "run()V");
  ASSERT_NE(p.Stack(5), nullptr);
  EXPECT_EQ(*p.Stack(5), (std::vector<int64_t>{0, 1, 2, 1, 3, 4}));
  ASSERT_EQ(p.samples().size(), 1u);
  EXPECT_EQ(p.samples()[0], (std::pair<int64_t, int64_t>{5, 2}));
  EXPECT_EQ(p.malformed_count(), 0u);
}

TEST(ArtAllocLogParser, TypeFieldsAreFoundFromTheEnd) {
  // A thread name holding the separators must not confuse the fields.
  auto t = ParseArtAllocType(
      "jthread[pool-1], jclass[x], size[9]], jclass[Ljava/lang/String; file: String.java], "
      "size[56, hex: 0x38]");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->thread, "pool-1], jclass[x], size[9]");
  EXPECT_EQ(t->class_signature, "Ljava/lang/String;");
  EXPECT_EQ(t->source_file, "String.java");
  EXPECT_EQ(t->size, 56);
  EXPECT_FALSE(ParseArtAllocType("jthread[main], jclass[[I], size[24]").has_value());
  EXPECT_FALSE(ParseArtAllocType("jthread[main], jclass[[I file: x], size[-4]").has_value());
}

TEST(ArtAllocLogParser, DisplayNames) {
  EXPECT_EQ(JavaClassDisplayName("Ljava/lang/String;"), "java.lang.String");
  EXPECT_EQ(JavaClassDisplayName("[[I"), "int[][]");
  EXPECT_EQ(JavaClassDisplayName("[Ljava/lang/Object;"), "java.lang.Object[]");
  EXPECT_EQ(JavaClassDisplayName("[B"), "byte[]");
}

TEST(ArtAllocLogParser, SampleWeights) {
  ArtAllocLogHeader h;
  EXPECT_EQ(ArtSampleWeight(h, 100), 1);  // plain tiallocsample: raw samples
  h.mode = ArtAllocLogHeader::kCount;
  h.rate = 10;
  EXPECT_EQ(ArtSampleWeight(h, 100), 10);
  h.mode = ArtAllocLogHeader::kBytes;
  h.rate = 1000;
  // Small objects stand for about rate/size allocations; huge ones for one.
  EXPECT_NEAR(ArtSampleWeight(h, 10), 100.5, 0.1);
  EXPECT_NEAR(ArtSampleWeight(h, 100000), 1.0, 1e-9);
}

TEST(ArtAllocLogImport, ReadmeLogBecomesAJavaAllocationFlamegraph) {
  auto tp = LoadText(kReadmeLog, "/data/local/tmp/app_alloc.log");
  EXPECT_EQ(tp->report().format, "tiallocsample log");
  // No pid in the log: a synthetic process named after the file.
  EXPECT_EQ(Rows(*tp, "select name from process where name is not null"),
            std::vector<std::string>{"app_alloc.log"});
  // Raw samples (no header): count 2, size 2 * 24, on ART's Java heap.
  EXPECT_EQ(Rows(*tp, "select heap_name, count, size from heap_profile_allocation"),
            std::vector<std::string>{"com.android.art|2|48"});
  // The path: frames outermost first, the class as the leaf.
  EXPECT_EQ(Rows(*tp,
                 "select depth, name, map_name, cumulative_count, cumulative_size from "
                 "experimental_flamegraph('native', 0, NULL, (select upid from "
                 "heap_profile_allocation limit 1), NULL, NULL) order by depth"),
            (std::vector<std::string>{
                "0|main([Ljava/lang/String;)V|JAVA|2|48", "1|run()V|JAVA|2|48",
                "2|main([Ljava/lang/String;)V|JAVA|2|48", "3|loop()V|JAVA|2|48",
                "4|readFromParcel(Landroid/os/Parcel;)V|JAVA|2|48", "5|int[]|JAVA|2|48"}));
}

TEST(ArtAllocLogImport, HeaderScalesSamplesAndNamesTheProcess) {
  std::string log =
      "# fathom-jvmti version=1 mode=bytes rate=1000 stack_depth_limit=8 pid=4242 "
      "ts=5000 process=com.example.App --flag\n"
      "+0,jthread[main], jclass[Ljava/lang/String; file: String.java], size[24, hex: 0x18]\n"
      "+1,com.example.App.main([Ljava/lang/String;)V\n"
      "+2,com.example.App.makeStrings(I)V\n"
      "=3,0;1;2\n"
      "+4,jthread[worker], jclass[Ljava/lang/String; file: String.java], size[24, hex: 0x18]\n"
      "=5,4;1;2\n"
      "+6,jthread[main], jclass[[J file: <UNKNOWN_FILE>], size[8016, hex: 0x1f50]\n"
      "=7,6;1\n"
      "3\n5\n5\n7\n"
      "# end ts=9000 samples=4\n";
  auto tp = LoadText(log, "x.log");
  EXPECT_EQ(Rows(*tp, "select pid, name from process where pid = 4242"),
            std::vector<std::string>{"4242|com.example.App --flag"});
  // Both threads' String samples share one callsite: 3 samples of 24 bytes at
  // a 1000-byte mean interval stand for 3 / (1 - e^-0.024) allocations.
  double w24 = 3 / -std::expm1(-24.0 / 1000), w8016 = 1 / -std::expm1(-8016.0 / 1000);
  EXPECT_EQ(Rows(*tp,
                 "select f.name, a.ts, a.count, a.size from heap_profile_allocation a join "
                 "stack_profile_callsite c on a.callsite_id = c.id join stack_profile_frame f on "
                 "c.frame_id = f.id order by f.name"),
            (std::vector<std::string>{"java.lang.String|9000|" + std::to_string(std::llround(w24)) +
                                          "|" + std::to_string(std::llround(w24 * 24)),
                                      "long[]|9000|" + std::to_string(std::llround(w8016)) + "|" +
                                          std::to_string(std::llround(w8016 * 8016))}));
  EXPECT_EQ(Rows(*tp,
                 "select name, depth from experimental_flamegraph('native', 9000, NULL, "
                 "(select upid from process where pid = 4242), NULL, 'makeStrings') order by "
                 "depth"),
            (std::vector<std::string>{"com.example.App.main([Ljava/lang/String;)V|0",
                                      "com.example.App.makeStrings(I)V|1", "java.lang.String|2"}));
  EXPECT_TRUE(tp->report().warnings.empty());
}

TEST(ArtAllocLogImport, MalformedLinesAreCountedWithTheirLineNumbers) {
  std::string log =
      "+0,jthread[main], jclass[[I file: <UNKNOWN_FILE>], size[24, hex: 0x18]\n"  // 1
      "+1,run()V\n"                                                               // 2
      "+2,jthread[main], jclass[[I], size[24]\n"                                  // 3: no file
      "=3,0;1\n"                                                                  // 4
      "=4,0;99\n"                                                                 // 5: undefined
      "=5,1;1\n"                                                                  // 6: no TTS
      "3\n"                                                                       // 7
      "17\n"                                                                      // 8: no stack 17
      "garbage here\n"                                                            // 9
      "+x,foo\n"                                                                  // 10
      "\n"                                                                        // 11: blank, ok
      "=6,0;;1\n"                                                                 // 12
      "3";  // 13: last line without a newline still counts
  auto tp = LoadText(log, "bad.log");
  EXPECT_EQ(Rows(*tp, "select value from stats where name = 'art_alloc_log_malformed_lines'"),
            std::vector<std::string>{"7"});
  EXPECT_EQ(Rows(*tp,
                 "select idx from stats where name = 'art_alloc_log_malformed_line_number' "
                 "order by idx"),
            (std::vector<std::string>{"3", "5", "6", "8", "9", "10", "12"}));
  EXPECT_EQ(Rows(*tp, "select count, size from heap_profile_allocation"),
            std::vector<std::string>{"2|48"});
  ASSERT_FALSE(tp->report().warnings.empty());
  EXPECT_NE(tp->report().warnings[0].find("7 malformed"), std::string::npos);
}

TEST(ArtAllocLogImport, TruncatedAgentLogIsReported) {
  std::string log =
      "# fathom-jvmti version=1 mode=count rate=10 pid=7 process=p\n"
      "+0,jthread[main], jclass[[I file: <UNKNOWN_FILE>], size[24, hex: 0x18]\n"
      "=1,0\n"
      "1\n";
  auto tp = LoadText(log, "cut.log");
  EXPECT_EQ(Rows(*tp, "select count, size from heap_profile_allocation"),
            std::vector<std::string>{"10|240"});
  ASSERT_EQ(tp->report().warnings.size(), 1u);
  EXPECT_NE(tp->report().warnings[0].find("no \"# end\""), std::string::npos);
}

}  // namespace
}  // namespace fathom
