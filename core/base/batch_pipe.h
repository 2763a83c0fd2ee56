// A single-producer single-consumer ring of fixed batches: one thread fills
// batches, another takes them in the same order. One lock per batch, not per
// item, so a pipe of a few thousand items per batch costs almost nothing per
// item. `Batch` needs a `size_t size` member (items in it).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>

namespace fathom {

template <typename Batch, size_t kBatches>
class BatchPipe {
 public:
  BatchPipe() : batches_(new Batch[kBatches]) {}

  // Producer: an empty batch to fill, or nullptr once the consumer abandoned
  // the pipe. Blocks while every batch is full or being read.
  Batch* Acquire() {
    std::unique_lock<std::mutex> lock(mu_);
    // Batches are filled, read and released in ring order, so the slot after
    // those in use is free whenever fewer than kBatches are.
    cv_.wait(lock, [&] { return abandoned_ || in_use_ < kBatches; });
    if (abandoned_) return nullptr;
    Batch* b = &batches_[(head_ + in_use_) % kBatches];
    ++in_use_;
    b->size = 0;
    return b;
  }
  // Producer: the batch from Acquire is ready for the consumer.
  void Publish() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++full_;
    }
    cv_.notify_all();
  }
  // Producer: no more batches. `unpublished`: an acquired batch that stays
  // empty (never reaches the consumer), or nullptr.
  void Finish(Batch* unpublished) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (unpublished) --in_use_;
      finished_ = true;
    }
    cv_.notify_all();
  }

  // Consumer: the next full batch, or nullptr once the producer finished
  // and everything was taken.
  const Batch* Next() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return full_ > 0 || finished_; });
    if (full_ == 0) return nullptr;
    return &batches_[head_];
  }
  // Consumer: the batch from Next is read; it may be refilled.
  void Release() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      head_ = (head_ + 1) % kBatches;
      --full_;
      --in_use_;
    }
    cv_.notify_all();
  }
  // Consumer: takes no more batches; the producer's Acquire returns nullptr.
  void Abandon() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      abandoned_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::unique_ptr<Batch[]> batches_;
  std::mutex mu_;
  std::condition_variable cv_;
  // [head_, head_ + full_) are full, in order; in_use_ = full_ + the batch
  // being filled, if any.
  size_t head_ = 0, full_ = 0, in_use_ = 0;
  bool finished_ = false, abandoned_ = false;
};

}  // namespace fathom
