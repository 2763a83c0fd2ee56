#include "core/load/chunk_stream.h"

#include <algorithm>
#include <cstring>

namespace fathom {

ChunkStream::ChunkStream(ChunkReader* source, ChunkReader* file, const LoadTuning& tuning)
    : source_(source),
      file_(file),
      tuning_(tuning),
      chunk_size_(std::max<size_t>(tuning.chunk_bytes, 1)) {}

ChunkStream::~ChunkStream() = default;  // joins the read-ahead thread first

Result<std::unique_ptr<TraceBlob>> ChunkStream::Next(uint64_t* offset) {
  std::unique_ptr<TraceBlob> blob;
  size_t n = 0;
  if (ahead_) {
    auto next = ahead_->Next();
    if (!next.ok()) return next.status();
    blob = std::move(*next);
    file_offset_ = ahead_->file_offset();
    n = blob->size;
    if (n) blob = JoinTail(std::move(blob));
  } else {
    blob = TraceBlob::Allocate(tail_.size() + chunk_size_);
    // (memcpy from an empty vector's null data() is undefined even for 0 bytes.)
    if (!tail_.empty()) memcpy(blob->data.get(), tail_.data(), tail_.size());
    auto got = source_->Read(blob->data.get() + tail_.size(), chunk_size_);
    if (!got.ok()) return got.status();
    file_offset_ = file_->file_offset();
    n = *got;
    blob->size = tail_.size() + n;
    last_full_ = n == chunk_size_;
  }
  if (n == 0) return std::unique_ptr<TraceBlob>();
  *offset = offset_ - tail_.size();
  offset_ += n;
  return blob;
}

void ChunkStream::ReadRestAhead() {
  // Only a source longer than one chunk is worth a thread.
  if (!ahead_ && tuning_.threads && last_full_)
    ahead_ = std::make_unique<ReadAhead>(source_, file_, chunk_size_, tuning_.read_ahead_headroom);
}

std::unique_ptr<TraceBlob> ChunkStream::JoinTail(std::unique_ptr<TraceBlob> blob) {
  if (tail_.empty() || blob->Prepend(tail_.data(), tail_.size())) return blob;
  // A unit longer than the headroom straddles the chunks: join them.
  auto joined = TraceBlob::Allocate(tail_.size() + blob->size);
  memcpy(joined->data.get(), tail_.data(), tail_.size());
  memcpy(joined->data.get() + tail_.size(), blob->data.get(), blob->size);
  return joined;
}

}  // namespace fathom
