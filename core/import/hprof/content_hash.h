// A 64-bit hash of bytes that arrive in pieces (a primitive array's contents
// streaming past chunk boundaries): the same bytes give the same hash however
// they are split. Words of 8 bytes are mixed multiplicatively; only equal
// contents are meant to be found with it, it is no cryptographic digest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fathom::hprof {

class ContentHasher {
 public:
  void Reset(uint64_t seed) {
    h_ = seed * kMul ^ 0x9E3779B97F4A7C15ull, word_ = 0, have_ = 0, len_ = 0;
  }
  void Add(const uint8_t* p, size_t n) {
    len_ += n;
    while (n > 0 && have_ != 0) Byte(*p++), --n;
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      memcpy(&w, p, 8);
      Mix(w);
    }
    while (n > 0) Byte(*p++), --n;
  }
  // Never 0, so 0 can mean "no hash".
  uint64_t Finish() {
    if (have_) Mix(word_);
    uint64_t h = (h_ ^ len_) * kMul;
    h ^= h >> 31;
    return h ? h : 1;
  }

 private:
  static constexpr uint64_t kMul = 0x9FB21C651E98DF25ull;
  void Mix(uint64_t w) {
    h_ = (h_ ^ w) * kMul;
    h_ ^= h_ >> 29;
  }
  void Byte(uint8_t b) {
    word_ |= static_cast<uint64_t>(b) << (8 * have_);
    if (++have_ == 8) Mix(word_), word_ = 0, have_ = 0;
  }
  uint64_t h_ = 0, word_ = 0, len_ = 0;
  unsigned have_ = 0;
};

}  // namespace fathom::hprof
