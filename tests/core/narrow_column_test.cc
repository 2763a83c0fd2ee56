// Columns that store less while their values allow: StringColumn keeps one byte per
// row while it has seen at most 256 distinct ids and widens to 4-byte ids on the 257th;
// SmallUInt32Column (utids) keeps two bytes while every value fits in 16 bits. Checked
// against plain vectors through appends, Sets and the widening (random patterns, NULLs
// included), and on real traces: the big tables' name, state and utid columns stay
// narrow, a trace with over a thousand slice names widens, and SQL sees the same
// values either way.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "core/storage/column.h"
#include "core/trace_processor.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

class OneStringTable : public Table {
 public:
  OneStringTable() : Table("t") {}
  StringColumn col{this, "col"};
};

class OneSmallTable : public Table {
 public:
  OneSmallTable() : Table("t") {}
  SmallUInt32Column col{this, "col"};
};

void ExpectSame(const SmallUInt32Column& col, const std::vector<uint32_t>& ref) {
  ASSERT_EQ(col.size(), ref.size());
  for (uint32_t row = 0; row < ref.size(); ++row) {
    ASSERT_EQ(col[row], ref[row]) << row;
    ASSERT_EQ(col.GetInt(row), static_cast<int64_t>(ref[row])) << row;
  }
}

TEST(SmallUInt32Column, TwoBytesUntilAValueNeedsMoreByAppendOrSet) {
  for (bool by_set : {false, true}) {
    OneSmallTable t;
    std::vector<uint32_t> ref;
    std::mt19937 rng(by_set);
    for (uint32_t i = 0; i < 100000; ++i) {
      uint32_t v = rng() % 65536;  // 0xFFFF included
      t.col.Append(v);
      ref.push_back(v);
    }
    EXPECT_EQ(t.col.bytes_per_row(), 2u);
    ExpectSame(t.col, ref);
    if (by_set) {
      t.col.Set(777, 65536);
      ref[777] = 65536;
    } else {
      t.col.Append(0xFFFFFFFFu);
      ref.push_back(0xFFFFFFFFu);
    }
    EXPECT_EQ(t.col.bytes_per_row(), 4u);
    ExpectSame(t.col, ref);
    for (uint32_t i = 0; i < 1000; ++i) {  // wide from here on, small values too
      t.col.Append(i * 100003u);
      ref.push_back(i * 100003u);
      t.col.Set(i, i);
      ref[i] = i;
    }
    ExpectSame(t.col, ref);
  }
}

void ExpectSame(const StringColumn& col, const std::vector<StringId>& ref) {
  ASSERT_EQ(col.size(), ref.size());
  for (uint32_t row = 0; row < ref.size(); ++row) {
    ASSERT_EQ(col[row], ref[row]) << row;
    ASSERT_EQ(col.GetStringId(row), ref[row]) << row;
    ASSERT_EQ(col.IsNull(row), ref[row] == kNullStringId) << row;
  }
}

TEST(StringColumn, NarrowWhileFewIdsThenWideKeepsEveryValue) {
  // Alphabets below, at and above the 256 ids a narrow column holds (NULL is one of
  // them once seen); ids far apart so the dictionary's hash sees real spreads.
  for (uint32_t alphabet : {1u, 7u, 255u, 256u, 257u, 5000u}) {
    OneStringTable t;
    std::vector<StringId> ref;
    std::mt19937 rng(alphabet);
    std::uniform_int_distribution<uint32_t> pick(0, alphabet - 1);
    EXPECT_EQ(t.col.bytes_per_row(), 0u);
    auto draw = [&] {
      uint32_t k = pick(rng);
      return k == 0 ? kNullStringId : k * 40503u + 17;
    };
    for (int i = 0; i < 20000; ++i) {
      StringId id = draw();
      t.col.Append(id);
      ref.push_back(id);
      if (i % 7 == 3) {  // rewrite an earlier row, as the thread-state tracker does
        uint32_t row = rng() % static_cast<uint32_t>(ref.size());
        StringId v = draw();
        t.col.Set(row, v);
        ref[row] = v;
      }
    }
    ExpectSame(t.col, ref);
    // `alphabet` distinct ids (NULL one of them), all drawn: the 257th widens.
    EXPECT_EQ(t.col.bytes_per_row(), alphabet == 1 ? 0u : alphabet <= 256 ? 1u : 4u) << alphabet;
  }
}

