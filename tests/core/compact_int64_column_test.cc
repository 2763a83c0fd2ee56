// TimestampColumn and DurationColumn keep ts and dur of the big tables in 4 bytes a row:
// an int32 offset from the first value of the row's 256-row block (timestamps) or
// from 0 (durations), values out of range kept exactly on the side, and plain 8-byte
// values once those pass 1/16 of the rows.
// Checked against plain vectors (time-ordered and random values, the int32 edges,
// Sets that leave and re-enter the range, the widening), then on real traces: the
// columns stay compact, and thread_state's rows tile each thread's time exactly,
// long sleeps (the out-of-range rows) included.
#include "core/storage/compact_int64_column.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

template <typename Column>
class OneColumnTable : public Table {
 public:
  OneColumnTable() : Table("t") {}
  Column col{this, "col"};
};

template <typename Column>
void ExpectSame(const Column& col, const std::vector<int64_t>& ref) {
  ASSERT_EQ(col.size(), ref.size());
  for (uint32_t row = 0; row < ref.size(); ++row) {
    ASSERT_EQ(col[row], ref[row]) << row;
    ASSERT_EQ(col.GetInt(row), ref[row]) << row;
  }
}

TEST(CompactInt64Column, TimestampsWithRareLongGapsStayCompact) {
  OneColumnTable<TimestampColumn> t;
  std::vector<int64_t> ref;
  std::mt19937_64 rng(7);
  int64_t ts = 1'700'000'000'000'000'000;  // a realtime-sized clock
  for (uint32_t i = 0; i < 300'000; ++i) {
    // Microseconds apart, with three pauses of a minute in the trace: the rows after
    // a pause in its block lie far from the block's base.
    bool pause = i == 50'000 || i == 120'000 || i == 250'001;
    ts += pause ? 60'000'000'000 : static_cast<int64_t>(rng() % 20'000);
    t.col.Append(ts);
    ref.push_back(ts);
  }
  EXPECT_EQ(t.col.bytes_per_row(), 4u);
  EXPECT_GT(t.col.exception_count(), 0u);
  ExpectSame(t.col, ref);
}

TEST(CompactInt64Column, Int32EdgesAroundTheBlockBase) {
  OneColumnTable<TimestampColumn> t;
  std::vector<int64_t> ref;
  const int64_t base = -5'000'000'000;
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  // Offsets INT32_MIN and beyond do not fit (INT32_MIN marks an exception itself).
  for (int64_t v :
       {base, base + kMax, base - kMax, base + kMax + 1, base - kMax - 1, base - kMax - 2, base + 1,
        base - 1, std::numeric_limits<int64_t>::max(), base}) {
    t.col.Append(v);
    ref.push_back(v);
  }
  EXPECT_EQ(t.col.exception_count(), 4u);
  ExpectSame(t.col, ref);
  // The next block takes its own base: a value far from the first block fits there.
  while (ref.size() < TimestampColumn::kBlockRows) {
    t.col.Append(base);
    ref.push_back(base);
  }
  t.col.Append(std::numeric_limits<int64_t>::min());
  ref.push_back(std::numeric_limits<int64_t>::min());
  t.col.Append(std::numeric_limits<int64_t>::min() + kMax);
  ref.push_back(std::numeric_limits<int64_t>::min() + kMax);
  ExpectSame(t.col, ref);
  EXPECT_EQ(t.col.bytes_per_row(), 4u);
}

