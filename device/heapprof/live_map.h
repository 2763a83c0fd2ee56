// The collector's map from a live sampled address to what it stands for. At the default
// interval every sampled allocation inserts and nearly every one is erased again (millions
// per second on an allocation-bound program), so this is one flat array with linear
// probing and backward-shift deletion: no node allocation per sample (what
// std::unordered_map costs the collector: a malloc and a free per sample, on the cores the
// profiled program needs), no tombstones, one cache line per lookup at load <= 1/2.
#pragma once

#include <cstdint>
#include <vector>

namespace fathom::heapprof {

template <typename V>
class LiveMap {
 public:
  LiveMap() : slots_(kInitialSlots) {}

  // The value of `key`, inserted (value-initialised) when absent; *added tells which.
  // Key 0 is reserved (the caller never passes it: malloc never returns a sampled null).
  V& Upsert(uint64_t key, bool* added) {
    if ((used_ + 1) * 2 > slots_.size()) Grow();
    uint64_t mask = slots_.size() - 1;
    for (uint64_t i = Hash(key) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.key == key) {
        *added = false;
        return s.value;
      }
      if (s.key == 0) {
        s.key = key;
        s.value = V{};
        used_++;
        *added = true;
        return s.value;
      }
    }
  }

  // Moves the value of `key` to *out and erases it; false when absent.
  bool Take(uint64_t key, V* out) {
    if (key == 0) return false;
    uint64_t mask = slots_.size() - 1;
    uint64_t i = Hash(key) & mask;
    for (; slots_[i].key != key; i = (i + 1) & mask)
      if (slots_[i].key == 0) return false;
    *out = slots_[i].value;
    // Backward shift: pull later entries of the run into the hole unless their home lies
    // cyclically in (hole, j].
    for (uint64_t j = i;;) {
      j = (j + 1) & mask;
      if (slots_[j].key == 0) break;
      uint64_t home = Hash(slots_[j].key) & mask;
      bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (stays) continue;
      slots_[i] = slots_[j];
      i = j;
    }
    slots_[i].key = 0;
    used_--;
    return true;
  }

  uint64_t size() const { return used_; }

 private:
  static constexpr uint64_t kInitialSlots = 1024;
  struct Slot {
    uint64_t key = 0;
    V value{};
  };

  static uint64_t Hash(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
  }

  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    uint64_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.key == 0) continue;
      uint64_t i = Hash(s.key) & mask;
      while (slots_[i].key != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  uint64_t used_ = 0;
};

}  // namespace fathom::heapprof
