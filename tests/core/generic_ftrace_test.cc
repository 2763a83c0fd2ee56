// FtraceEvent.generic: events without a proto of their own land in
// ftrace_event under the name they carry, their fields as args (as upstream).
// Input: tests/core/ftrace/generic_events.textproto, encoded by protoc at
// build time, so the bytes do not come from Fathom's own writer.
#include <gtest/gtest.h>

#include <string>

#include "core/trace_processor.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

std::string Data(const std::string& name) {
  return std::string(FATHOM_FTRACE_DATA_DIR) + "/" + name;
}

class FtraceGeneric : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(tp_.LoadFile(Data("generic_events.pb")).ok()); }
  std::string One(const std::string& sql) {
    auto it = tp_.Query(sql);
    EXPECT_TRUE(it->NextResultSet() && it->NextRow()) << sql << ": " << it->status().message();
    std::string out;
    for (int c = 0; c < it->column_count(); ++c) {
      SqlValue v = it->Get(c);
      if (c) out += "|";
      if (v.type == SqlValue::kInt) out += std::to_string(v.i);
      if (v.type == SqlValue::kString) out += std::string(v.s);
      if (v.type == SqlValue::kNull) out += "NULL";
    }
    return out;
  }
  TraceProcessor tp_;
};

TEST_F(FtraceGeneric, RowNamedByTheEventWithItsThreadAndCpu) {
  EXPECT_EQ(One("select count(*) from ftrace_event"), "3");
  EXPECT_EQ(One("select e.ts, e.cpu, t.tid from ftrace_event e join thread t using(utid) "
                "where e.name = 'my_driver_event'"),
            "1000|2|42");
  EXPECT_EQ(One("select e.ts, t.tid, e.arg_set_id is null from ftrace_event e "
                "join thread t using(utid) where e.name = 'other_event'"),
            "2000|43|1");
  // No row under the proto field's own name.
  EXPECT_EQ(One("select count(*) from ftrace_event where name = 'generic'"), "0");
  // Typed events next to it are unaffected.
  EXPECT_EQ(One("select count(*) from ftrace_event where name = 'cpu_frequency'"), "1");
}

TEST_F(FtraceGeneric, FieldsBecomeTypedArgs) {
  const std::string set = "(select arg_set_id from ftrace_event where name = 'my_driver_event')";
  EXPECT_EQ(One("select count(*) from args where arg_set_id = " + set), "3");  // "novalue" dropped
  EXPECT_EQ(
      One("select int_value, value_type from args where key = 'count' and arg_set_id = " + set),
      "-7|int");
  // Unsigned values are stored as ints, as upstream does.
  EXPECT_EQ(
      One("select int_value, value_type from args where key = 'mask' and arg_set_id = " + set),
      "4294967296|int");
  EXPECT_EQ(
      One("select string_value, value_type from args where key = 'label' and arg_set_id = " + set),
      "hello world|string");
}

}  // namespace
}  // namespace fathom
