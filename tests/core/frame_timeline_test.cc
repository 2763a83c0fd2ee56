// SurfaceFlinger FrameTimeline import. Every expected value below comes from
// upstream's trace_processor_shell v58.2 on the same input (the small
// textproto) or on ../shared/testdata/android_frametimeline_atrace_log.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "core/import/frame_timeline_strings.h"
#include "core/sql/result_printer.h"
#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

// Display frame 10 (pid 666) and app frames 5, 6 and 7 (pid 1000) that name
// it; 5 and 6 overlap, 7 starts after display frame 10 and never ends; an
// unknown cookie ends nothing; a surface frame without a display token is
// dropped.
constexpr char kFrames[] = R"(
packet { timestamp: 100 frame_timeline_event { expected_display_frame_start { cookie: 1 token: 10 pid: 666 } } }
packet { timestamp: 116 frame_timeline_event { frame_end { cookie: 1 } } }
packet { timestamp: 95 frame_timeline_event { expected_surface_frame_start { cookie: 2 token: 5 display_frame_token: 10 pid: 1000 layer_name: "L1" } } }
packet { timestamp: 111 frame_timeline_event { frame_end { cookie: 2 } } }
packet { timestamp: 96 frame_timeline_event { actual_surface_frame_start { cookie: 3 token: 5 display_frame_token: 10 pid: 1000 layer_name: "L1" present_type: PRESENT_LATE on_time_finish: false gpu_composition: false jank_type: 64 prediction_type: PREDICTION_VALID is_buffer: true } } }
packet { timestamp: 130 frame_timeline_event { frame_end { cookie: 3 } } }
packet { timestamp: 97 frame_timeline_event { actual_surface_frame_start { cookie: 4 token: 6 display_frame_token: 10 pid: 1000 layer_name: "L2" present_type: PRESENT_DROPPED jank_type: 1 prediction_type: PREDICTION_EXPIRED jank_severity_type: SEVERITY_PARTIAL } } }
packet { timestamp: 120 frame_timeline_event { frame_end { cookie: 4 } } }
packet { timestamp: 101 frame_timeline_event { actual_display_frame_start { cookie: 5 token: 10 pid: 666 present_type: PRESENT_ON_TIME on_time_finish: true gpu_composition: true jank_type: 18 prediction_type: PREDICTION_VALID } } }
packet { timestamp: 117 frame_timeline_event { frame_end { cookie: 5 } } }
packet { timestamp: 140 frame_timeline_event { actual_surface_frame_start { cookie: 6 token: 7 display_frame_token: 10 pid: 1000 layer_name: "L1" present_type: PRESENT_ON_TIME jank_type: 128 prediction_type: PREDICTION_VALID } } }
packet { timestamp: 150 frame_timeline_event { actual_display_frame_start { cookie: 7 token: 11 pid: 666 present_type: PRESENT_DROPPED jank_type: 1024 } } }
packet { timestamp: 160 frame_timeline_event { frame_end { cookie: 42 } } }
packet { timestamp: 170 frame_timeline_event { actual_surface_frame_start { cookie: 8 token: 9 pid: 1000 layer_name: "L1" jank_type: 1 } } }
)";

// The rows of `sql`, cells joined by ',' and rows ended by ';' (NULL as N).
std::string Rows(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  if (!it->NextResultSet()) return "error: " + it->status().message();
  std::string out;
  while (it->NextRow()) {
    for (int c = 0; c < it->column_count(); ++c) {
      if (c) out += ",";
      SqlValue v = it->Get(c);
      switch (v.type) {
        case SqlValue::kNull:
          out += "N";
          break;
        case SqlValue::kInt:
          out += std::to_string(v.i);
          break;
        case SqlValue::kDouble: {
          char buf[32];
          snprintf(buf, sizeof buf, "%.1f", v.d);
          out += buf;
          break;
        }
        default:
          out += std::string(v.s);
      }
    }
    out += ";";
  }
  return out;
}

class FrameTimelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    perfetto::protos::Trace trace;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kFrames, &trace));
    bytes_ = trace.SerializeAsString();
    ASSERT_TRUE(tp_.LoadBuffer(fathom::testing::AsBytes(bytes_), bytes_.size()).ok());
  }
  std::string bytes_;
  TraceProcessor tp_;
};

