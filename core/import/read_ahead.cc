#include "core/import/read_ahead.h"

namespace fathom {

ReadAhead::ReadAhead(ChunkReader* stream, ChunkReader* progress_reader, size_t chunk_size,
                     size_t headroom, size_t depth)
    : stream_(stream),
      progress_reader_(progress_reader),
      chunk_size_(chunk_size),
      headroom_(headroom),
      depth_(depth ? depth : 1),
      thread_([this] { Run(); }) {}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ReadAhead::Run() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stop_ || ready_.size() < depth_; });
      if (stop_) break;
    }
    Item item;
    auto blob = TraceBlob::AllocateWithHeadroom(headroom_, chunk_size_);
    // Filling a fresh chunk faults its pages in here, on this thread.
    auto n = stream_->Read(blob->data.get(), chunk_size_);
    bool last = !n.ok() || *n == 0;
    if (n.ok()) {
      blob->size = *n;
      item.blob = std::move(blob);
    } else {
      item.status = n.status();
    }
    item.file_offset = progress_reader_->file_offset();
    {
      std::lock_guard<std::mutex> lock(mu_);
      ready_.push_back(std::move(item));
      if (last) done_ = true;
    }
    cv_.notify_all();
    if (last) break;
  }
}

Result<std::unique_ptr<TraceBlob>> ReadAhead::Next() {
  Item item;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !ready_.empty() || done_; });
    if (ready_.empty()) return TraceBlob::Allocate(0);  // asked again after the end
    item = std::move(ready_.front());
    ready_.pop_front();
  }
  cv_.notify_all();
  file_offset_ = item.file_offset;
  if (!item.status.ok()) return item.status;
  return std::move(item.blob);
}

}  // namespace fathom
