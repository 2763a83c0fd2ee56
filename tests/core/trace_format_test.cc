// Format detection on real files: every Perfetto trace we have stays a
// Perfetto trace, and text formats that start with blank lines (0x0A, a
// Trace's first byte too) are told by their content.
#include "core/import/trace_format.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/trace_processor.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

namespace fs = std::filesystem;
using fathom::testing::AsBytes;
using fathom::testing::ReadFileBytes;
using fathom::testing::SharedDir;
using fathom::testing::TempDir;
using fathom::testing::TestData;

TraceFormat Detect(const std::string& b) { return DetectTraceFormat(AsBytes(b), b.size()); }

int64_t QueryInt(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  EXPECT_TRUE(it->NextResultSet() && it->NextRow()) << sql << ": " << it->status().message();
  return it->Get(0).i;
}

TEST(FormatDetect, EveryPerfettoTraceIsDetectedAsPerfetto) {
  size_t checked = 0;
  for (const fs::path& dir : {SharedDir() / "difftests", SharedDir() / "testdata"})
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".pb" && ext != ".pftrace" && ext != ".perfetto-trace"))
        continue;
      std::string b = ReadFileBytes(e.path());
      if (b.empty() || b[0] != 0x0A) continue;  // gzip or pprof: other tests
      if (Detect(b) == TraceFormat::kPprof) continue;
      EXPECT_EQ(Detect(b), TraceFormat::kProto) << e.path();
      // The loader sees the first chunk only, and a truncated trace must stay
      // a (truncated) trace.
      for (size_t cut : {size_t{2}, size_t{7}, size_t{64}, size_t{4096}}) {
        if (cut < b.size()) {
          EXPECT_EQ(Detect(b.substr(0, cut)), TraceFormat::kProto) << e.path() << " cut " << cut;
        }
      }
      ++checked;
    }
  EXPECT_GT(checked, 80u);
}

TEST(FormatDetect, SystraceTextWithLeadingBlankLines) {
  std::string text = ReadFileBytes(TestData("systrace_android.txt"));
  ASSERT_FALSE(text.empty());
  // With its "# tracer" header, and without (a bare ftrace dump).
  std::string bare;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size() - 1;
    if (text[pos] != '#') bare += text.substr(pos, nl + 1 - pos);
    pos = nl + 1;
  }
  TraceProcessor plain;
  ASSERT_TRUE(plain.LoadBuffer(AsBytes(text), text.size()).ok());
  const int64_t sched = QueryInt(plain, "select count(*) from sched");
  ASSERT_GT(sched, 10);
  for (const std::string& body : {text, bare}) {
    for (const char* lead : {"\n", "\n\n", "\n  \n\r\n"}) {
      std::string b = lead + body;
      EXPECT_EQ(Detect(b), TraceFormat::kSystraceText) << "lead of " << strlen(lead);
      TraceProcessor tp;
      ASSERT_TRUE(tp.LoadBuffer(AsBytes(b), b.size()).ok());
      EXPECT_EQ(QueryInt(tp, "select count(*) from sched"), sched);
    }
  }
}

TEST(FormatDetect, CollapsedStacksWithLeadingNewline) {
  const std::string b = "\nmain;parse;read 7\nmain;render 5\n\nmain 1\n";
  EXPECT_EQ(Detect(b), TraceFormat::kCollapsedStacks);
  TempDir dir;
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(dir.Write("stacks.txt", b).string()).ok());
  EXPECT_EQ(tp.report().format, "collapsed stacks");
  EXPECT_EQ(tp.report().packets, 3u);
}

TEST(FormatDetect, BlankTextIsNotATrace) {
  EXPECT_NE(Detect("\n\nhello world\n"), TraceFormat::kProto);
}

}  // namespace
}  // namespace fathom
