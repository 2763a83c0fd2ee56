// TrackEvent callstacks (inline and interned, with weights) land in
// __intrinsic_track_event_callstacks and the stack_profile tables as upstream
// has them. Input: tests/core/track_event/callstacks.textproto (protoc-encoded
// at build time); every expected row is trace_processor_shell v58.2's answer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

class TrackEventCallstacks : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(
        tp_.LoadFile(std::string(FATHOM_FTRACE_DATA_DIR) + "/track_event_callstacks.pb").ok());
  }
  TraceProcessor tp_;
};

TEST_F(TrackEventCallstacks, OneRowPerEventWithAStack) {
  // Begin and instant events fill callsite_id, end events end_callsite_id;
  // "W" (a weight, no stack), "Empty" and "BadIid" add no row.
  EXPECT_EQ(testing::JoinedRows(tp_,
                                "select slice_id, track_id, callsite_id, end_callsite_id, weight "
                                "from __intrinsic_track_event_callstacks order by id"),
            (std::vector<std::string>{"0|0|1|NULL|2.500000", "1|0|1|NULL|NULL", "2|0|3|NULL|NULL",
                                      "2|0|NULL|3|4.000000", "3|0|5|NULL|7.000000",
                                      "5|0|0|NULL|NULL", "5|0|NULL|6|NULL"}));
}

TEST_F(TrackEventCallstacks, CallsitesShareFramesBySourceLocation) {
  EXPECT_EQ(testing::JoinedRows(tp_,
                                "select id, depth, parent_id, frame_id from stack_profile_callsite "
                                "order by id"),
            (std::vector<std::string>{"0|0|NULL|0", "1|1|0|1", "2|0|NULL|2", "3|1|2|3",
                                      "4|0|NULL|4", "5|1|4|5", "6|1|0|6"}));
}

TEST_F(TrackEventCallstacks, InlineFramesHaveOneSymbolAndASyntheticMapping) {
  EXPECT_EQ(
      testing::JoinedRows(tp_,
                          "select f.id, f.name, m.name, f.rel_pc, s.source_file, s.line_number "
                          "from stack_profile_frame f join stack_profile_mapping m "
                          "on m.id = f.mapping left join stack_profile_symbol s "
                          "on s.symbol_set_id = f.symbol_set_id order by f.id"),
      (std::vector<std::string>{
          "0|InlineMain|track_event_inline|0|main.cc|10",
          "1|InlineLeaf|track_event_inline|0|leaf.cc|42",
          "2|FuncA|/bin/callstack_demo|16|NULL|NULL", "3|FuncB|/bin/callstack_demo|32|NULL|NULL",
          "4|InlineMain|track_event_inline|0|main.cc|11", "5|Leaf2|track_event_inline|0|NULL|NULL",
          "6|X|track_event_inline|0|x.cc|NULL"}));
  EXPECT_EQ(testing::JoinedRows(tp_,
                                "select build_id, start, end, name from stack_profile_mapping "
                                "where name = 'track_event_inline'"),
            (std::vector<std::string>{"|0|-1|track_event_inline"}));
}

// Interned names: "" is a name, a missing one is not (trace_processor_shell
// v58.2 on tests/core/track_event/names.textproto).
TEST(TrackEventNames, InternedEmptyNameIsKept) {
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(std::string(FATHOM_FTRACE_DATA_DIR) + "/track_event_names.pb").ok());
  EXPECT_EQ(testing::JoinedRows(tp, "select ts, '[' || name || ']' from slice order by ts"),
            (std::vector<std::string>{"10|[]", "20|NULL", "30|NULL", "40|[]", "50|NULL"}));
}

}  // namespace
}  // namespace fathom
