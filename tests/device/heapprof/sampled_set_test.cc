// The client's set of page-aligned sampled blocks on its own: no false "certainly not"
// for a member at any granule, exact membership, bits cleared when the last member of a
// granule leaves, growth past the initial table, and the shift locked while non-empty.
#include "device/heapprof/sampled_set.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <unordered_set>
#include <vector>

namespace fathom::heapprof {
namespace {

// Random inserts and erases against a std::unordered_set, on heap-like addresses: two
// 64 MiB-aligned arenas (which alias without the fold) and neighbours in one granule.
void CheckAgainstModel(uint32_t shift) {
  SCOPED_TRACE(shift);
  auto set = std::make_unique<SampledSet>();
  ASSERT_TRUE(set->Init());
  ASSERT_TRUE(set->SetShift(shift));
  std::mt19937_64 rng(shift);
  std::unordered_set<uint64_t> truth;
  std::vector<uint64_t> seen;
  const uint64_t arenas[] = {0x7f0000000000ull, 0x7f0004000000ull, 0x55550000a000ull};
  for (int op = 0; op < 200000; op++) {
    uint64_t addr = arenas[rng() % 3] + (rng() % (4u << 20)) * 16 + 16;
    if (rng() % 3 != 0 && !truth.empty()) {  // mostly free a live one, as a program does
      addr = seen[rng() % seen.size()];
    }
    ASSERT_EQ(set->Contains(addr), truth.count(addr) == 1) << std::hex << addr;
    if (truth.count(addr)) {
      ASSERT_TRUE(set->MaybeContains(addr));
      ASSERT_TRUE(set->Erase(addr));
      truth.erase(addr);
    } else if (truth.size() < 20000) {
      ASSERT_FALSE(set->Erase(addr));  // not a member: nothing to erase
      ASSERT_TRUE(set->Insert(addr));
      truth.insert(addr);
      seen.push_back(addr);
    }
    ASSERT_EQ(set->size(), truth.size());
  }
  for (uint64_t a : truth) ASSERT_TRUE(set->MaybeContains(a)) << std::hex << a;
  EXPECT_FALSE(set->SetShift(SampledSet::kMinShift));  // members are filed by `shift`
  for (uint64_t a : std::vector<uint64_t>(truth.begin(), truth.end())) ASSERT_TRUE(set->Erase(a));
  EXPECT_EQ(set->size(), 0u);
  // Every bit went back to clear with its last member.
  for (uint64_t a : seen) ASSERT_FALSE(set->MaybeContains(a)) << std::hex << a;
  set->Release();
}

TEST(SampledSetTest, MatchesModelAtEveryGranule) {
  for (uint32_t shift : {4u, 5u, 8u, 11u, 12u}) CheckAgainstModel(shift);
}

TEST(SampledSetTest, FewFalseHitsAtSmallGranule) {
  // 2000 members among 8 MiB of glibc-like blocks (chunks of >= 32 bytes, user pointers
  // at 16 mod 32), at a 32-byte granule: every other block must be answered "certainly
  // not" (the whole point of the filter).
  auto set = std::make_unique<SampledSet>();
  ASSERT_TRUE(set->Init());
  ASSERT_TRUE(set->SetShift(5));
  auto block = [](uint64_t i) { return 0x7f0000000000ull + i * 32 + 16; };
  std::mt19937_64 rng(7);
  std::unordered_set<uint64_t> members;
  while (members.size() < 2000) members.insert(block(rng() % (1u << 18)));
  for (uint64_t a : members) ASSERT_TRUE(set->Insert(a));
  int hits = 0;
  for (uint64_t i = 0; i < (1u << 18); i++)
    if (!members.count(block(i))) hits += set->MaybeContains(block(i));
  EXPECT_LT(hits, (1 << 18) / 1000);
  set->Release();
}

}  // namespace
}  // namespace fathom::heapprof
