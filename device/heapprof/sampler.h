// Poisson sampling of allocated bytes, as heapprofd does it: every byte is a point of a
// Poisson process with mean interval N, an allocation is sampled when the process fires
// inside it, and then stands for N bytes per firing. Allocations of >= N bytes are always
// recorded with their true size (their expected estimate would be the same, without the
// variance). Memoryless, so per-thread state is exact.
//
// Estimator variance: for a call path allocating T bytes in allocations < N, the number of
// firings K is Poisson(T/N) and the estimate N*K has standard deviation sqrt(N*T) (relative
// sqrt(N/T)). Larger allocations contribute no error.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace fathom::heapprof {

class Sampler {
 public:
  void Reset(uint64_t interval, uint64_t seed) {
    interval_ = interval;
    rng_ = seed | 1;
    bytes_left_ = NextInterval();
  }

  // Fast-path test: true when `size` cannot be sampled (the caller then charges it with
  // Consume). Two compares, no memory beyond this object.
  bool Skips(size_t size) const {
    return static_cast<int64_t>(size) < bytes_left_ && size < interval_;
  }
  void Consume(size_t size) { bytes_left_ -= static_cast<int64_t>(size); }

  // Slow path: bytes this allocation stands for (0 = not sampled).
  uint64_t SampleSize(size_t size) {
    if (size >= interval_) return size;
    bytes_left_ -= static_cast<int64_t>(size);
    uint64_t samples = 0;
    while (bytes_left_ <= 0) {
      bytes_left_ += NextInterval();
      ++samples;
    }
    return samples * interval_;
  }

  uint64_t interval() const { return interval_; }

 private:
  int64_t NextInterval() {
    // xorshift64*: fast, good enough for exponential draws.
    rng_ ^= rng_ >> 12;
    rng_ ^= rng_ << 25;
    rng_ ^= rng_ >> 27;
    uint64_t r = rng_ * 0x2545F4914F6CDD1DULL;
    double u = (static_cast<double>(r >> 11) + 1.0) * (1.0 / 9007199254740992.0);  // (0, 1]
    double v = -std::log(u) * static_cast<double>(interval_);
    if (v < 1) v = 1;
    if (v > 9e15) v = 9e15;
    return static_cast<int64_t>(v);
  }

  uint64_t interval_ = 0;
  uint64_t rng_ = 1;
  int64_t bytes_left_ = 0;
};

}  // namespace fathom::heapprof
