// Android input tracing (AndroidInputEvent in TracePacket.winscope_extensions)
// and the proto-to-args flattening it uses. Every expected value below comes
// from upstream's trace_processor_shell v58.2 on the same trace.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/compact_rows.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

// MONOTONIC runs 600000 ns behind BOOTTIME (the trace clock). A key event
// with every column set (event_id above INT32_MAX, negative display_id), a
// redacted motion event whose packet is on MONOTONIC (NaN cursor position,
// two pointers, a repeated scalar), a dispatch, and a key event with nothing
// but its id (its times default to 0 and still convert).
constexpr char kTrace[] = R"(
packet { clock_snapshot { primary_trace_clock: BUILTIN_CLOCK_BOOTTIME clocks { clock_id: 6 timestamp: 1000000 } clocks { clock_id: 3 timestamp: 400000 } } trusted_packet_sequence_id: 1 }
packet { timestamp: 1000500 trusted_packet_sequence_id: 2 winscope_extensions { android_input_event { dispatcher_key_event { event_id: 4000000000 event_time_nanos: 400100 down_time_nanos: 400050 source: 257 action: 1 device_id: -3 display_id: -1 key_code: 24 meta_state: 0 } } } }
packet { timestamp: 400600 timestamp_clock_id: 3 trusted_packet_sequence_id: 2 winscope_extensions { android_input_event { dispatcher_motion_event_redacted { event_id: 7 display_id: 3 pointer { axis_value { axis: 0 value: 1.5 } axis_value { axis: 1 value: 0.1 } } pointer { pointer_id: 1 } cursor_position_x: nan original_event_id: 5 original_event_id: 6 } } } }
packet { timestamp: 1000700 trusted_packet_sequence_id: 2 winscope_extensions { android_input_event { dispatcher_window_dispatch_event { event_id: 7 vsync_id: 99 window_id: 5 dispatched_pointer { pointer_id: 0 x_in_display: 2.5 axis_value_in_window { axis: 8 value: -0.25 } } } } } }
packet { timestamp: 1000800 trusted_packet_sequence_id: 2 winscope_extensions { android_input_event { dispatcher_key_event { event_id: 9 } } } }
)";

std::string Rows(TraceProcessor& tp, const std::string& sql) {
  return fathom::testing::CompactRows(tp, sql);
}

class AndroidInputEventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    perfetto::protos::Trace trace;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kTrace, &trace));
    bytes_ = trace.SerializeAsString();
    ASSERT_TRUE(tp_.LoadBuffer(fathom::testing::AsBytes(bytes_), bytes_.size()).ok());
  }
  // The args of each row of `table`, as "key=type:display" in insertion order.
  std::string Args(const std::string& table) {
    return Rows(tp_,
                "select e.id, a.key || '=' || a.value_type || ':' || "
                "coalesce(a.display_value, 'N') from " +
                    table + " e join args a using (arg_set_id) order by e.id, a.id");
  }
  std::string bytes_;
  TraceProcessor tp_;
};

TEST_F(AndroidInputEventsTest, TableColumns) {
  EXPECT_EQ(Rows(tp_,
                 "select id, event_id, ts, source, action, device_id, display_id, key_code, "
                 "base64_proto_id is not null from __intrinsic_android_key_events"),
            "0,4000000000,1000500,257,1,-3,-1,24,1;1,9,1000800,0,0,0,0,0,1;");
  EXPECT_EQ(Rows(tp_,
                 "select id, event_id, ts, source, action, device_id, display_id, "
                 "base64_proto_id is not null from __intrinsic_android_motion_events"),
            "0,7,1000600,0,0,0,3,1;");
  EXPECT_EQ(Rows(tp_,
                 "select id, event_id, vsync_id, window_id, base64_proto_id is not null "
                 "from __intrinsic_android_input_event_dispatch"),
            "0,7,99,5,1;");
}

TEST_F(AndroidInputEventsTest, KeyEventArgsAddTraceTimes) {
  EXPECT_EQ(Args("__intrinsic_android_key_events"),
            "0,event_id=uint:4000000000;0,event_time_nanos=int:400100;"
            "0,down_time_nanos=int:400050;0,source=uint:257;0,action=int:1;"
            "0,device_id=int:-3;0,display_id=int:-1;0,key_code=int:24;0,meta_state=uint:0;"
            "0,kernel_time=int:1000100;0,down_time=int:1000050;"
            "1,event_id=uint:9;1,kernel_time=int:600000;1,down_time=int:600000;");
}

TEST_F(AndroidInputEventsTest, MotionEventArgsIndexRepeatedFields) {
  EXPECT_EQ(Args("__intrinsic_android_motion_events"),
            "0,event_id=uint:7;0,display_id=int:3;0,pointer[0].axis_value[0].axis=int:0;"
            "0,pointer[0].axis_value[0].value=real:1.5;0,pointer[0].axis_value[1].axis=int:1;"
            "0,pointer[0].axis_value[1].value=real:0.100000001490116;"
            "0,pointer[1].pointer_id=int:1;0,original_event_id[0]=uint:5;"
            "0,original_event_id[1]=uint:6;0,cursor_position_x=real:N;"
            "0,kernel_time=int:600000;0,down_time=int:600000;");
  EXPECT_EQ(
      Rows(tp_, "select distinct flat_key from args where key glob 'pointer*' order by flat_key"),
      "pointer.axis_value.axis;pointer.axis_value.value;pointer.pointer_id;");
}

TEST_F(AndroidInputEventsTest, DispatchArgs) {
  EXPECT_EQ(Args("__intrinsic_android_input_event_dispatch"),
            "0,event_id=uint:7;0,vsync_id=int:99;0,window_id=int:5;"
            "0,dispatched_pointer[0].pointer_id=int:0;"
            "0,dispatched_pointer[0].x_in_display=real:2.5;"
            "0,dispatched_pointer[0].axis_value_in_window[0].axis=int:8;"
            "0,dispatched_pointer[0].axis_value_in_window[0].value=real:-0.25;");
}

}  // namespace
}  // namespace fathom
