// Winscope InputMethod dumps (WinscopeExtensions 1-3 of TracePacket 112):
// one row per dump, the dump flattened into args. Every expected value below
// comes from upstream's trace_processor_shell v58.2 on the same trace.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>

#include "core/trace_processor.h"
#include "perfetto/trace/android/inputmethodeditor.pb.h"
#include "tests/core/compact_rows.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using fathom::testing::TestVarint;

std::string Len(uint32_t field, const std::string& bytes) {
  return TestVarint((field << 3) | 2) + TestVarint(bytes.size()) + bytes;
}
std::string Int(uint32_t field, uint64_t v) { return TestVarint(field << 3) + TestVarint(v); }

template <typename T>
std::string Encode(const char* textproto) {
  T msg;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(textproto, &msg));
  return msg.SerializeAsString();
}

// A packet at `ts` whose winscope_extensions (112) holds `dump` as field
// `field` (1 clients, 2 service, 3 manager service).
std::string Packet(uint64_t ts, uint32_t field, const std::string& dump) {
  return Len(1, Int(8, ts) + Int(10, 1) + Len(112, Len(field, dump)));
}

std::string Rows(TraceProcessor& tp, const std::string& sql) {
  return fathom::testing::CompactRows(tp, sql);
}

class WinscopeInputMethodTest : public ::testing::Test {
 protected:
  void SetUp() override {
    using namespace perfetto::protos;
    std::string service = Encode<InputMethodServiceTraceProto>(
        R"(where: "w1" input_method_service { soft_input_window { window_state: 2 }
           input_started: true input_editor_info { package_name: "p" field_id: -5 }
           last_computed_insets { touchable_region: "r" } })");
    std::string manager = Encode<InputMethodManagerServiceTraceProto>(
        R"(where: "w2" input_method_manager_service { cur_seq: 0 system_ready: false
           cur_attribute { input_type: 1 } })");
    std::string clients = Encode<InputMethodClientsTraceProto>(
        R"(elapsed_realtime_nanos: 77 client { display_id: 3 ime_insets_source_consumer {
           insets_source_consumer { source_control { leash { hash_code: 9 layerId: 4 }
           position { y: 128 } } } } })");
    bytes_ = Packet(100, 2, service) + Packet(200, 3, manager) + Packet(300, 1, clients) +
             Packet(400, 2, service);
    ASSERT_TRUE(tp_.LoadBuffer(fathom::testing::AsBytes(bytes_), bytes_.size()).ok());
  }
  std::string Args(const std::string& table) {
    return Rows(tp_, "select e.id, a.key || '=' || a.value_type || ':' || a.display_value from " +
                         table + " e join args a using (arg_set_id) order by e.id, a.id");
  }
  std::string bytes_;
  TraceProcessor tp_;
};

TEST_F(WinscopeInputMethodTest, OneRowPerDump) {
  EXPECT_EQ(Rows(tp_,
                 "select id, ts, base64_proto_id is not null "
                 "from __intrinsic_inputmethod_service"),
            "0,100,1;1,400,1;");
  EXPECT_EQ(Rows(tp_,
                 "select id, ts, base64_proto_id is not null "
                 "from __intrinsic_inputmethod_manager_service"),
            "0,200,1;");
  EXPECT_EQ(Rows(tp_,
                 "select id, ts, base64_proto_id is not null "
                 "from __intrinsic_inputmethod_clients"),
            "0,300,1;");
}

TEST_F(WinscopeInputMethodTest, DumpsFlattenedIntoArgs) {
  EXPECT_EQ(Args("__intrinsic_inputmethod_service"),
            "0,where=string:w1;0,input_method_service.soft_input_window.window_state=int:2;"
            "0,input_method_service.input_started=bool:true;"
            "0,input_method_service.input_editor_info.package_name=string:p;"
            "0,input_method_service.input_editor_info.field_id=int:-5;"
            "0,input_method_service.last_computed_insets.touchable_region=string:r;"
            "1,where=string:w1;1,input_method_service.soft_input_window.window_state=int:2;"
            "1,input_method_service.input_started=bool:true;"
            "1,input_method_service.input_editor_info.package_name=string:p;"
            "1,input_method_service.input_editor_info.field_id=int:-5;"
            "1,input_method_service.last_computed_insets.touchable_region=string:r;");
  EXPECT_EQ(Args("__intrinsic_inputmethod_manager_service"),
            "0,where=string:w2;0,input_method_manager_service.cur_seq=int:0;"
            "0,input_method_manager_service.cur_attribute.input_type=int:1;"
            "0,input_method_manager_service.system_ready=bool:false;");
  EXPECT_EQ(Args("__intrinsic_inputmethod_clients"),
            "0,elapsed_realtime_nanos=uint:77;0,client.display_id=int:3;"
            "0,client.ime_insets_source_consumer.insets_source_consumer.source_control."
            "position.y=int:128;"
            "0,client.ime_insets_source_consumer.insets_source_consumer.source_control.leash."
            "hash_code=int:9;"
            "0,client.ime_insets_source_consumer.insets_source_consumer.source_control.leash."
            "layerId=int:4;");
}

}  // namespace
}  // namespace fathom