TEST_F(FrameTimelineTest, SlicesTracksAndCompressorIndex) {
  EXPECT_EQ(Rows(tp_,
                 "select s.id, s.ts, s.dur, s.name, s.depth, t.name, p.pid, "
                 "extract_arg(t.dimension_arg_set_id, 'track_compressor_idx') from slice s "
                 "join track t on t.id = s.track_id join process p "
                 "on p.upid = extract_arg(t.dimension_arg_set_id, 'upid') order by s.id"),
            "0,95,16,5,0,Expected Timeline,1000,0;"
            "1,96,34,5,0,Actual Timeline,1000,0;"
            "2,97,23,6,0,Actual Timeline,1000,1;"
            "3,100,16,10,0,Expected Timeline,666,0;"
            "4,101,16,10,0,Actual Timeline,666,0;"
            "5,140,-1,7,0,Actual Timeline,1000,0;"
            "6,150,-1,11,0,Actual Timeline,666,0;");
  EXPECT_EQ(Rows(tp_, "select pid from process order by upid"), "0;1000;666;");
}

TEST_F(FrameTimelineTest, ActualFrameColumns) {
  EXPECT_EQ(Rows(tp_,
                 "select name, display_frame_token, surface_frame_token, layer_name, present_type, "
                 "on_time_finish, gpu_composition, jank_type, jank_severity_type, prediction_type, "
                 "jank_tag, jank_tag_experimental, jank_score from actual_frame_timeline_slice "
                 "order by id"),
            "5,10,5,L1,Late Present,0,0,App Deadline Missed,Unknown,Valid Prediction,Self "
            "Jank,Unspecified,0.0;"
            "6,10,6,L2,Dropped Frame,0,0,None,Partial,Expired Prediction,Dropped "
            "Frame,Unspecified,0.0;"
            "10,10,N,N,On-time Present,1,1,SurfaceFlinger Scheduling, SurfaceFlinger CPU Deadline "
            "Missed,Unknown,Valid Prediction,Self Jank,Unspecified,0.0;"
            "7,10,7,L1,On-time Present,0,0,Buffer Stuffing,Unknown,Valid Prediction,Buffer "
            "Stuffing,Unspecified,0.0;"
            "11,11,N,N,Dropped Frame,0,0,Dropped Frame,Unknown,Unspecified Prediction,Dropped "
            "Frame,Unspecified,0.0;");
  EXPECT_EQ(Rows(tp_,
                 "select name, display_frame_token, surface_frame_token, layer_name "
                 "from expected_frame_timeline_slice order by id"),
            "5,10,5,L1;10,10,N,N;");
}

TEST_F(FrameTimelineTest, ArgsFlowsAndStats) {
  EXPECT_EQ(Rows(tp_,
                 "select a.key, coalesce(a.string_value, a.int_value, a.real_value) from slice s "
                 "join args a using(arg_set_id) "
                 "where s.name = '6' order by a.id"),
            "Surface frame token,6;Display frame token,10;Present Delay (ms),0.0;"
            "Vsync Resynced Jitter (ms),0.0;Layer name,L2;Present type,Dropped Frame;"
            "Present type (experimental),Unspecified Present;On time finish,0;"
            "GPU composition,0;Jank type,None;Jank type (experimental),Unspecified;"
            "Jank severity type,Partial;Jank Severity Score,0.0;"
            "Prediction type,Expired Prediction;Jank tag,Dropped Frame;"
            "Jank tag (experimental),Unspecified;Is Buffer?,Unspecified;"
            "Jank Metadata (debugging only),0.0;");
  // Only the app frames seen before their display frame are linked to it.
  EXPECT_EQ(Rows(tp_, "select slice_out, slice_in from flow order by id"), "1,4;2,4;");
  EXPECT_EQ(
      Rows(tp_, "select name, value from stats where name like 'frame_timeline%' order by name"),
      "frame_timeline_event_parser_errors,1;frame_timeline_unpaired_end_event,1;");
}

// Fields newer than Fathom's proto subset, hand-encoded: a display frame with
// experimental jank type 2, present type 3 and metadata 1.5 (and an explicit
// prediction type 0); app frames with experimental jank 64 / present DROPPED /
// metadata 2.5, and jank 1 / present DROPPED (and present type 9).
constexpr char kExperimentalHex[] =
    "0a1d4064e2041812160801100a189a0520013801400060026803750000c03f0a09406ee204042a0208010a2540"
    "64e20420221e08021005180a20e8072a014c3001480150018001408801049501000020400a09406ee204042a02"
    "08020a1f4078e2041a221808031006180a20e8072a014c3009480150018001018801040a0a408201e204042a02"
    "0803";

