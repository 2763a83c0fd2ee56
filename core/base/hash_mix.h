// 64-bit mixing steps shared by Fathom's digests and hash tables.
#pragma once

#include <cstdint>

namespace fathom {

// MurmurHash3's 64-bit finalizer: every input bit flips about half the
// output bits (also the integer hash upstream's flat hash map uses, which
// upstream_map_order.cc replays).
inline uint64_t Fmix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

// A second, independent step (xor, rotate, golden-ratio multiply), for the
// second of two digests that must not collide together.
inline uint64_t RotMul64(uint64_t h, uint64_t v) {
  h ^= v;
  h = (h << 29) | (h >> 35);
  return h * 0x9e3779b97f4a7c15ULL;
}

}  // namespace fathom
