// Compression for sync v2 (SND2/RCV2, spec §10): the DATA payloads of one transfer together
// form a single compressed stream (brotli, LZ4 frame or zstd), cut into DATA chunks of at most
// 64 KiB wherever the encoder's output happens to fall. Each codec is optional at build time
// (FATHOM_ADB_HAVE_BROTLI / _LZ4 / _ZSTD); without any, sync v2 still works uncompressed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace fathom::adb {

// Values are the SND2/RCV2 flag bits.
enum class SyncCompression : uint32_t { kNone = 0, kBrotli = 1, kLz4 = 2, kZstd = 4 };
inline constexpr uint32_t kSyncFlagDryRun = 0x80000000u;

// "none", "brotli", "lz4", "zstd".
const char* SyncCompressionName(SyncCompression c);
std::optional<SyncCompression> ParseSyncCompression(std::string_view name);
// Whether this build can encode and decode `c` (kNone always).
bool SyncCompressionBuilt(SyncCompression c);
// The codecs built into this binary, best first (adb's order: zstd, lz4, brotli).
std::vector<SyncCompression> BuiltSyncCompressions();
// The feature name a device lists for `c` ("sendrecv_v2_zstd"); "" for kNone.
std::string SyncCompressionFeature(SyncCompression c);

// Receives output as it is produced, in pieces of at most 64 KiB.
using ChunkSink = std::function<Status(std::string_view)>;

class SyncEncoder {
 public:
  virtual ~SyncEncoder() = default;
  // Compresses `in`; with finish, also ends the stream (call once, last).
  virtual Status Encode(std::string_view in, bool finish, const ChunkSink& out) = 0;
};

class SyncDecoder {
 public:
  virtual ~SyncDecoder() = default;
  // Decompresses one DATA payload. Output goes out in bounded pieces, so a tiny payload that
  // expands enormously never sits in memory whole.
  virtual Status Decode(std::string_view in, const ChunkSink& out) = 0;
  // At DONE: an error if the compressed stream did not end.
  virtual Status Finish() = 0;
};

// kNone gives a pass-through codec. Errors name the codec when it is not built.
Result<std::unique_ptr<SyncEncoder>> MakeSyncEncoder(SyncCompression c);
Result<std::unique_ptr<SyncDecoder>> MakeSyncDecoder(SyncCompression c);

}  // namespace fathom::adb
