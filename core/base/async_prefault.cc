#include "core/base/async_prefault.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include "base/platform.h"

namespace fathom::platform {
namespace {

// One thread for the process: requests are few (one per prefault step, 1 MiB, of a
// column's growth) and the work is the kernel's.
class Prefaulter {
 public:
  uint64_t Post(void* p, size_t bytes) {
    uint64_t ticket;
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.emplace_back(p, bytes);
      ticket = ++posted_;
      if (!started_) {
        started_ = true;
        // Detached, and the object is never destroyed: a column vector growing during
        // static destruction must still find it, and a thread waiting on a condition
        // variable does not keep the process alive.
        std::thread([this] { Run(); }).detach();
      }
    }
    wake_.notify_one();
    return ticket;
  }

  bool Done(uint64_t ticket) const { return done_.load(std::memory_order_acquire) >= ticket; }

  void WaitIdle() {
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [&] { return done_.load(std::memory_order_relaxed) == posted_; });
  }

 private:
  void Run() {
    RunOnlyWhenIdle();
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      wake_.wait(lock, [&] { return !queue_.empty(); });
      auto [p, bytes] = queue_.front();
      queue_.pop_front();
      lock.unlock();
      PrefaultLarge(p, bytes);
      lock.lock();
      uint64_t done = done_.load(std::memory_order_relaxed) + 1;
      done_.store(done, std::memory_order_release);
      if (done == posted_) done_cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable wake_, done_cv_;
  std::deque<std::pair<void*, size_t>> queue_;
  bool started_ = false;
  uint64_t posted_ = 0;
  std::atomic<uint64_t> done_{0};  // read without the lock by AsyncPrefaultDone
};

Prefaulter& Instance() {
  static Prefaulter* const instance = new Prefaulter;
  return *instance;
}

thread_local bool t_async_prefault = false;

}  // namespace

void SetAsyncPrefaultForThisThread(bool on) { t_async_prefault = on; }
bool AsyncPrefaultForThisThread() { return t_async_prefault; }

uint64_t PrefaultLargeAsync(void* p, size_t bytes) {
  if (bytes == 0 || !PrefaultLargeWorks()) return 0;
  return Instance().Post(p, bytes);
}

bool AsyncPrefaultDone(uint64_t ticket) { return ticket == 0 || Instance().Done(ticket); }

void WaitForAsyncPrefaults() {
  if (PrefaultLargeWorks()) Instance().WaitIdle();
}

}  // namespace fathom::platform
