// Reads one source as a sequence of chunks for a tokenizer, each with the
// previous chunk's unfinished unit (the bytes the tokenizer handed back) in
// front. Once the source proves longer than one chunk the rest is read ahead
// on another thread (ReadAhead); the stream owns that thread, so the source's
// reader is the caller's again once the ChunkStream is gone.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/status.h"
#include "core/import/chunk_reader.h"
#include "core/import/read_ahead.h"
#include "core/import/trace_blob.h"
#include "core/trace_processor.h"

namespace fathom {

class ChunkStream {
 public:
  // `source` is read; `file` is the file on disk under it (for progress).
  ChunkStream(ChunkReader* source, ChunkReader* file, const LoadTuning& tuning);
  ~ChunkStream();

  // The next chunk with the unfinished tail in front, or a null blob at the
  // end of the source. `offset` receives the stream offset of its first byte.
  Result<std::unique_ptr<TraceBlob>> Next(uint64_t* offset);

  // Reads the rest on another thread from now on, if the last chunk was a
  // full one. Call once the source is known to be tokenized (not a container
  // whose reader is handed on).
  void ReadRestAhead();

  // After a Feed: the last `n` bytes of `chunk_end - n .. chunk_end` did not
  // form a whole unit; they go in front of the next chunk.
  void KeepTail(const uint8_t* chunk_end, size_t n) { tail_.assign(chunk_end - n, chunk_end); }
  const std::vector<uint8_t>& tail() const { return tail_; }
  void DropTail() { tail_.clear(); }

  // Stream offset of the next byte to read (past the tail).
  uint64_t offset() const { return offset_; }
  // The file's read position after the last chunk (for progress).
  uint64_t file_offset() const { return file_offset_; }

 private:
  std::unique_ptr<TraceBlob> JoinTail(std::unique_ptr<TraceBlob> blob);

  ChunkReader* source_;
  ChunkReader* file_;
  LoadTuning tuning_;
  size_t chunk_size_;
  std::unique_ptr<ReadAhead> ahead_;
  std::vector<uint8_t> tail_;
  uint64_t offset_ = 0;
  uint64_t file_offset_ = 0;
  bool last_full_ = false;
};

}  // namespace fathom
