// Finds deferred arg sets whose stored content repeats an earlier set's.
//
// Most raw ftrace events of a trace repeat an earlier event's args exactly
// (the same pair of threads switching, the same wakeup): on a 100 MB trace
// 2.7 M deferred sets hold 0.6 M distinct contents. The args table's final
// pass (ArgsTable::Materialize) shares equal sets anyway, but only after
// writing, digesting and then compacting away every repeat's rows; asking
// here first lets it skip all three for a repeat, which then simply takes the
// id of the first set with that content.
//
// The table gives up (and frees itself) when
// repeats turn out rare, so a trace of unique events pays little for it.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>

#include "core/base/column_vector.h"
#include "core/base/hash_mix.h"

namespace fathom {

class RepeatedContentTable {
 public:
  // Two independent 64-bit digests of `n` bytes, taken 8 at a time.
  struct Digest {
    uint64_t a, b;
  };
  static Digest Hash(const void* data, size_t n, uint64_t seed) {
    const auto* p = static_cast<const uint8_t*>(data);
    uint64_t a = seed ^ (n * 0x9e3779b97f4a7c15ULL), b = ~a;
    for (; n >= 8; n -= 8, p += 8) {
      uint64_t w;
      memcpy(&w, p, 8);
      a = Fmix64(a ^ w);
      b = RotMul64(b, w);
    }
    if (n) {
      uint64_t w = 0;
      memcpy(&w, p, n);
      w ^= uint64_t{n} << 56;
      a = Fmix64(a ^ w);
      b = RotMul64(b, w);
    }
    return {Fmix64(a), Fmix64(b)};
  }

  bool enabled() const { return enabled_; }

  // (mask_ is 0 while there is no table.)
  void Prefetch(const Digest& d) const {
    if (mask_) __builtin_prefetch(&slots_[d.a & mask_]);
  }

  // The set first stored with this content digest, or nothing after storing
  // `set` as the first with it. Like ArgsTable's sharing, contents are told
  // apart by 96 bits of two independent digests (a false match needs both to
  // collide): comparing the bytes themselves would cost a cache miss into the
  // trace for every repeat.
  std::optional<uint32_t> FindOrInsert(const Digest& d, uint32_t set) {
    if (!enabled_) return std::nullopt;
    if (slots_.empty()) Resize(1 << 16);
    if (++lookups_ == kSample && repeats_ * 4 < kSample) {
      // Few repeats in a fair sample: the table would cost more (memory
      // and a probe per set) than the rows it saves.
      enabled_ = false;
      ColumnVector<Slot>().swap(slots_);
      mask_ = 0;
      return std::nullopt;
    }
    const uint32_t b = static_cast<uint32_t>(d.b >> 32);
    for (size_t i = d.a & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.set_plus_one == 0) {
        s = {d.a, b, set + 1};
        if (++stored_ * 2 > slots_.size()) Resize(slots_.size() * 2);
        return std::nullopt;
      }
      if (s.a == d.a && s.b == b) {
        ++repeats_;
        return s.set_plus_one - 1;
      }
    }
  }

 private:
  static constexpr uint64_t kSample = 1 << 16;
  struct Slot {
    uint64_t a = 0;
    uint32_t b = 0;
    uint32_t set_plus_one = 0;  // 0: empty
  };
  void Resize(size_t n) {
    ColumnVector<Slot> old;
    old.swap(slots_);
    slots_.assign(n, Slot{});
    mask_ = n - 1;
    for (const Slot& s : old) {
      if (s.set_plus_one == 0) continue;
      size_t i = s.a & mask_;
      while (slots_[i].set_plus_one != 0) i = (i + 1) & mask_;
      slots_[i] = s;
    }
  }

  ColumnVector<Slot> slots_;
  size_t mask_ = 0;
  uint64_t stored_ = 0, lookups_ = 0, repeats_ = 0;
  bool enabled_ = true;
};

}  // namespace fathom