TEST(StringColumn, LeadingNullsSetAndTake) {
  OneStringTable t;
  for (int i = 0; i < 100; ++i) t.col.Append(kNullStringId);
  EXPECT_EQ(t.col.bytes_per_row(), 0u);  // only NULLs: just a count
  t.col.Set(40, 9);
  EXPECT_EQ(t.col.bytes_per_row(), 1u);
  t.col.Append(11);
  std::vector<StringId> ref(100, kNullStringId);
  ref[40] = 9;
  ref.push_back(11);
  ExpectSame(t.col, ref);
  // Filling the dictionary through Set widens in place.
  for (uint32_t v = 0; v < 300; ++v) {
    t.col.Set(v % 101, 1000 + v);
    ref[v % 101] = 1000 + v;
  }
  EXPECT_EQ(t.col.bytes_per_row(), 4u);
  ExpectSame(t.col, ref);
  ColumnVector<StringId> taken = t.col.Take();
  ASSERT_EQ(taken.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i) EXPECT_EQ(taken[i], ref[i]) << i;
  EXPECT_EQ(t.col.size(), 0u);
}

TEST(StringColumn, BigTablesNamesAndStatesStayNarrowOnARealTrace) {
  TraceProcessor tp;
  ASSERT_TRUE(
      tp.LoadFile(testing::TestData("linux_compact_sched_perf_samples.pftrace").string()).ok());
  const TraceStorage& s = tp.storage();
  EXPECT_EQ(s.ftrace_event.name.bytes_per_row(), 1u);
  EXPECT_EQ(s.thread_state.state.bytes_per_row(), 1u);
  EXPECT_EQ(s.sched.end_state.bytes_per_row(), 1u);
  EXPECT_EQ(s.ftrace_event.utid.bytes_per_row(), 2u);
  EXPECT_EQ(s.thread_state.utid.bytes_per_row(), 2u);
  EXPECT_EQ(s.sched.utid.bytes_per_row(), 2u);
  // The two-byte utids join the thread table as the 4-byte ones did: every sched row's
  // thread exists, and the idle rows are utid 0 (swapper), as upstream.
  EXPECT_EQ(testing::QueryInt(tp,
                              "SELECT COUNT(*) FROM sched_slice s LEFT JOIN thread t USING (utid) "
                              "WHERE t.utid IS NULL"),
            0);
  EXPECT_EQ(testing::QueryInt(tp, "SELECT COUNT(*) FROM sched_slice WHERE utid = 0"),
            testing::QueryInt(tp,
                              "SELECT COUNT(*) FROM sched_slice s JOIN thread t USING (utid) "
                              "WHERE t.tid = 0"));
  // The narrow codes read back as the right strings: the trace's 3656 compact_sched
  // wakings (counted in its columns, see sparse_column_test), one raw switch per sched
  // slice, and the other six event names (irq, softirq, exit) make up the rest.
  int64_t switches =
      testing::QueryInt(tp, "SELECT COUNT(*) FROM ftrace_event WHERE name = 'sched_switch'");
  EXPECT_EQ(testing::QueryInt(tp, "SELECT COUNT(*) FROM ftrace_event WHERE name = 'sched_waking'"),
            3656);
  EXPECT_GT(switches, 1000);
  EXPECT_EQ(switches, testing::QueryInt(tp, "SELECT COUNT(*) FROM sched_slice"));
  EXPECT_EQ(testing::QueryInt(tp, "SELECT COUNT(DISTINCT name) FROM ftrace_event"), 7);
  EXPECT_EQ(testing::QueryInt(tp,
                              "SELECT COUNT(*) FROM ftrace_event WHERE name NOT IN "
                              "('sched_switch', 'sched_waking', 'softirq_entry', 'softirq_exit', "
                              "'irq_handler_entry', 'irq_handler_exit', 'sched_process_exit')"),
            0);
  EXPECT_EQ(testing::QueryInt(tp,
                              "SELECT COUNT(*) FROM thread_state WHERE state NOT IN "
                              "('Running', 'R', 'R+', 'S', 'D', 'T', 't', 'X', 'Z', 'P', 'I', "
                              "'W', 'K', 'x', 'DK', 'D|K', 'N')"),
            0);
}

TEST(StringColumn, ManyDistinctSliceNamesWiden) {
  TraceProcessor tp;
  ASSERT_TRUE(
      tp.LoadFile(testing::TestData("track_event_nested_tracks.perfetto-trace").string()).ok());
  EXPECT_EQ(tp.storage().slice.name.bytes_per_row(), 4u);
  int64_t distinct = testing::QueryInt(tp, "SELECT COUNT(DISTINCT name) FROM slice");
  EXPECT_GT(distinct, 256);
  // Equality push-down on the widened column finds each row by its own name.
  EXPECT_EQ(testing::QueryInt(tp,
                              "SELECT COUNT(*) FROM slice s WHERE s.id IN "
                              "(SELECT id FROM slice WHERE name = s.name)"),
            testing::QueryInt(tp, "SELECT COUNT(*) FROM slice WHERE name IS NOT NULL"));
}

}  // namespace
}  // namespace fathom
