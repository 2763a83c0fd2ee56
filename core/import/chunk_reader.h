// Streams a trace file in fixed-size chunks, transparently inflating gzip and
// zstd wrappers, so files of any size load without being read whole first.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace fathom {

class ChunkReader {
 public:
  virtual ~ChunkReader() = default;
  // Reads up to `cap` bytes into `dst`. Returns 0 at the end of the stream.
  virtual Result<size_t> Read(uint8_t* dst, size_t cap) = 0;
  // Bytes consumed from the underlying file so far (for progress).
  virtual uint64_t file_offset() const = 0;
  virtual uint64_t file_size() const = 0;
  // Name of the decompression wrapper ("gzip", "zstd"), or nullptr.
  virtual const char* wrapper() const { return nullptr; }
  // After the end of the stream: a problem with the stream's end that did
  // not stop reading (e.g. a gzip stream cut before its trailer), or "".
  virtual std::string end_warning() const { return ""; }
};

// Opens `path` and wraps it in decompressors as its leading bytes require
// (gzip 1F 8B, zstd 28 B5 2F FD). Detection is by content, never extension.
Result<std::unique_ptr<ChunkReader>> OpenTraceFile(const std::string& path);

// Wraps a borrowed stream (an archive member) in decompressors as its first
// bytes require, like OpenTraceFile; `stream` must outlive the result.
Result<std::unique_ptr<ChunkReader>> UnwrapStream(ChunkReader* stream);

// A reader over bytes already in memory (tests, fuzzers, nested payloads),
// unwrapped like a file.
std::unique_ptr<ChunkReader> MakeMemoryReader(const uint8_t* data, size_t size);

// Inflates a whole zlib or gzip buffer (compressed_packets). Appends to `out`;
// on damage, or past `max_out` bytes, returns an error with what inflated
// before it still appended.
Status InflateBuffer(const uint8_t* data, size_t size, std::vector<uint8_t>* out,
                     size_t max_out = SIZE_MAX);
// Decompresses a whole zstd buffer (zstd_compressed_packets), as InflateBuffer.
Status ZstdDecompressBuffer(const uint8_t* data, size_t size, std::vector<uint8_t>* out,
                            size_t max_out = SIZE_MAX);

}  // namespace fathom
