// A ChunkReader over a decompressing reader that stops once the stream has
// expanded past LoadLimits::InflateAllowance of the compressed bytes it read:
// a 0.5 MB gzip of 512 MB of empty packets ends at the allowance with an error
// naming the limit, after handing out every byte up to it.
#pragma once

#include <memory>
#include <string>

#include "core/import/chunk_reader.h"
#include "core/import/load_limits.h"

namespace fathom {

class ExpansionGuard : public ChunkReader {
 public:
  // `inner` decompresses; its file_offset() is the compressed position.
  ExpansionGuard(std::unique_ptr<ChunkReader> inner, const LoadLimits& limits);

  Result<size_t> Read(uint8_t* dst, size_t cap) override;
  uint64_t file_offset() const override { return inner_->file_offset(); }
  uint64_t file_size() const override { return inner_->file_size(); }
  const char* wrapper() const override { return inner_->wrapper(); }
  std::string end_warning() const override { return inner_->end_warning(); }

 private:
  std::unique_ptr<ChunkReader> inner_;
  LoadLimits limits_;
  uint64_t start_offset_;  // inner's compressed position when wrapped
  uint64_t produced_ = 0;  // bytes handed out
  bool stopped_ = false;
};

// Wraps `reader` in an ExpansionGuard when it decompresses (a gzip/zstd
// wrapper); returns it unchanged otherwise.
std::unique_ptr<ChunkReader> GuardExpansion(std::unique_ptr<ChunkReader> reader,
                                            const LoadLimits& limits);

// The error text for a stream stopped by the inflate limit.
std::string InflateLimitMessage(uint64_t produced, uint64_t compressed, const LoadLimits& limits);

}  // namespace fathom
