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

// Many sub-pixel slices must fold into a few spans per pixel, and every busy
// row in range must be represented exactly once (first row + merged count);
// idle rows (utid 0) are gaps, never drawn.
TEST(TimelineIndex, SchedSpansFoldSubPixelRows) {
  TraceStorage s;
  // 10 000 slices of 10 ns each on CPU 0, alternating busy (utid 1) and idle.
  for (int i = 0; i < 10000; ++i) s.sched.Insert(i * 10, 10, 0, i % 2 ? 0 : 1, kNullStringId, 0);
  s.UpdateBounds(0);
  s.UpdateBounds(100000);
  TimelineIndex idx(s);
  auto spans = idx.SchedSpans(0, 0, 100000, 100);
  EXPECT_LE(spans.size(), 200u);
  uint64_t covered = 0;
  for (const auto& sp : spans) {
    covered += 1 + sp.merged;
    EXPECT_NE(s.sched.utid[sp.row], 0u);
  }
  EXPECT_EQ(covered, 5000u);
  EXPECT_EQ(idx.SchedCountInRange(0, 0, 100000), 10000u);
  // Zoomed in: one span per busy row, unmerged, idle rows left out.
  auto near = idx.SchedSpans(0, 1000, 1100, 1000);
  ASSERT_EQ(near.size(), 5u);
  EXPECT_EQ(near[0].row, 100u);
  EXPECT_EQ(near[0].merged, 0u);
  EXPECT_EQ(near[0].end - near[0].start, 10);
}

TEST(TimelineIndex, CpuBusyNsMatchesWalk) {
  TraceStorage s;
  int64_t t = 0;
  for (int i = 0; i < 1000; ++i) {
    int64_t d = 1 + (i * 37) % 50;
    s.sched.Insert(t, d, 0, i % 3 == 0 ? 0 : 1 + i % 5, kNullStringId, 0);
    t += d;
  }
  s.UpdateBounds(0);
  s.UpdateBounds(t);
  TimelineIndex idx(s);
  for (int64_t a : {0, 7, 333, 5000}) {
    for (int64_t b : {a + 1, a + 100, a + 9999, t}) {
      int64_t expect = 0;
      for (uint32_t r = 0; r < s.sched.row_count(); ++r) {
        if (s.sched.utid[r] == 0) continue;
        int64_t lo = std::max(a, s.sched.ts[r]), hi = std::min(b, s.sched.ts[r] + s.sched.dur[r]);
        if (hi > lo) expect += hi - lo;
      }
      EXPECT_EQ(idx.CpuBusyNs(0, a, b), expect) << a << " " << b;
    }
  }
}

TEST(TimelineIndex, SliceSpansPerDepthAndThreadStates) {
  TraceStorage s;
  uint32_t track = s.track.Insert(kNullStringId, kNullStringId, s.Intern("slice"), 1, std::nullopt,
                                  std::nullopt);
  s.slice.Insert(0, 100, track, kNullStringId, s.Intern("outer"), 0, std::nullopt);
  s.slice.Insert(10, 20, track, kNullStringId, s.Intern("inner"), 1, 0);
  s.slice.Insert(50, 20, track, kNullStringId, s.Intern("inner2"), 1, 0);
  s.thread_state.Insert(0, 40, std::nullopt, 1, s.Intern("S"));
  s.thread_state.Insert(40, -1, 0, 1, s.Intern("Running"));
  s.UpdateBounds(0);
  s.UpdateBounds(200);
  TimelineIndex idx(s);
  EXPECT_EQ(idx.SliceDepthCount(track), 2u);
  EXPECT_EQ(idx.SliceCount(track), 3u);
  auto d1 = idx.SliceSpans(track, 1, 0, 200, 200);
  ASSERT_EQ(d1.size(), 2u);
  EXPECT_EQ(d1[1].row, 2u);
  EXPECT_TRUE(idx.SliceSpans(track, 2, 0, 200, 200).empty());
  auto st = idx.ThreadStateSpans(1, 30, 200, 170);
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[1].end, 200);  // open state lasts to the trace end
  EXPECT_TRUE(idx.HasThreadStates(1));
  EXPECT_FALSE(idx.HasThreadStates(2));
}

TEST(TimelineIndex, CounterBucketsUseBlocksForDenseTracks) {
  TraceStorage s;
  uint32_t track = s.track.Insert(s.Intern("mem"), kNullStringId, s.Intern("counter"), std::nullopt,
                                  std::nullopt, std::nullopt);
  // 10 000 samples 1 ns apart; value = (i * 7919) % 1000, one spike of 5000.
  for (int i = 0; i < 10000; ++i) s.counter.Insert(i, track, i == 6543 ? 5000 : (i * 7919) % 1000);
  TimelineIndex idx(s);
  auto b = idx.CounterBuckets(track, 0, 10000, 3);
  for (int k = 0; k < 3; ++k) {
    int64_t lo = k * 10000 / 3, hi = k == 2 ? 10000 : (k + 1) * 10000 / 3;
    double mn = 1e18, mx = -1e18;
    // Brute force over the values in force in [lo, hi).
    for (int64_t i = std::max<int64_t>(0, lo - 1); i < hi; ++i) {
      if (i < lo && lo == 0) continue;
      double v = i == 6543 ? 5000 : (i * 7919) % 1000;
      mn = std::min(mn, v);
      mx = std::max(mx, v);
    }
    EXPECT_EQ(b[k].min, mn) << k;
    EXPECT_EQ(b[k].max, mx) << k;
  }
  EXPECT_EQ(b[1].max, 5000);
  std::optional<uint32_t> before;
  auto rows = idx.CounterRowsInRange(track, 100, 200, &before);
  EXPECT_EQ(rows.size(), 100u);
  ASSERT_TRUE(before.has_value());
  EXPECT_EQ(*before, 99u);
}

TEST(TimelineIndex, CpuUtilizationSweepAndPrefixPathsAgree) {
  TraceStorage s;
  int64_t t = 0;
  for (int i = 0; i < 5000; ++i) {
    int64_t d = 3 + (i * 53) % 97;
    s.sched.Insert(t, d, 0, i % 2 ? 0 : 1 + i % 7, kNullStringId, 0);
    t += d;
  }
  s.UpdateBounds(0);
  s.UpdateBounds(t);
  TimelineIndex idx(s);
  // 10 buckets: 500 rows each, the prefix-sum path; 2000 buckets: the sweep.
  for (uint32_t buckets : {10u, 2000u}) {
    auto u = idx.CpuUtilization(0, 17, t - 5, buckets);
    double width = static_cast<double>(t - 5 - 17) / buckets;
    for (uint32_t b = 0; b < buckets; ++b) {
      int64_t lo = 17 + static_cast<int64_t>(b * width);
      int64_t hi = b + 1 == buckets ? t - 5 : 17 + static_cast<int64_t>((b + 1) * width);
      EXPECT_NEAR(u[b], static_cast<double>(idx.CpuBusyNs(0, lo, hi)) / (hi - lo), 1e-9)
          << buckets << " " << b;
    }
  }
}

}  // namespace
}  // namespace fathom
