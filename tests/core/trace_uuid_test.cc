// A trace that carries no uuid gets the one upstream derives from its leading
// bytes, as metadata row 0. Expected values are the oracle's (v58.2)
// `select id, str_value from metadata where name = 'trace_uuid'`.
#include <gtest/gtest.h>

#include <cctype>
#include <string>

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
