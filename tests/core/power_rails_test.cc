// PowerRails: rails that share a name and index but come from different
// recording sessions keep separate counter tracks, told apart by their
// dimension args. Expected rows come from upstream's trace processor (v58.2).
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

constexpr char kTwoSessions[] = R"(
packet { power_rails { session_uuid: 100
  rail_descriptor { index: 0 rail_name: "SHARED_RAIL" sampling_rate: 1000 } } }
packet { power_rails { session_uuid: 200
  rail_descriptor { index: 0 rail_name: "SHARED_RAIL" sampling_rate: 2000 } } }
packet { timestamp: 1000000 power_rails { session_uuid: 100
  energy_data { index: 0 timestamp_ms: 1 energy: 100 } } }
packet { timestamp: 2000000 power_rails { session_uuid: 200
  energy_data { index: 0 timestamp_ms: 2 energy: 200 } } }
packet { timestamp: 3000000 power_rails { session_uuid: 100
  energy_data { index: 0 timestamp_ms: 3 energy: 300 } } }
)";

TEST(PowerRails, SessionsWithTheSameRailKeepSeparateTracks) {
  perfetto::protos::Trace trace;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kTwoSessions, &trace));
  std::string bytes = trace.SerializeAsString();
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadBuffer(fathom::testing::AsBytes(bytes), bytes.size()).ok());
  auto it = tp.Query(
      "select t.name, c.ts, cast(c.value as int), extract_arg(t.dimension_arg_set_id, "
      "'session_uuid'), extract_arg(t.dimension_arg_set_id, 'name') from counter c "
      "join counter_track t on t.id = c.track_id order by 4, c.ts");
  ASSERT_TRUE(it->NextResultSet()) << it->status().message();
  std::string rows;
  while (it->NextRow()) {
    rows += std::string(it->Get(0).s) + "," + std::to_string(it->Get(1).i) + "," +
            std::to_string(it->Get(2).i) + "," + std::to_string(it->Get(3).i) + "," +
            std::string(it->Get(4).s) + ";";
  }
  EXPECT_EQ(rows,
            "power.SHARED_RAIL_uws,1000000,100,100,SHARED_RAIL;"
            "power.SHARED_RAIL_uws,3000000,300,100,SHARED_RAIL;"
            "power.SHARED_RAIL_uws,2000000,200,200,SHARED_RAIL;");
}

}  // namespace
}  // namespace fathom