TEST(FrameTimelineExperimental, ExperimentalTypesTagsAndEnumErrors) {
  std::string bytes;
  for (size_t i = 0; i + 1 < sizeof(kExperimentalHex); i += 2)
    bytes.push_back(
        static_cast<char>(std::stoi(std::string(kExperimentalHex + i, 2), nullptr, 16)));
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadBuffer(fathom::testing::AsBytes(bytes), bytes.size()).ok());
  EXPECT_EQ(Rows(tp,
                 "select s.name, a.key, coalesce(a.string_value, a.int_value, a.real_value) "
                 "from slice s join args a using(arg_set_id) where a.key like '%experimental%' "
                 "or a.key like 'Jank Metadata%' order by s.id, a.id"),
            "10,Present type (experimental),Early Present;"
            "10,Jank type (experimental),SurfaceFlinger Scheduling;"
            "10,Jank tag (experimental),Self Jank;10,Jank Metadata (debugging only),1.5;"
            "5,Present type (experimental),Dropped Frame;"
            "5,Jank type (experimental),App Deadline Missed;"
            "5,Jank tag (experimental),Self Jank;5,Jank Metadata (debugging only),2.5;"
            "6,Present type (experimental),Dropped Frame;6,Jank type (experimental),None;"
            "6,Jank tag (experimental),Dropped Frame;6,Jank Metadata (debugging only),0.0;");
  EXPECT_EQ(Rows(tp,
                 "select name, jank_tag, jank_tag_experimental from "
                 "actual_frame_timeline_slice order by id"),
            "10,No Jank,Self Jank;5,No Jank,Self Jank;6,No Jank,Dropped Frame;");
  EXPECT_EQ(Rows(tp, "select value from stats where name = 'frame_timeline_event_parser_errors'"),
            "2;");
}

// The shared Android 13 trace (7,475 FrameTimeline packets). Counts and
// groupings from the oracle; process/thread lists and bounds from
// testdata/upstream-answers.
class FrameTimelineRealTrace : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto path = fathom::testing::TestData("android_frametimeline_atrace_log.perfetto-trace");
    if (!std::filesystem::exists(path)) return;
    tp_ = new TraceProcessor();
    if (!tp_->LoadFile(path.string()).ok()) {
      delete tp_;
      tp_ = nullptr;
    }
  }
  static void TearDownTestSuite() {
    delete tp_;
    tp_ = nullptr;
  }
  void SetUp() override {
    if (!tp_) GTEST_SKIP() << "needs ../shared/testdata";
  }
  static std::string Answer(const std::string& name) {
    return fathom::testing::ReadFileBytes(
        fathom::testing::SharedDir() / "testdata" / "upstream-answers" /
        "android_frametimeline_atrace_log.perfetto-trace" / (name + ".out"));
  }
  static std::string Csv(const std::string& sql) {
    auto it = tp_->Query(sql);
    std::string out;
    EXPECT_TRUE(PrintResults(it.get(), ResultFormat::kCsv, &out).ok()) << sql;
    return out;
  }
  static TraceProcessor* tp_;
};
TraceProcessor* FrameTimelineRealTrace::tp_ = nullptr;

TEST_F(FrameTimelineRealTrace, ProcessesThreadsAndBoundsMatchUpstream) {
  EXPECT_EQ(Csv("select pid, name from process order by pid, name limit 200"),
            Answer("process_list"));
  EXPECT_EQ(Csv("select tid, name from thread order by tid, name limit 400"),
            Answer("thread_list"));
  EXPECT_EQ(Csv("select start_ts, end_ts from trace_bounds"), Answer("bounds"));
}

