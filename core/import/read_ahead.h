// Reads a stream's next chunks on a thread of its own while the loader
// tokenizes the current one: the read (a copy out of the page cache, or
// inflating a gzip/zstd trace) and the first touch of each fresh chunk's
// pages then cost the tokenizer nothing. The thread owns the reader until
// the stream ends or the ReadAhead is destroyed; the loader asks the
// ReadAhead, not the reader, for progress.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "base/status.h"
#include "core/import/chunk_reader.h"
#include "core/import/trace_blob.h"

namespace fathom {

class ReadAhead {
 public:
  // Reads `stream` in chunks of `chunk_size` bytes, each with `headroom` free
  // bytes in front (TraceBlob::Prepend), at most `depth` chunks ahead.
  // `progress_reader`: the file under `stream` (itself, or an archive or
  // decompressor below it), whose file_offset() is sampled after each read.
  ReadAhead(ChunkReader* stream, ChunkReader* progress_reader, size_t chunk_size, size_t headroom,
            size_t depth = 2);
  ~ReadAhead();  // stops reading and joins the thread
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // The next chunk in stream order; a blob of size 0 at the end of the
  // stream; the reader's error if a read failed (then the stream is over).
  Result<std::unique_ptr<TraceBlob>> Next();
  // progress_reader's file_offset() after the read of the last chunk Next returned.
  uint64_t file_offset() const { return file_offset_; }

 private:
  struct Item {
    Status status;
    std::unique_ptr<TraceBlob> blob;
    uint64_t file_offset = 0;
  };
  void Run();

  ChunkReader* stream_;
  ChunkReader* progress_reader_;
  size_t chunk_size_, headroom_, depth_;
  uint64_t file_offset_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> ready_;
  bool stop_ = false;
  bool done_ = false;  // the thread queued the end (or an error) and left
  std::thread thread_;
};

}  // namespace fathom
