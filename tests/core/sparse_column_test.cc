// SparseColumn keeps only the non-NULL values of a mostly-NULL column and
// finds a row's value by rank. Checked against a plain vector of optionals
// over patterns that cross the 64-row words (and the 16 MiB boundary where
// its value array changes allocator), and through SQL on a real trace's
// thread_state and ftrace_event.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "core/storage/column.h"
#include "core/trace_processor.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

class OneColumnTable : public Table {
 public:
  OneColumnTable() : Table("t") {}
  SparseColumn<uint32_t> col{this, "col"};
};

void ExpectSame(const SparseColumn<uint32_t>& col,
                const std::vector<std::optional<uint32_t>>& ref) {
  ASSERT_EQ(col.size(), ref.size());
  size_t values = 0;
  for (uint32_t row = 0; row < ref.size(); ++row) {
    ASSERT_EQ(col.IsNull(row), !ref[row].has_value()) << row;
    ASSERT_EQ(col.Get(row), ref[row]) << row;
    ASSERT_EQ(col[row], ref[row].value_or(0)) << row;
    ASSERT_EQ(col.GetInt(row), static_cast<int64_t>(ref[row].value_or(0))) << row;
    values += ref[row].has_value();
  }
  EXPECT_EQ(col.non_null_count(), values);
}

TEST(SparseColumn, MatchesOptionalsAcrossWords) {
  // Densities from empty to full, runs that start and end on word edges.
  for (double density : {0.0, 0.01, 0.15, 0.5, 0.97, 1.0}) {
    OneColumnTable t;
    std::vector<std::optional<uint32_t>> ref;
    std::mt19937 rng(static_cast<uint32_t>(density * 1000));
    std::bernoulli_distribution has(density);
    for (uint32_t row = 0; row < 5000; ++row) {
      std::optional<uint32_t> v;
      if (has(rng) || (density > 0 && row % 64 == 63)) v = rng();
      ref.push_back(v);
      t.col.Append(v);
    }
    ExpectSame(t.col, ref);
  }
}

TEST(SparseColumn, LargeColumnKeepsEveryValue) {
  // 5 M values (20 MB) move the value array past the 16 MiB boundary.
  OneColumnTable t;
  std::vector<std::optional<uint32_t>> ref;
  for (uint32_t row = 0; row < 6'000'000; ++row) {
    std::optional<uint32_t> v;
    if (row % 6 != 0) v = row * 7u;
    ref.push_back(v);
    t.col.Append(v);
  }
  ExpectSame(t.col, ref);
}

// The real compact_sched trace both SQL tests read.
void LoadCompactSchedTrace(TraceProcessor* tp) {
  ASSERT_TRUE(
      tp->LoadFile(testing::TestData("linux_compact_sched_perf_samples.pftrace").string()).ok());
}

TEST(SparseColumn, ThreadStateWakersAndCpusThroughSql) {
  // Running rows have a cpu, other rows none; a waker only on runnable rows.
  TraceProcessor tp;
  ASSERT_NO_FATAL_FAILURE(LoadCompactSchedTrace(&tp));
  std::vector<int64_t> v = testing::QueryRowInts(
      tp,
      "SELECT SUM(state = 'Running' AND cpu IS NULL), SUM(state != 'Running' AND cpu IS NOT NULL), "
      "SUM(waker_utid IS NOT NULL AND state != 'R' AND state != 'R+'), "
      "SUM(cpu IS NOT NULL), SUM(waker_utid IS NOT NULL), SUM(ucpu = cpu), COUNT(*) "
      "FROM thread_state");
  ASSERT_EQ(v.size(), 7u);
  EXPECT_EQ(v[0], 0);
  EXPECT_EQ(v[1], 0);
  EXPECT_EQ(v[2], 0);
  int64_t with_cpu = v[3], with_waker = v[4], rows = v[6];
  EXPECT_GT(with_cpu, 1000);  // 3259 and 2312 of 8841 rows
  EXPECT_GT(with_waker, 100);
  EXPECT_EQ(v[5], with_cpu);
  EXPECT_LT(with_cpu + with_waker, rows);  // sparse for real
  // Filtering on the sparse column sees the same rows as scanning it.
  int64_t eq = testing::QueryInt(tp, "SELECT COUNT(*) FROM thread_state WHERE cpu = 2");
  EXPECT_EQ(eq, testing::QueryInt(tp, "SELECT SUM(COALESCE(cpu, -1) = 2) FROM thread_state"));
  EXPECT_GT(eq, 0);
}

// ftrace_event.common_flags: compact_sched wakings carry flags, and every other row reads 0 as
// upstream (the oracle on this trace: 13606 rows of 0, 3656 of 1); cpu is two bytes: values,
// filters and the ucpu mirror come out as they went in.
TEST(SparseColumn, FtraceEventFlagsAndCpusThroughSql) {
  TraceProcessor tp;
  ASSERT_NO_FATAL_FAILURE(LoadCompactSchedTrace(&tp));
  std::vector<int64_t> v = testing::QueryRowInts(
      tp,
      "SELECT SUM(name = 'sched_waking'), SUM(common_flags IS NOT NULL), "
      "SUM(name = 'sched_waking' AND common_flags IS NOT NULL), COUNT(DISTINCT cpu), MAX(cpu), "
      "SUM(ucpu = cpu), COUNT(*), SUM(common_flags > 0) FROM ftrace_event");
  ASSERT_EQ(v.size(), 8u);
  int64_t wakings = v[0];
  EXPECT_EQ(wakings, 3656);
  EXPECT_EQ(v[1], v[6]);  // no NULL flags
  EXPECT_EQ(v[2], wakings);
  EXPECT_EQ(v[3], 22);
  EXPECT_EQ(v[4], 21);
  EXPECT_EQ(v[5], v[6]);
  EXPECT_EQ(v[6], 13606 + 3656);
  EXPECT_EQ(v[7], 3656);  // real flag values, not just presence
  // Per-CPU counts agree between the raw rows and the sched slices they made.
  int64_t raw = testing::QueryInt(
      tp, "SELECT COUNT(*) FROM ftrace_event WHERE name = 'sched_switch' AND cpu = 3");
  EXPECT_GT(raw, 0);
  EXPECT_EQ(raw, testing::QueryInt(tp, "SELECT COUNT(*) FROM sched_slice WHERE cpu = 3"));
}

}  // namespace
}  // namespace fathom
