#include "core/load/expansion_guard.h"

#include <algorithm>

namespace fathom {

ExpansionGuard::ExpansionGuard(std::unique_ptr<ChunkReader> inner, const LoadLimits& limits)
    : inner_(std::move(inner)), limits_(limits), start_offset_(inner_->file_offset()) {}

Result<size_t> ExpansionGuard::Read(uint8_t* dst, size_t cap) {
  if (stopped_) {
    uint64_t compressed = inner_->file_offset() - start_offset_;
    return ErrorStatus(InflateLimitMessage(produced_, compressed, limits_));
  }
  auto n = inner_->Read(dst, cap);
  if (!n.ok() || *n == 0) return n;
  // The compressed bytes behind what was produced so far: the read may have
  // pulled a whole input buffer, so the allowance is if anything generous.
  uint64_t compressed = inner_->file_offset() - start_offset_;
  uint64_t allowed = limits_.InflateAllowance(compressed);
  if (produced_ + *n <= allowed) {
    produced_ += *n;
    return n;
  }
  // Hand out what fits; the next read reports the limit.
  size_t fits = static_cast<size_t>(allowed > produced_ ? allowed - produced_ : 0);
  produced_ += fits;
  stopped_ = true;
  if (fits == 0) return ErrorStatus(InflateLimitMessage(produced_, compressed, limits_));
  return fits;
}

std::unique_ptr<ChunkReader> GuardExpansion(std::unique_ptr<ChunkReader> reader,
                                            const LoadLimits& limits) {
  if (!reader->wrapper()) return reader;
  return std::make_unique<ExpansionGuard>(std::move(reader), limits);
}

std::string InflateLimitMessage(uint64_t produced, uint64_t compressed, const LoadLimits& limits) {
  return "compressed data expands past the limit: " + std::to_string(produced) +
         " bytes inflated from " + std::to_string(compressed) + " compressed bytes (more than " +
         std::to_string(limits.max_inflate_ratio) + "x, beyond the first " +
         std::to_string(limits.inflate_floor_bytes >> 20) + " MiB; raise with --max-inflate-ratio)";
}

}  // namespace fathom
