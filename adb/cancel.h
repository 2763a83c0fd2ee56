// Cancellation and deadlines for blocking adb calls made from worker threads.
// Blocking loops poll in short slices (see kPollSlice) so that a Cancel() from another
// thread is noticed quickly without needing a platform-specific wakeup primitive.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>

namespace fathom::adb {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

// How long a blocking wait sleeps before re-checking cancellation.
inline constexpr Millis kPollSlice{50};

// Shared flag: copies observe the same state, so the UI thread can keep one and hand a
// copy to the worker.
class CancelToken {
 public:
  CancelToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  void Cancel() const { flag_->store(true, std::memory_order_relaxed); }
  bool cancelled() const { return flag_->load(std::memory_order_relaxed); }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

// Absolute point in time; Deadline::After(timeout) at the start of an operation keeps the
// total bounded however many reads it takes.
class Deadline {
 public:
  static Deadline After(Millis timeout) { return Deadline(Clock::now() + timeout); }
  static Deadline Never() { return Deadline(Clock::time_point::max()); }
  // The earlier of the two (a caller's overall deadline and one of our per-wait limits).
  static Deadline Sooner(Deadline a, Deadline b) { return a.at_ < b.at_ ? a : b; }
  bool expired() const { return Clock::now() >= at_; }
  bool never() const { return at_ == Clock::time_point::max(); }
  // Remaining time, clamped to [0, cap].
  Millis Remaining(Millis cap) const {
    if (at_ == Clock::time_point::max()) return cap;
    auto left = std::chrono::duration_cast<Millis>(at_ - Clock::now());
    if (left < Millis(0)) return Millis(0);
    return left < cap ? left : cap;
  }

 private:
  explicit Deadline(Clock::time_point at) : at_(at) {}
  Clock::time_point at_;
};

}  // namespace fathom::adb
