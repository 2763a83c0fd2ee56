#include "core/storage/timeline_index.h"

#include <gtest/gtest.h>

namespace fathom {
namespace {

TEST(TimelineIndex, SchedSlicesInRangeIncludesStraddlingSlices) {
  TraceStorage s;
  StringId r = s.Intern("R");
  // CPU 0: [0,10) utid 1, [10,30) idle, [30, open) utid 2. CPU 1: [5,6) utid 3.
  s.sched.Insert(0, 10, 0, 1, r, 120);
  s.sched.Insert(5, 1, 1, 3, r, 120);
  s.sched.Insert(10, 20, 0, 0, r, 120);
  s.sched.Insert(30, -1, 0, 2, kNullStringId, 120);
  s.UpdateBounds(0);
  s.UpdateBounds(100);
  TimelineIndex idx(s);
  EXPECT_EQ(idx.cpu_count(), 2u);
  EXPECT_EQ(idx.SchedSlicesInRange(0, 5, 12), (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(idx.SchedSlicesInRange(0, 29, 31), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(idx.SchedSlicesInRange(0, 90, 95), (std::vector<uint32_t>{3}));  // open slice
  EXPECT_TRUE(idx.SchedSlicesInRange(1, 6, 50).empty());
  EXPECT_TRUE(idx.SchedSlicesInRange(7, 0, 50).empty());
}

TEST(TimelineIndex, CpuUtilizationIgnoresIdle) {
  TraceStorage s;
  s.sched.Insert(0, 10, 0, 1, kNullStringId, 0);
  s.sched.Insert(10, 10, 0, 0, kNullStringId, 0);
  s.sched.Insert(20, 20, 0, 5, kNullStringId, 0);
  s.UpdateBounds(0);
  s.UpdateBounds(40);
  TimelineIndex idx(s);
  auto u = idx.CpuUtilization(0, 0, 40, 4);
  ASSERT_EQ(u.size(), 4u);
  EXPECT_DOUBLE_EQ(u[0], 1.0);
  EXPECT_DOUBLE_EQ(u[1], 0.0);
  EXPECT_DOUBLE_EQ(u[2], 1.0);
  EXPECT_DOUBLE_EQ(u[3], 1.0);
  auto half = idx.CpuUtilization(0, 0, 20, 1);
  EXPECT_DOUBLE_EQ(half[0], 0.5);
}

TEST(TimelineIndex, CounterBucketsCarryValuesForward) {
  TraceStorage s;
  uint32_t track = s.track.Insert(s.Intern("cpufreq"), kNullStringId, s.Intern("counter"),
                                  std::nullopt, std::nullopt, 0);
  s.counter.Insert(0, track, 100);
  s.counter.Insert(5, track, 300);
  s.counter.Insert(6, track, 200);
  s.counter.Insert(25, track, 50);
  TimelineIndex idx(s);
  auto b = idx.CounterBuckets(track, 0, 30, 3);
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].min, 100);
  EXPECT_EQ(b[0].max, 300);
  EXPECT_EQ(b[0].last, 200);
  EXPECT_TRUE(b[1].has_value);  // no sample inside, value carried forward
  EXPECT_EQ(b[1].min, 200);
  EXPECT_EQ(b[1].max, 200);
  EXPECT_EQ(b[2].min, 50);
  EXPECT_EQ(b[2].max, 200);
  auto before = idx.CounterBuckets(track, -10, -5, 1);
  EXPECT_FALSE(before[0].has_value);
}

}  // namespace
}  // namespace fathom
