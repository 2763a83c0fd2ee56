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
    Split(NextInterval());
  }

  // Fast-path test: true when `size` cannot be sampled (the caller then charges it with
  // Consume). One compare: the bytes left before the next firing are kept as a part
  // capped at the interval (left_) and the rest (excess_), so size < left_ also means
  // size < interval. When left_ runs out first, SampleSize moves the excess in and
  // answers 0: the same draws decide, only the slow path is taken a little more often
  // (about 0.6 times per firing).
  bool Skips(size_t size) const { return size < left_; }
  void Consume(size_t size) { left_ -= size; }
  // The hook's x86-64 fast path subtracts before it tests (one instruction); its slow
  // path gives the bytes back with Refund before calling SampleSize.
  void Refund(size_t size) { left_ += size; }
  uint64_t* left_for_fast_path() { return &left_; }

  // Slow path: bytes this allocation stands for (0 = not sampled).
  uint64_t SampleSize(size_t size) {
    if (size >= interval_) return size;
    int64_t left = static_cast<int64_t>(left_ + excess_) - static_cast<int64_t>(size);
    uint64_t samples = 0;
    while (left <= 0) {
      left += NextInterval();
      ++samples;
    }
    Split(left);
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

  void Split(int64_t left) {
    left_ = static_cast<uint64_t>(left) < interval_ ? static_cast<uint64_t>(left) : interval_;
    excess_ = static_cast<uint64_t>(left) - left_;
  }

  // left_ first: the fast path's only field. left_ + excess_ bytes are left before the
  // next firing (always > 0 between calls); left_ <= interval_.
  uint64_t left_ = 0;
  uint64_t excess_ = 0;
  uint64_t interval_ = 0;
  uint64_t rng_ = 1;
};

}  // namespace fathom::heapprof
