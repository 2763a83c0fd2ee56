// Bounds that keep a hostile or damaged file from taking the machine: how far
// compressed data may expand, how deep archives may nest, how large one packet
// or one container read whole may be. No real trace comes near the defaults;
// a file that crosses one loads what came before and says which limit stopped
// it, at which offset, and which flag raises it (README "Limits and safety").
#pragma once

#include <cstdint>

namespace fathom {

struct LoadLimits {
  // A decompressed stream (a gzip/zstd file or member, a deflate zip member,
  // one compressed_packets payload) may yield at most
  // max(inflate_floor_bytes, max_inflate_ratio x the compressed bytes read).
  // The whole file likewise: every byte handed to a tokenizer plus every
  // inflated compressed_packets payload, against the file's size. Real traces
  // compress 3-30x (the shared test traces under gzip -9 and zstd -19).
  uint64_t max_inflate_ratio = 200;
  uint64_t inflate_floor_bytes = 64ull << 20;
  // Archives inside archives: a zip in a zip is depth 2. Nested archives
  // stream through their parents (about 1.3 MiB per open level, no copies),
  // so the bound is on that memory; upstream opens 200 levels, and so do we.
  int max_archive_depth = 256;
  // compressed_packets inside compressed_packets (upstream rejects those too).
  int max_compressed_nesting = 1;
  // One TracePacket's declared length.
  uint64_t max_packet_bytes = 256ull << 20;
  // A container split whole (an HTML page, compressed atrace output).
  uint64_t max_container_bytes = 2ull << 30;
  // Key bytes one debug annotation may write: each leaf repeats its whole
  // path, so a deep chain with a leaf per level writes depth^2 bytes. Far
  // above any real annotation (a 100,000-entry dictionary with 100-byte keys
  // writes 10 MB).
  uint64_t max_annotation_key_bytes = 64ull << 20;

  // The most a stream of `compressed` bytes may inflate to.
  uint64_t InflateAllowance(uint64_t compressed) const {
    uint64_t by_ratio = compressed > UINT64_MAX / (max_inflate_ratio ? max_inflate_ratio : 1)
                            ? UINT64_MAX
                            : compressed * max_inflate_ratio;
    return by_ratio > inflate_floor_bytes ? by_ratio : inflate_floor_bytes;
  }
};

}  // namespace fathom