TEST_F(FrameTimelineRealTrace, FrameCountsMatchTheOracle) {
  EXPECT_EQ(Rows(*tp_,
                 "select (select count(*) from actual_frame_timeline_slice), (select count(*) "
                 "from expected_frame_timeline_slice), (select count(*) from flow), (select "
                 "count(*) from track where type = 'android_actual_frame_timeline'), (select "
                 "count(*) from track where type = 'android_expected_frame_timeline'), (select "
                 "count(*) from actual_frame_timeline_slice where dur = -1), (select count(*) "
                 "from slice)"),
            "1869,1752,1068,11,14,1,6744;");
  EXPECT_EQ(
      Rows(*tp_,
           "select jank_type, jank_tag, jank_severity_type, present_type, count(*), "
           "sum(dur) from actual_frame_timeline_slice group by 1, 2, 3, 4 order by 1, 2, 3, 4"),
      "App Deadline Missed,Self Jank,Unknown,Late Present,12,304699667;"
      "App Deadline Missed, Buffer Stuffing,Self Jank,Unknown,Late Present,5,143129883;"
      "Buffer Stuffing,Buffer Stuffing,Unknown,Late Present,47,406410159;"
      "None,No Jank,None,On-time Present,1805,13182493937;");
  EXPECT_EQ(Rows(*tp_,
                 "select p.pid, t.name, count(distinct t.id), count(*), sum(s.dur) from slice s "
                 "join track t on t.id = s.track_id join process p "
                 "on p.upid = extract_arg(t.dimension_arg_set_id, 'upid') "
                 "where t.name like '%Timeline' group by 1, 2 order by 1, 2"),
            "458,Actual Timeline,2,801,8531424787;458,Expected Timeline,2,801,8807000000;"
            "1265,Actual Timeline,4,228,224882599;1265,Expected Timeline,4,111,1189533307;"
            "4586,Actual Timeline,1,67,345661125;4586,Expected Timeline,2,67,1112200000;"
            "9305,Actual Timeline,3,739,4834366821;9305,Expected Timeline,4,739,12267400000;"
            "13407,Actual Timeline,1,34,100398314;13407,Expected Timeline,2,34,564400000;");
  EXPECT_EQ(Rows(*tp_,
                 "select count(*) from args a join slice s using(arg_set_id) join track t "
                 "on t.id = s.track_id where t.name like '%Timeline'"),
            "34092;");
}

// Spellings upstream gives single bits and mixtures (oracle on generated
// traces).
TEST(FrameTimelineStrings, JankTypesAndTags) {
  namespace ft = frame_timeline;
  EXPECT_EQ(ft::JankTypeString(0), "Unspecified");
  EXPECT_EQ(ft::JankTypeString(1), "None");
  EXPECT_EQ(ft::JankTypeString(1 | 64), "App Deadline Missed");
  EXPECT_EQ(ft::JankTypeString(64 | 128), "App Deadline Missed, Buffer Stuffing");
  EXPECT_EQ(ft::JankTypeString(8192 | 1024), "Dropped Frame, Display not ON");
  EXPECT_EQ(ft::JankTypeString(16384), "ModeChange in progress");
  EXPECT_EQ(ft::JankTypeString(65536), "");
  EXPECT_STREQ(ft::DisplayJankTag(64), "No Jank");
  EXPECT_STREQ(ft::DisplayJankTag(2 | 2048), "Self Jank");
  EXPECT_STREQ(ft::DisplayJankTag(512), "SurfaceFlinger Stuffing");
  EXPECT_STREQ(ft::DisplayJankTag(512 | 1024), "No Jank");
  EXPECT_STREQ(ft::DisplayJankTag(2048), "Non-perceivable Jank");
  EXPECT_STREQ(ft::SurfaceJankTag(2, 1), "Other Jank");
  EXPECT_STREQ(ft::SurfaceJankTag(2 | 64, 1), "Self Jank");
  EXPECT_STREQ(ft::SurfaceJankTag(4096, 1), "Self Jank");
  EXPECT_STREQ(ft::SurfaceJankTag(1024, 1), "No Jank");
  EXPECT_STREQ(ft::SurfaceJankTag(64, 4), "Self Jank");
  EXPECT_STREQ(ft::SurfaceJankTag(32768, 4), "Dropped Frame");
  EXPECT_STREQ(ft::SurfaceJankTag(128 | 512, 1), "No Jank");
  EXPECT_STREQ(ft::JankSeverityString(std::nullopt, 1), "None");
  EXPECT_STREQ(ft::JankSeverityString(std::nullopt, 1 | 64), "Unknown");
  EXPECT_STREQ(ft::JankSeverityString(3, 64), "Full");
  EXPECT_STREQ(ft::PresentTypeString(6), "Unspecified Present");
  EXPECT_STREQ(ft::PredictionTypeString(2), "Expired Prediction");
}

}  // namespace
}  // namespace fathom
