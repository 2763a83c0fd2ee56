// Which utid a thread gets: a thread first seen together with its process's
// pid comes after that process's main thread (tid == pid), which is created
// with the process; a thread seen before its pid was known keeps its place.
// Expected rows come from upstream's trace processor (v58.2).
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

constexpr char kThreadsSql[] = "select utid, tid, upid, is_main_thread from thread order by utid";

// "utid,tid,upid,main;" per thread row of the loaded bytes.
std::string ThreadRows(const std::string& bytes) {
  TraceProcessor tp;
  EXPECT_TRUE(tp.LoadBuffer(fathom::testing::AsBytes(bytes), bytes.size()).ok());
  auto it = tp.Query(kThreadsSql);
  EXPECT_TRUE(it->NextResultSet()) << it->status().message();
  std::string rows;
  while (it->NextRow()) {
    for (int i = 0; i < 4; ++i) rows += std::to_string(it->Get(i).i) + (i < 3 ? "," : ";");
  }
  return rows;
}

std::string FromText(const char* text) {
  perfetto::protos::Trace trace;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &trace));
  return trace.SerializeAsString();
}

TEST(ThreadNumbering, TrackDescriptorThreadComesAfterItsMainThread) {
  EXPECT_EQ(ThreadRows(FromText(R"(
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 1 thread { pid: 123 tid: 345 } } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 2 thread { pid: 123 tid: 346 } } }
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 3 thread { pid: 124 tid: 347 } } }
)")),
            "0,0,0,1;1,123,1,1;2,345,1,0;3,346,1,0;4,124,2,1;5,347,2,0;");
}

TEST(ThreadNumbering, DescribedMainThreadIsNotDuplicated) {
  EXPECT_EQ(ThreadRows(FromText(R"(
packet { trusted_packet_sequence_id: 1 track_descriptor { uuid: 1 thread { pid: 123 tid: 123 } } }
)")),
            "0,0,0,1;1,123,1,1;");
}

TEST(ThreadNumbering, ProcessTreeThreadOfUnlistedProcess) {
  EXPECT_EQ(ThreadRows(FromText(R"(
packet { timestamp: 1 process_tree { threads { tid: 345 tgid: 123 } } }
)")),
            "0,0,0,1;1,123,1,1;2,345,1,0;");
}

TEST(ThreadNumbering, ThreadSeenBeforeItsPidKeepsItsUtid) {
  // sched_switch names tid 345 before the process tree says its tgid.
  EXPECT_EQ(ThreadRows(FromText(R"(
packet { ftrace_events { cpu: 0 event { timestamp: 100 pid: 0
  sched_switch { prev_comm: "a" prev_pid: 0 next_comm: "b" next_pid: 345 } } } }
packet { timestamp: 200 process_tree { threads { tid: 345 tgid: 123 } threads { tid: 346 tgid: 123 } } }
)")),
            "0,0,0,1;1,345,1,0;2,123,1,1;3,346,1,0;");
}

TEST(ThreadNumbering, JsonEventThreadComesAfterItsMainThread) {
  EXPECT_EQ(
      ThreadRows(R"({"traceEvents":[{"ph":"X","pid":123,"tid":345,"ts":1,"dur":1,"name":"a"}]})"),
      "0,0,0,1;1,123,1,1;2,345,1,0;");
}

}  // namespace
}  // namespace fathom
