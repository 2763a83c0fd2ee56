#include "core/import/upstream_map_order.h"

#include <algorithm>
#include <optional>

#include "core/base/hash_mix.h"

namespace fathom {
namespace {

uint64_t HashOf(uint32_t key, UpstreamKey kind) {
  if (kind == UpstreamKey::kInteger) return Fmix64(key);
  // A track id: the mix of its value folded into a fixed seed.
  uint64_t h = 0xe17a1465U;
  h ^= Fmix64(key) + 0x9e3779b9 + (h << 6) + (h >> 2);
  return h;
}

class UpstreamFlatHashMap {
 public:
  explicit UpstreamFlatHashMap(UpstreamKey kind) : kind_(kind) {}
  void Insert(uint32_t key) {
    if (size_ >= capacity_ * 3 / 4) Grow();
    const uint64_t hash = HashOf(key, kind_);
    for (size_t step = 0;; ++step) {
      size_t idx = (hash + 2 * step * step + step) & (capacity_ - 1);
      if (!slots_[idx]) {
        slots_[idx] = key;
        ++size_;
        return;
      }
    }
  }
  std::vector<uint32_t> Keys() const {
    std::vector<uint32_t> out;
    for (const auto& s : slots_)
      if (s) out.push_back(*s);
    return out;
  }

 private:
  void Grow() {
    // The reference's slot holds the key and a per-track value of about 48
    // bytes; it grows by 8 while the table is under 1 MiB.
    constexpr size_t kSlotBytes = 4 + 48;
    size_t grown = capacity_ * kSlotBytes < (1u << 20) ? capacity_ * 8 : capacity_ * 2;
    std::vector<uint32_t> old = Keys();
    capacity_ = std::max<size_t>(grown, 1024);
    slots_.assign(capacity_, std::nullopt);
    size_ = 0;
    for (uint32_t k : old) Insert(k);
  }

  UpstreamKey kind_;
  size_t capacity_ = 0;
  size_t size_ = 0;
  std::vector<std::optional<uint32_t>> slots_;
};

}  // namespace

std::vector<uint32_t> UpstreamMapOrder(const std::vector<uint32_t>& keys, UpstreamKey kind) {
  UpstreamFlatHashMap t(kind);
  for (uint32_t k : keys) t.Insert(k);
  return t.Keys();
}

}  // namespace fathom
