// RepeatedContentTable (core/import/repeated_content_table.h): the args
// table's final pass skips a deferred set whose content repeats an earlier
// one's, so a repeat must map to the first set with its content, and nothing
// else may.
#include "core/import/repeated_content_table.h"

#include <gtest/gtest.h>

#include <string>

namespace fathom {
namespace {

RepeatedContentTable::Digest DigestOf(const std::string& s, uint64_t seed = 7) {
  return RepeatedContentTable::Hash(s.data(), s.size(), seed);
}

TEST(RepeatedContentTable, RepeatsTakeTheFirstSetWithTheirContent) {
  RepeatedContentTable t;
  EXPECT_FALSE(t.FindOrInsert(DigestOf("prev_comm=a next_comm=b"), 3));
  EXPECT_FALSE(t.FindOrInsert(DigestOf("prev_comm=a next_comm=c"), 4));
  EXPECT_EQ(t.FindOrInsert(DigestOf("prev_comm=a next_comm=b"), 9), 3u);
  EXPECT_EQ(t.FindOrInsert(DigestOf("prev_comm=a next_comm=c"), 10), 4u);
  EXPECT_EQ(t.FindOrInsert(DigestOf("prev_comm=a next_comm=b"), 11), 3u);
}

TEST(RepeatedContentTable, ContentsThatDifferStayApart) {
  RepeatedContentTable t;
  // One byte apart, a trailing zero byte more (a payload one field longer),
  // and the same bytes under another seed (another event id or record kind).
  const std::string base = "0123456789abcdef0123";
  EXPECT_FALSE(t.FindOrInsert(DigestOf(base), 1));
  std::string last = base;
  last.back() = '4';
  EXPECT_FALSE(t.FindOrInsert(DigestOf(last), 2));
  EXPECT_FALSE(t.FindOrInsert(DigestOf(base + std::string(1, '\0')), 3));
  EXPECT_FALSE(t.FindOrInsert(DigestOf(base, 8), 4));
  EXPECT_FALSE(t.FindOrInsert(DigestOf(""), 5));
  EXPECT_EQ(t.FindOrInsert(DigestOf(base), 6), 1u);
  EXPECT_EQ(t.FindOrInsert(DigestOf(""), 7), 5u);
}

TEST(RepeatedContentTable, GrowsPastItsFirstSizeKeepingEveryContent) {
  RepeatedContentTable t;
  const uint32_t n = 300000;  // several doublings of the 65536-slot start
  for (uint32_t i = 0; i < n; ++i) {
    // Every other lookup repeats: the table stays worth keeping.
    std::string s = "event " + std::to_string(i / 2);
    auto first = t.FindOrInsert(DigestOf(s), i);
    if (i % 2) {
      ASSERT_TRUE(first) << i;
      EXPECT_EQ(*first, i - 1);
    } else {
      EXPECT_FALSE(first) << i;
    }
  }
  EXPECT_TRUE(t.enabled());
  EXPECT_EQ(t.FindOrInsert(DigestOf("event 17"), n), 34u);
}

TEST(RepeatedContentTable, GivesUpWhenRepeatsAreRare) {
  RepeatedContentTable t;
  // All unique: after its sample the table stops answering (the caller then
  // writes every set, and ArgsTable's sharing still finds any equal ones).
  for (uint32_t i = 0; i < (1u << 16) + 10; ++i)
    EXPECT_FALSE(t.FindOrInsert(DigestOf("unique " + std::to_string(i)), i));
  EXPECT_FALSE(t.enabled());
  EXPECT_FALSE(t.FindOrInsert(DigestOf("unique 5"), 1u << 20));
}

}  // namespace
}  // namespace fathom