// Durations as the importers write them: -1 when a row opens, the real value when it
// closes; some sleeps longer than the int32 range, and a row set twice (out of range,
// then back in).
TEST(CompactInt64Column, DurationsSetOutOfAndBackIntoRange) {
  OneColumnTable<DurationColumn> t;
  std::vector<int64_t> ref;
  std::mt19937_64 rng(3);
  for (uint32_t i = 0; i < 200'000; ++i) {
    t.col.Append(-1);
    ref.push_back(-1);
    if (i >= 10) {
      uint32_t row = i - 10;
      int64_t dur = (rng() % 500 == 0)
                        ? int64_t{30'000'000'000} + static_cast<int64_t>(rng() % 1000)
                        : static_cast<int64_t>(rng() % 5'000'000);
      t.col.Set(row, dur);
      ref[row] = dur;
    }
  }
  EXPECT_GT(t.col.exception_count(), 0u);
  for (uint32_t row : {5u, 4096u, 150'000u}) {
    t.col.Set(row, int64_t{1} << 40);
    ref[row] = int64_t{1} << 40;
  }
  ExpectSame(t.col, ref);
  for (uint32_t row : {5u, 4096u, 150'000u}) {
    t.col.Set(row, 17);
    ref[row] = 17;
  }
  ExpectSame(t.col, ref);
  EXPECT_EQ(t.col.bytes_per_row(), 4u);
}

TEST(CompactInt64Column, DurationsInt32EdgesAroundZero) {
  OneColumnTable<DurationColumn> t;
  std::vector<int64_t> ref;
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  for (int64_t v : {int64_t{-1}, kMax, -kMax, kMax + 1, -kMax - 1, int64_t{0},
                    std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
    t.col.Append(v);
    ref.push_back(v);
  }
  EXPECT_EQ(t.col.exception_count(), 4u);
  EXPECT_EQ(t.col.bytes_per_row(), 4u);
  ExpectSame(t.col, ref);
}

template <typename Column>
void WidenOnceByAppendOrSet() {
  for (bool by_set : {false, true}) {
    OneColumnTable<Column> t;
    std::vector<int64_t> ref;
    std::mt19937_64 rng(by_set);
    for (uint32_t i = 0; i < 100'000; ++i) {
      // Random 64-bit values: almost none fits its block's base.
      int64_t v = by_set ? 0 : static_cast<int64_t>(rng());
      t.col.Append(v);
      ref.push_back(v);
    }
    if (by_set) {
      EXPECT_EQ(t.col.bytes_per_row(), 4u);
      for (uint32_t row = 0; row < ref.size(); row += 3) {
        int64_t v = static_cast<int64_t>(rng());
        t.col.Set(row, v);
        ref[row] = v;
      }
    }
    EXPECT_EQ(t.col.bytes_per_row(), 8u) << by_set;
    ExpectSame(t.col, ref);
    // Widened for good: appends and Sets keep working in the 8-byte form.
    t.col.Append(42);
    ref.push_back(42);
    t.col.Set(1, std::numeric_limits<int64_t>::min());
    ref[1] = std::numeric_limits<int64_t>::min();
    ExpectSame(t.col, ref);
  }
}

TEST(CompactInt64Column, ManyOutOfRangeValuesWidenOnceByAppendOrSet) {
  WidenOnceByAppendOrSet<TimestampColumn>();
  WidenOnceByAppendOrSet<DurationColumn>();
}

// thread_state rows of one thread follow each other: a closed row ends exactly where
// the thread's next row starts. Long sleeps (dur beyond the int32 range) are the
// rows kept on the side, so this checks them too. Independent of how the rows were
// stored: it only needs ts and dur to read back exactly.
TEST(CompactInt64Column, ThreadStateRowsTileEachThreadOnRealTraces) {
  for (const char* name :
       {"android_sched_binder_10s.perfetto-trace", "linux_compact_sched_perf_samples.pftrace"}) {
    SCOPED_TRACE(name);
    TraceProcessor tp;
    ASSERT_TRUE(tp.LoadFile(testing::TestData(name).string()).ok());
    const TraceStorage& s = tp.storage();
    EXPECT_EQ(s.sched.ts.bytes_per_row(), 4u);
    EXPECT_EQ(s.sched.dur.bytes_per_row(), 4u);
    EXPECT_EQ(s.thread_state.ts.bytes_per_row(), 4u);
    EXPECT_EQ(s.thread_state.dur.bytes_per_row(), 4u);
    EXPECT_EQ(s.ftrace_event.ts.bytes_per_row(), 4u);
    EXPECT_GT(testing::QueryInt(tp, "SELECT COUNT(*) FROM thread_state"), 5000);
    EXPECT_EQ(testing::QueryInt(
                  tp,
                  "SELECT COUNT(*) FROM (SELECT ts, dur, LEAD(ts) OVER (PARTITION BY utid ORDER "
                  "BY ts, id) AS next_ts FROM thread_state) WHERE dur >= 0 AND next_ts IS NOT NULL "
                  "AND ts + dur != next_ts"),
              0);
    // Every row lies inside the trace.
    EXPECT_EQ(testing::QueryInt(tp,
                                "SELECT COUNT(*) FROM thread_state, trace_bounds WHERE ts < "
                                "start_ts OR ts + MAX(dur, 0) > end_ts"),
              0);
  }
  // The 10 s Android trace has threads asleep for over 2.1 s: the out-of-range rows.
  TraceProcessor tp;
  ASSERT_TRUE(
      tp.LoadFile(testing::TestData("android_sched_binder_10s.perfetto-trace").string()).ok());
  EXPECT_GT(tp.storage().thread_state.dur.exception_count(), 0u);
  EXPECT_GT(testing::QueryInt(tp, "SELECT COUNT(*) FROM thread_state WHERE dur > 2147483647"), 0);
}

// slice and counter keep their times in the same form: a child slice lies within its
// parent and every counter within the trace, read back through the compact columns.
TEST(CompactInt64Column, SlicesNestAndCountersStayInsideTheTrace) {
  for (const char* name :
       {"android_frametimeline_atrace_log.perfetto-trace", "chrome_big_trace.json"}) {
    SCOPED_TRACE(name);
    TraceProcessor tp;
    ASSERT_TRUE(tp.LoadFile(testing::TestData(name).string()).ok());
    EXPECT_EQ(tp.storage().slice.ts.bytes_per_row(), 4u);
    EXPECT_EQ(tp.storage().slice.dur.bytes_per_row(), 4u);
    const std::string nested =
        "FROM slice c JOIN slice p ON c.parent_id = p.id WHERE c.dur >= 0 AND p.dur >= 0";
    EXPECT_GT(testing::QueryInt(tp, "SELECT COUNT(*) " + nested), 500);
    EXPECT_EQ(testing::QueryInt(tp, "SELECT COUNT(*) " + nested +
                                        " AND (c.ts < p.ts OR c.ts + c.dur > p.ts + p.dur)"),
              0);
  }
  TraceProcessor tp;
  ASSERT_TRUE(
      tp.LoadFile(testing::TestData("android_sched_binder_10s.perfetto-trace").string()).ok());
  EXPECT_EQ(tp.storage().counter.ts.bytes_per_row(), 4u);
  EXPECT_GT(testing::QueryInt(tp, "SELECT COUNT(*) FROM counter"), 30000);
  EXPECT_EQ(testing::QueryInt(tp,
                              "SELECT COUNT(*) FROM counter, trace_bounds WHERE ts < start_ts OR "
                              "ts > end_ts"),
            0);
}

// sched.ts is sorted: SQL range constraints binary-search it through the compact form
// and find the same rows as a scan that cannot use it.
TEST(CompactInt64Column, SortedRangeSearchMatchesAScan) {
  TraceProcessor tp;
  ASSERT_TRUE(
      tp.LoadFile(testing::TestData("android_sched_binder_10s.perfetto-trace").string()).ok());
  int64_t lo = testing::QueryInt(tp, "SELECT start_ts + 3000000000 FROM trace_bounds");
  int64_t hi = lo + 1'500'000'000;
  char pushed_sql[128], scan_sql[128];
  snprintf(pushed_sql, sizeof pushed_sql,
           "SELECT COUNT(*) FROM sched WHERE ts BETWEEN %lld AND %lld", static_cast<long long>(lo),
           static_cast<long long>(hi));
  snprintf(scan_sql, sizeof scan_sql,
           "SELECT COUNT(*) FROM sched WHERE ts + 0 BETWEEN %lld AND %lld",
           static_cast<long long>(lo), static_cast<long long>(hi));
  int64_t pushed = testing::QueryInt(tp, pushed_sql);
  EXPECT_GT(pushed, 1000);
  EXPECT_EQ(pushed, testing::QueryInt(tp, scan_sql));
}

}  // namespace
}  // namespace fathom
