// BatchPipe hands batches from one thread to another in order: no batch is
// lost, reordered or left behind at the end, whichever side is faster, and
// an abandoning consumer releases a blocked producer.
#include "core/base/batch_pipe.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace fathom {
namespace {

struct Batch {
  uint64_t values[16];
  size_t size = 0;
};

// Sends 0..n-1 through a pipe of kBatches batches, partly filling some
// batches; `slow_producer` / `slow_consumer` make that side sleep now and then.
template <size_t kBatches>
std::vector<uint64_t> RoundTrip(uint64_t n, bool slow_producer, bool slow_consumer) {
  BatchPipe<Batch, kBatches> pipe;
  std::thread producer([&] {
    Batch* b = nullptr;
    for (uint64_t i = 0; i < n; ++i) {
      if (!b) b = pipe.Acquire();
      b->values[b->size++] = i;
      // Publish full batches, and now and then a short one.
      if (b->size == 16 || i % 37 == 5) {
        pipe.Publish();
        b = nullptr;
        if (slow_producer && i % 97 == 0)
          std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    }
    if (b && b->size) {
      pipe.Publish();
      b = nullptr;
    }
    pipe.Finish(b);
  });
  std::vector<uint64_t> got;
  while (const Batch* b = pipe.Next()) {
    for (size_t i = 0; i < b->size; ++i) got.push_back(b->values[i]);
    pipe.Release();
    if (slow_consumer && got.size() % 89 < 16)
      std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  producer.join();
  return got;
}

template <size_t kBatches>
void ExpectInOrder(bool slow_producer, bool slow_consumer) {
  const uint64_t n = 20000;
  std::vector<uint64_t> got = RoundTrip<kBatches>(n, slow_producer, slow_consumer);
  ASSERT_EQ(got.size(), n);
  for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], i);
}

TEST(BatchPipe, EveryItemArrivesInOrder) {
  ExpectInOrder<2>(false, false);
  ExpectInOrder<8>(false, false);
  ExpectInOrder<8>(true, false);
  ExpectInOrder<8>(false, true);
  ExpectInOrder<3>(true, true);
}

TEST(BatchPipe, AShortStreamArrives) {
  // Fewer batches than the ring holds: the consumer must not wait for more.
  std::vector<uint64_t> got = RoundTrip<8>(20, false, false);
  ASSERT_EQ(got.size(), 20u);
  EXPECT_EQ(got.back(), 19u);
}

TEST(BatchPipe, AbandonReleasesABlockedProducer) {
  BatchPipe<Batch, 4> pipe;
  std::thread producer([&] {
    // Fills the ring, then blocks in Acquire until the consumer abandons.
    while (Batch* b = pipe.Acquire()) {
      b->size = 1;
      pipe.Publish();
    }
    pipe.Finish(nullptr);
  });
  const Batch* first = pipe.Next();
  ASSERT_NE(first, nullptr);
  pipe.Release();
  pipe.Abandon();
  producer.join();  // a hang here is the failure
}

}  // namespace
}  // namespace fathom
