// Arg set numbering and sharing (ArgsTable, core/storage/args_table.cc): the
// final ids reach the other tables' arg set columns, and a set committed
// after that gets its first row's id.
#include <gtest/gtest.h>

#include <vector>

#include "core/import/args_tracker.h"
#include "core/storage/trace_storage.h"

namespace fathom {
namespace {

TEST(ArgSetSharing, FinalIdsReachOtherTables) {
  TraceStorage storage;
  ArgsTracker tracker(&storage);
  // The sets of the oracle-checked JSON case arg_set_sharing_json_slices_manual
  // (slices s1..s5): the reference numbers them 1, 1, 3, 5, 6 after its
  // one-row thread dimension set, so 0, 0, 2, 4, 5 with no set before them.
  std::vector<std::optional<uint32_t>> sets;
  sets.push_back(tracker.NewSet().AddInt("args.a", 1).AddString("args.b", "x").Commit());
  sets.push_back(tracker.NewSet().AddInt("args.a", 1).AddString("args.b", "x").Commit());
  sets.push_back(tracker.NewSet().AddString("args.b", "x").AddInt("args.a", 1).Commit());
  sets.push_back(tracker.NewSet().AddInt("args.a", 2).Commit());
  sets.push_back(tracker.NewSet().AddInt("args.a", 1).Commit());
  StringId sev = storage.Intern("info"), name = storage.Intern("log");
  for (const auto& set : sets) storage.import_logs.Insert(0, 0, sev, name, set);
  storage.import_logs.Insert(0, 0, sev, name, std::nullopt);

  storage.FinalizeDerivedTables();  // no deferred sets: final ids now

  const std::vector<uint32_t> want = {0, 0, 2, 4, 5};
  for (uint32_t row = 0; row < want.size(); ++row)
    EXPECT_EQ(storage.import_logs.arg_set_id.Get(row), want[row]) << "row " << row;
  EXPECT_FALSE(storage.import_logs.arg_set_id.Get(5).has_value());
  EXPECT_EQ(storage.args.row_count(), 6u);
  const auto& ids = storage.args.arg_set_id.data();
  EXPECT_EQ(std::vector<uint32_t>(ids.begin(), ids.end()),
            (std::vector<uint32_t>{0, 0, 2, 2, 4, 5}));

  // A set committed once the ids are final starts at the table's end.
  EXPECT_EQ(tracker.NewSet().AddInt("late", 1).Commit(), 6u);
  EXPECT_EQ(storage.args.row_count(), 7u);
}

// Values wider than 32 bits sit in a side list by row: dropping the rows of
// equal sets must move them with their rows, and sets differing only there
// (or only in a value's type) stay apart.
TEST(ArgSetSharing, WideValuesMoveWithTheirRows) {
  TraceStorage storage;
  ArgsTracker tracker(&storage);
  const int64_t big = int64_t{1} << 40;
  std::vector<std::optional<uint32_t>> sets;
  sets.push_back(tracker.NewSet().AddInt("a", big).AddInt("b", 7).Commit());      // rows 0-1
  sets.push_back(tracker.NewSet().AddInt("a", big).AddInt("b", 7).Commit());      // = set 0
  sets.push_back(tracker.NewSet().AddReal("r", 2.5).AddInt("b", 7).Commit());     // rows 2-3
  sets.push_back(tracker.NewSet().AddInt("a", big + 1).AddInt("b", 7).Commit());  // rows 4-5
  sets.push_back(tracker.NewSet().AddReal("r", 2.5).AddInt("b", 7).Commit());     // = set 2
  sets.push_back(tracker.NewSet().AddUint("a", big).AddInt("b", 7).Commit());     // rows 6-7
  sets.push_back(tracker.NewSet().AddPointer("p", 0xdeadbeefcafe).Commit());      // row 8
  StringId sev = storage.Intern("info"), name = storage.Intern("log");
  for (const auto& set : sets) storage.import_logs.Insert(0, 0, sev, name, set);

  storage.FinalizeDerivedTables();

  const std::vector<uint32_t> want = {0, 0, 2, 4, 2, 6, 8};
  for (uint32_t row = 0; row < want.size(); ++row)
    EXPECT_EQ(storage.import_logs.arg_set_id.Get(row), want[row]) << "row " << row;
  const ArgsTable& args = storage.args;
  ASSERT_EQ(args.row_count(), 9u);
  EXPECT_EQ(args.int_value.GetInt(0), big);
  EXPECT_EQ(args.int_value.GetInt(1), 7);
  EXPECT_EQ(args.real_value.GetDouble(2), 2.5);
  EXPECT_EQ(args.int_value.GetInt(4), big + 1);
  EXPECT_EQ(args.int_value.GetInt(6), big);
  EXPECT_EQ(args.int_value.GetInt(8), 0xdeadbeefcafe);
  for (uint32_t row : {1u, 3u, 5u, 7u}) EXPECT_EQ(args.int_value.GetInt(row), 7) << "row " << row;
}

}  // namespace
}  // namespace fathom
