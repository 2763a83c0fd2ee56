// Real-data checks of the TrackEvent import on an SDK-generated trace with a
// deep parent_uuid hierarchy and flows. Expected numbers are derived here by
// decoding the file with libprotobuf's generated classes (independently of
// Fathom's zero-copy decoder), never copied from Fathom's output.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {
namespace {

namespace pb = perfetto::protos;

const char kTrace[] = FATHOM_SHARED_DIR "/testdata/track_event_nested_tracks.perfetto-trace";

// What the trace says, counted from the protobuf messages.
struct Expected {
  size_t descriptor_packets = 0;
  std::set<uint64_t> uuids;  // every described or referenced track
  size_t slices = 0;         // begins + instants
  size_t begins = 0;
  size_t ends = 0;
  size_t flows = 0;  // edges a v2 flow id chain produces
};

Expected DecodeExpected() {
  Expected e;
  std::ifstream in(kTrace, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  pb::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(ss.str()));
  struct Ev {
    uint64_t ts;
    size_t order;
    const pb::TrackEvent* event;
  };
  std::vector<Ev> events;
  for (const pb::TracePacket& p : trace.packet()) {
    if (p.has_track_descriptor()) {
      ++e.descriptor_packets;
      e.uuids.insert(p.track_descriptor().uuid());
    }
    if (!p.has_track_event()) continue;
    const pb::TrackEvent& ev = p.track_event();
    if (ev.has_track_uuid() && ev.track_uuid()) e.uuids.insert(ev.track_uuid());
    if (ev.type() == pb::TrackEvent::TYPE_SLICE_BEGIN || ev.type() == pb::TrackEvent::TYPE_INSTANT)
      ++e.slices;
    if (ev.type() == pb::TrackEvent::TYPE_SLICE_BEGIN) ++e.begins;
    if (ev.type() == pb::TrackEvent::TYPE_SLICE_END) ++e.ends;
    events.push_back({p.timestamp(), events.size(), &ev});
  }
  // Flows connect consecutive (in time) events naming the same id.
  std::sort(events.begin(), events.end(), [](const Ev& a, const Ev& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.order < b.order;
  });
  std::set<uint64_t> open;
  for (const Ev& ev : events) {
    for (uint64_t id : ev.event->flow_ids()) {
      if (open.count(id)) ++e.flows;
      open.insert(id);
    }
    for (uint64_t id : ev.event->terminating_flow_ids()) {
      if (open.erase(id)) ++e.flows;
    }
  }
  return e;
}

int64_t QueryInt(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  EXPECT_TRUE(it->NextResultSet()) << sql << ": " << it->status().message();
  EXPECT_TRUE(it->NextRow()) << sql;
  return it->Get(0).i;
}

class TrackEventRealTrace : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!std::filesystem::exists(kTrace)) return;
    expected_ = new Expected(DecodeExpected());
    tp_ = new TraceProcessor();
    Status st = tp_->LoadFile(kTrace);
    ASSERT_TRUE(st.ok()) << st.message();
  }
  static void TearDownTestSuite() {
    delete tp_;
    delete expected_;
  }
  void SetUp() override {
    if (!tp_) GTEST_SKIP() << "missing " << kTrace;
  }
  static TraceProcessor* tp_;
  static Expected* expected_;
};
TraceProcessor* TrackEventRealTrace::tp_ = nullptr;
Expected* TrackEventRealTrace::expected_ = nullptr;

TEST_F(TrackEventRealTrace, DecodedWhatTheReadmeDescribes) {
  EXPECT_EQ(expected_->descriptor_packets, 1364u);
  EXPECT_EQ(expected_->slices + expected_->ends, 2728u);
}

TEST_F(TrackEventRealTrace, OneSlicePerBeginOrInstant) {
  EXPECT_EQ(QueryInt(*tp_, "select count(*) from slice"), static_cast<int64_t>(expected_->slices));
  // Every end closed one begin; the rest stay open (dur -1).
  EXPECT_EQ(QueryInt(*tp_, "select count(*) from slice where dur < 0"),
            static_cast<int64_t>(expected_->begins) - static_cast<int64_t>(expected_->ends));
  EXPECT_EQ(QueryInt(*tp_, "select value from stats where name = 'track_event_parser_errors'"), 0);
  EXPECT_EQ(QueryInt(*tp_, "select value from stats where name = 'misplaced_end_event'"), 0);
}

TEST_F(TrackEventRealTrace, OneTrackPerUuid) {
  EXPECT_EQ(QueryInt(*tp_,
                     "select count(distinct extract_arg(source_arg_set_id, 'trace_id')) from track "
                     "where extract_arg(source_arg_set_id, 'source') = 'descriptor'"),
            static_cast<int64_t>(expected_->uuids.size()));
  // Parents always resolve to an existing track created before the child.
  EXPECT_EQ(QueryInt(*tp_,
                     "select count(*) from track c left join track p on c.parent_id = p.id "
                     "where c.parent_id is not null and (p.id is null or p.id >= c.id)"),
            0);
}

TEST_F(TrackEventRealTrace, FlowsFollowFlowIds) {
  EXPECT_GT(expected_->flows, 0u);
  EXPECT_EQ(QueryInt(*tp_, "select count(*) from flow"), static_cast<int64_t>(expected_->flows));
  EXPECT_EQ(QueryInt(*tp_,
                     "select count(*) from flow f left join slice s on f.slice_out = s.id "
                     "left join slice t on f.slice_in = t.id "
                     "where s.id is null or t.id is null or s.ts > t.ts"),
            0);
}

TEST_F(TrackEventRealTrace, ChildrenNestInsideTheirParents) {
  EXPECT_EQ(QueryInt(*tp_,
                     "select count(*) from slice c join slice p on c.parent_id = p.id "
                     "where c.track_id != p.track_id or c.depth != p.depth + 1 or c.ts < p.ts "
                     "or (p.dur >= 0 and c.dur >= 0 and c.ts + c.dur > p.ts + p.dur)"),
            0);
  EXPECT_EQ(QueryInt(*tp_, "select count(*) from slice where (depth = 0) != (parent_id is null)"),
            0);
}

}  // namespace
}  // namespace fathom
