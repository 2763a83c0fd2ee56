// The client's exact set of sampled blocks whose pointer is page-aligned (client.cc tells
// every other sampled block by the tag just below its pointer, but does not read below a
// page-aligned pointer: the page before may not be mapped). Two parts:
//  - a 64 KiB bitmap a free of a page-aligned pointer reads without a lock
//    (MaybeContains): a clear bit means "certainly not in the set". One bit stands for a
//    granule of 2^shift bytes (a page for the client);
//  - an open-addressing table of the addresses (linear probing, backward-shift deletion:
//    no tombstones, so probe runs stay as short as the load factor says however long the
//    program runs), sized to the members. A key's home is the hash of its bitmap slot, so
//    all keys sharing a bit sit in the run of occupied slots from that home: Erase tells
//    by scanning that short run whether the bit must stay set, with no per-bit counters.
// Insert, Erase and Contains need the caller's lock (one writer at a time); memory comes
// from mmap (this runs inside malloc). Trivially constructible, so a global instance
// lives in .bss; start from zero (static storage or `new SampledSet()`), then Init().
#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <cstring>

namespace fathom::heapprof {

class SampledSet {
 public:
  static constexpr uint32_t kFilterBits = 19;
  static constexpr uint32_t kMinShift = 4;  // malloc's alignment: the finest useful granule
  static constexpr uint32_t kTableInitialBits = 12, kTableMaxBits = 26;

  // Empties the set and maps the initial table; false when out of memory (the set is
  // then unusable: ready() is false).
  bool Init() {
    Release();
    memset(bits_, 0, sizeof bits_);
    shift_ = kMinShift;
    table_ = Map(uint64_t{1} << kTableInitialBits);
    mask_ = table_ ? (uint64_t{1} << kTableInitialBits) - 1 : 0;
    used_ = 0;
    return table_ != nullptr;
  }
  void Release() {
    if (table_) munmap(table_, (mask_ + 1) * sizeof(uint64_t));
    table_ = nullptr;
    mask_ = used_ = 0;
  }
  bool ready() const { return table_ != nullptr; }
  uint64_t size() const { return used_; }

  // Only while the set is empty: keys are filed by the shift.
  bool SetShift(uint32_t shift) {
    if (used_ != 0) return false;
    shift_ = shift;
    return true;
  }

  // Lock-free; false only if `p` is certainly not in the set.
  bool MaybeContains(uintptr_t p) const {
    uint32_t slot = Slot(p);
    return (__atomic_load_n(&bits_[slot / 64], __ATOMIC_RELAXED) >> (slot % 64)) & 1;
  }

  bool Contains(uint64_t key) const {
    if (!table_ || key == kEmpty) return false;
    for (uint64_t i = Home(key, mask_); table_[i] != kEmpty; i = (i + 1) & mask_)
      if (table_[i] == key) return true;
    return false;
  }

  // False when the table cannot grow (the caller drops the sample).
  bool Insert(uint64_t key) {
    if (!table_) return false;
    if (used_ + 1 > (mask_ + 1) / 2) {
      uint64_t slots = (mask_ + 1) * 2;
      uint64_t* bigger = slots <= (uint64_t{1} << kTableMaxBits) ? Map(slots) : nullptr;
      if (!bigger) return false;
      for (uint64_t i = 0; i <= mask_; i++)
        if (table_[i] != kEmpty) PutNew(bigger, slots - 1, table_[i]);
      munmap(table_, (mask_ + 1) * sizeof(uint64_t));
      table_ = bigger;
      mask_ = slots - 1;
    }
    PutNew(table_, mask_, key);
    used_++;
    uint32_t slot = Slot(key);
    uint64_t bit = uint64_t{1} << (slot % 64);
    // Read first: a write to a line other threads only read would cost them a miss.
    // Writers hold the lock, so a plain store suffices (a locked RMW costs tens of cycles
    // per sample); lock-free readers see the old or the new word, never a torn one.
    uint64_t word = __atomic_load_n(&bits_[slot / 64], __ATOMIC_RELAXED);
    if (!(word & bit)) __atomic_store_n(&bits_[slot / 64], word | bit, __ATOMIC_RELAXED);
    return true;
  }

  // Erases `key` if present; clears its bit when no other key shares it.
  bool Erase(uint64_t key) {
    if (!table_ || key == kEmpty) return false;  // free(NULL) may pass the filter
    uint32_t slot = Slot(key);
    uint64_t start = Hash(slot) & mask_;
    uint64_t i = start;
    for (; table_[i] != key; i = (i + 1) & mask_)
      if (table_[i] == kEmpty) return false;
    for (uint64_t j = i;;) {
      j = (j + 1) & mask_;
      if (table_[j] == kEmpty) break;
      uint64_t home = Home(table_[j], mask_);
      // The entry at j may move back to the hole at i unless its home lies in (i, j].
      bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (stays) continue;
      table_[i] = table_[j];
      i = j;
    }
    table_[i] = kEmpty;
    used_--;
    bool shared = false;
    for (uint64_t j = start; table_[j] != kEmpty && !shared; j = (j + 1) & mask_)
      shared = Slot(table_[j]) == slot;
    if (!shared) {  // a plain store, as in Insert
      uint64_t word = __atomic_load_n(&bits_[slot / 64], __ATOMIC_RELAXED);
      __atomic_store_n(&bits_[slot / 64], word & ~(uint64_t{1} << (slot % 64)), __ATOMIC_RELAXED);
    }
    return true;
  }

 private:
  static constexpr uint64_t kEmpty = 0;

  static uint64_t Hash(uint64_t p) {
    p ^= p >> 33;
    p *= 0xff51afd7ed558ccdULL;
    p ^= p >> 33;
    return p;
  }
  static uint64_t* Map(uint64_t slots) {
    void* t = mmap(nullptr, slots * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return t == MAP_FAILED ? nullptr : static_cast<uint64_t*>(t);
  }
  // The granule index, folded with the address bits above 64 MiB: glibc's per-thread
  // arenas are 64 MiB aligned, so without the fold every thread's heap would land on
  // the same bits.
  uint32_t Slot(uintptr_t p) const {
    return static_cast<uint32_t>((p >> shift_) ^ (p >> 26)) & ((1u << kFilterBits) - 1);
  }
  uint64_t Home(uint64_t key, uint64_t mask) const { return Hash(Slot(key)) & mask; }
  void PutNew(uint64_t* table, uint64_t mask, uint64_t key) const {
    uint64_t i = Home(key, mask);
    while (table[i] != kEmpty) i = (i + 1) & mask;
    table[i] = key;
  }

  uint64_t bits_[(1u << kFilterBits) / 64];
  // Read by every check (shift_), written almost never; used_ changes with every insert
  // and erase, so it has a line of its own.
  alignas(64) uint32_t shift_;
  uint64_t* table_;
  uint64_t mask_;
  alignas(64) uint64_t used_;
};

}  // namespace fathom::heapprof
