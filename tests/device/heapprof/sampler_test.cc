// The Poisson sampler on its own: unbiased for small allocations, exact for large ones.
#include "device/heapprof/sampler.h"

#include <gtest/gtest.h>

#include <cmath>

namespace fathom::heapprof {
namespace {

TEST(SamplerTest, SmallAllocationsAreUnbiasedWithinPoissonBound) {
  Sampler s;
  s.Reset(4096, 12345);
  // 64 MiB in 48-byte blocks: estimate sd = sqrt(N * T); allow 5 sd.
  const uint64_t total = 64u << 20, size = 48;
  uint64_t estimate = 0, sampled_blocks = 0;
  for (uint64_t done = 0; done < total; done += size) {
    if (s.Skips(size)) {
      s.Consume(size);
      continue;
    }
    uint64_t v = s.SampleSize(size);
    estimate += v;
    sampled_blocks += v != 0;
    EXPECT_EQ(v % 4096, 0u);
  }
  EXPECT_NEAR(static_cast<double>(estimate), static_cast<double>(total),
              5 * std::sqrt(4096.0 * total));
  // About one block in 4096/48 is sampled: the fast path is the common case.
  EXPECT_LT(sampled_blocks, total / size / 50);
}

TEST(SamplerTest, LargeAllocationsKeepTheirTrueSize) {
  Sampler s;
  s.Reset(4096, 7);
  EXPECT_FALSE(s.Skips(4096));
  EXPECT_EQ(s.SampleSize(4096), 4096u);
  EXPECT_EQ(s.SampleSize(1 << 20), 1u << 20);
}

TEST(SamplerTest, MeanIntervalFollowsConfiguration) {
  for (uint64_t interval : {512u, 4096u, 524288u}) {
    Sampler s;
    s.Reset(interval, 99);
    uint64_t samples = 0;
    const uint64_t total = 1ull << 30;  // 1 GiB in 64-byte steps, charged in bulk
    for (uint64_t done = 0; done < total; done += 64) {
      if (s.Skips(64)) {
        s.Consume(64);
      } else {
        samples += s.SampleSize(64) / interval;
      }
    }
    double expected = static_cast<double>(total) / interval;
    EXPECT_NEAR(samples, expected, 5 * std::sqrt(expected) + 1) << interval;
  }
}

// The fast path's counter is capped at the interval (the rest waits in reserve), so some
// allocations that cannot be sampled still take the slow path. That must not change a
// single decision: the same draws, whether the fast path is used or not.
TEST(SamplerTest, FastPathDoesNotChangeDecisions) {
  Sampler fast, slow;
  fast.Reset(4096, 2024);
  slow.Reset(4096, 2024);
  uint64_t x = 1, sampled = 0;
  for (int i = 0; i < 200000; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    size_t size = (i % 97 == 0) ? 5000 + (x >> 40) % 20000 : 8 + (x >> 40) % 600;
    uint64_t a = 0;
    if (fast.Skips(size))
      fast.Consume(size);
    else
      a = fast.SampleSize(size);
    uint64_t b = slow.SampleSize(size);
    ASSERT_EQ(a, b) << "allocation " << i;
    sampled += a != 0;
  }
  EXPECT_GT(sampled, 1000u);
}

}  // namespace
}  // namespace fathom::heapprof
