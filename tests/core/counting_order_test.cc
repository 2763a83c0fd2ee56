// CountingOrder (core/base/counting_order.h) must order exactly as a stable
// sort by key does, give each key's start, and refuse past its limit.
#include "core/base/counting_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

namespace fathom {
namespace {

TEST(CountingOrder, MatchesStableSortByKey) {
  std::mt19937_64 rng(7);
  for (size_t values : {1u, 3u, 40u, 5000u}) {
    std::vector<int64_t> keys(20000);
    for (int64_t& k : keys) k = static_cast<int64_t>(rng() % values) * 1000003 - 7000000;
    std::vector<uint32_t> want(keys.size());
    std::iota(want.begin(), want.end(), 0u);
    std::stable_sort(want.begin(), want.end(),
                     [&](uint32_t a, uint32_t b) { return keys[a] < keys[b]; });
    std::vector<uint32_t> got, rank;
    std::vector<size_t> starts;
    ASSERT_TRUE(CountingOrder(
        keys.size(), [&](size_t i) { return keys[i]; }, values, &got, &starts, &rank));
    EXPECT_EQ(got, want) << values << " values";
    ASSERT_EQ(rank.size(), keys.size());
    for (uint32_t at = 0; at < got.size(); ++at) ASSERT_EQ(rank[got[at]], at) << values;
    std::vector<size_t> want_starts;
    for (size_t i = 0; i < want.size(); ++i)
      if (i == 0 || keys[want[i]] != keys[want[i - 1]]) want_starts.push_back(i);
    want_starts.push_back(want.size());
    EXPECT_EQ(starts, want_starts);
  }
}

TEST(CountingOrder, RefusesMoreValuesThanTheLimit) {
  std::vector<int64_t> keys = {5, 1, 5, 2, 9};
  std::vector<uint32_t> order = {42};
  EXPECT_FALSE(CountingOrder(
      keys.size(), [&](size_t i) { return keys[i]; }, 3, &order));
  EXPECT_EQ(order, std::vector<uint32_t>{42});  // untouched
  ASSERT_TRUE(CountingOrder(
      keys.size(), [&](size_t i) { return keys[i]; }, 4, &order));
  EXPECT_EQ(order, (std::vector<uint32_t>{1, 3, 0, 2, 4}));
}

}  // namespace
}  // namespace fathom
