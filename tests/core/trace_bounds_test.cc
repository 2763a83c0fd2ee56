// trace_bounds for traces that hold only profiles. Expected timestamps come
// from decoding the inputs with libprotobuf; the rules are upstream's: heap
// graphs count through their objects, heapprofd dumps through their samples,
// and a trace whose data share one timestamp spans [ts, ts + 1].
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using fathom::testing::AsBytes;
using fathom::testing::ReadFileBytes;
using fathom::testing::TestData;

std::pair<int64_t, int64_t> Bounds(TraceProcessor& tp) {
  auto it = tp.Query("select start_ts, end_ts from trace_bounds");
  EXPECT_TRUE(it->NextResultSet() && it->NextRow()) << it->status().message();
  return {it->Get(0).i, it->Get(1).i};
}

TEST(TraceBounds, HeapGraphOnlyTraceCoversTheDump) {
  perfetto::protos::Trace in, out;
  ASSERT_TRUE(in.ParseFromString(ReadFileBytes(TestData("java_heap_graph_legacy.pb"))));
  // Keep the heap graph and what has no timestamp (process tree, mappings);
  // drop the process_stats counters that would widen the bounds.
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  int objects = 0;
  for (const auto& p : in.packet()) {
    if (p.has_heap_graph()) {
      objects += p.heap_graph().objects_size();
      lo = std::min<int64_t>(lo, static_cast<int64_t>(p.timestamp()));
      hi = std::max<int64_t>(hi, static_cast<int64_t>(p.timestamp()));
    } else if (p.has_timestamp()) {
      continue;
    }
    *out.add_packet() = p;
  }
  ASSERT_GT(objects, 0);
  std::string bytes = out.SerializeAsString();
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadBuffer(AsBytes(bytes), bytes.size()).ok());
  auto it = tp.Query("select count(*) from heap_graph_object");
  ASSERT_TRUE(it->NextResultSet() && it->NextRow());
  ASSERT_GT(it->Get(0).i, 0);
  EXPECT_EQ(Bounds(tp), std::make_pair(lo, hi == lo ? hi + 1 : hi));

  // The whole file: process_stats at other timestamps widen the bounds.
  TraceProcessor full;
  ASSERT_TRUE(full.LoadFile(TestData("java_heap_graph_legacy.pb").string()).ok());
  auto b = Bounds(full);
  EXPECT_LE(b.first, lo);
  EXPECT_GE(b.second, hi);
}

TEST(TraceBounds, HeapprofdDumpsCoverTheirTimestamps) {
  perfetto::protos::Trace in;
  ASSERT_TRUE(in.ParseFromString(ReadFileBytes(TestData("heapprofd_continuous_legacy.pb"))));
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  for (const auto& p : in.packet())
    for (const auto& dump : p.profile_packet().process_dumps())
      if (dump.samples_size() > 0) {
        lo = std::min<int64_t>(lo, static_cast<int64_t>(dump.timestamp()));
        hi = std::max<int64_t>(hi, static_cast<int64_t>(dump.timestamp()));
      }
  ASSERT_LT(lo, hi);
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(TestData("heapprofd_continuous_legacy.pb").string()).ok());
  EXPECT_EQ(Bounds(tp), std::make_pair(lo, hi));
}

}  // namespace
}  // namespace fathom
