// A trace that carries no uuid gets the one upstream derives from its leading
// bytes, as metadata row 0. Expected values are the oracle's (v58.2)
// `select id, str_value from metadata where name = 'trace_uuid'`.
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <thread>

#ifndef _WIN32
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "core/trace_processor.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

struct UuidRow {
  int64_t id = -1;
  std::string uuid;
};

UuidRow TraceUuidOf(TraceProcessor& tp) {
  UuidRow r;
  auto it = tp.Query("select id, str_value from metadata where name = 'trace_uuid'");
  if (it->NextResultSet() && it->NextRow()) {
    r.id = it->Get(0).i;
    r.uuid = std::string(it->Get(1).s);
  }
  return r;
}

struct Case {
  const char* file;
  const char* uuid;
};

class DerivedTraceUuid : public ::testing::TestWithParam<Case> {};

TEST_P(DerivedTraceUuid, MatchesUpstream) {
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(testing::TestData(GetParam().file).string()).ok());
  const UuidRow r = TraceUuidOf(tp);
  EXPECT_EQ(r.id, 0);
  EXPECT_EQ(r.uuid, GetParam().uuid);
}

TEST_P(DerivedTraceUuid, BufferLoadGetsTheSameUuid) {
  const std::string bytes = testing::ReadFileBytes(testing::TestData(GetParam().file));
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadBuffer(testing::AsBytes(bytes), bytes.size(), GetParam().file).ok());
  EXPECT_EQ(TraceUuidOf(tp).uuid, GetParam().uuid);
}

#ifndef _WIN32
// A pipe is read once, by the loader: neither deriving the uuid nor looking
// at the leading bytes for a compression wrapper may swallow any of it.
TEST(DerivedTraceUuidPipe, PipeLoadsWholeWithoutAUuid) {
  const std::string bytes = testing::ReadFileBytes(testing::TestData("lmk_lmkd_atrace.pb"));
  TraceProcessor whole;
  ASSERT_TRUE(whole.LoadFile(testing::TestData("lmk_lmkd_atrace.pb").string()).ok());
  char dir[] = "/tmp/fathom_fifo_XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string fifo = std::string(dir) + "/trace";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { testing::WriteFileBytes(fifo, bytes); });
  TraceProcessor piped;
  Status st = piped.LoadFile(fifo);
  writer.join();
  unlink(fifo.c_str());
  rmdir(dir);
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(piped.report().packets, whole.report().packets);
  EXPECT_TRUE(piped.report().warnings.empty()) << piped.report().warnings.front();
  EXPECT_EQ(piped.storage().process.row_count(), whole.storage().process.row_count());
  EXPECT_EQ(piped.storage().counter.row_count(), whole.storage().counter.row_count());
  EXPECT_EQ(TraceUuidOf(piped).id, -1);
}
#endif

INSTANTIATE_TEST_SUITE_P(
    SharedTestdata, DerivedTraceUuid,
    ::testing::Values(Case{"lmk_lmkd_atrace.pb", "00000000-0000-0000-5e26-59826ad3f630"},
                      Case{"chrome_simple_trace.json", "00000000-0000-0000-225d-f3cd3038a7e8"}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string n = info.param.file;
      for (char& c : n)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return n;
    });

}  // namespace
}  // namespace fathom
