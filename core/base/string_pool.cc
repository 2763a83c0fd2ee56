#include "core/base/string_pool.h"

#include <cstring>

namespace fathom {
namespace {
constexpr size_t kBlockSize = 1 << 20;
}

StringPool::StringPool() {
  views_.emplace_back();  // id 0 = NULL
  slots_.assign(4096, Slot{0, kNullStringId});
  mask_ = slots_.size() - 1;
}

uint64_t StringPool::HashOf(std::string_view s) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = n * kMul;
  auto mix = [](uint64_t a, uint64_t b) {
    __uint128_t r =
        static_cast<__uint128_t>(a ^ 0xA0761D6478BD642Full) * (b ^ 0xE7037ED1A0B428DBull);
    return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
  };
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = mix(h, w);
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = mix(h, w ^ (static_cast<uint64_t>(n) << 56));
  }
  return mix(h, kMul);
}

void StringPool::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.size() * 2, Slot{0, kNullStringId});
  mask_ = slots_.size() - 1;
  for (const Slot& o : old) {
    if (o.id == kNullStringId) continue;
    size_t i = HashOf(views_[o.id]) & mask_;
    while (slots_[i].id != kNullStringId) i = (i + 1) & mask_;
    slots_[i] = o;
  }
}

std::string_view StringPool::Store(std::string_view s) {
  if (s.empty()) return std::string_view("", 0);
  if (s.size() > kBlockSize / 4) {
    // Large strings get their own allocation so they do not waste a shared block.
    big_strings_.emplace_back(new char[s.size()]);
    memcpy(big_strings_.back().get(), s.data(), s.size());
    bytes_used_ += s.size();
    return std::string_view(big_strings_.back().get(), s.size());
  }
  if (block_size_ == 0 || block_used_ + s.size() > block_size_) {
    blocks_.emplace_back(new char[kBlockSize]);
    block_size_ = kBlockSize;
    block_used_ = 0;
  }
  char* dst = blocks_.back().get() + block_used_;
  memcpy(dst, s.data(), s.size());
  block_used_ += s.size();
  bytes_used_ += s.size();
  return std::string_view(dst, s.size());
}

StringId StringPool::Intern(std::string_view s) {
  uint64_t h = HashOf(s);
  uint32_t tag = static_cast<uint32_t>(h >> 32);
  size_t i = h & mask_;
  for (;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.id == kNullStringId) break;
    if (slot.hash == tag && views_[slot.id] == s) return slot.id;
  }
  std::string_view stored = Store(s);
  StringId id = static_cast<StringId>(views_.size());
  views_.push_back(stored);
  slots_[i] = Slot{tag, id};
  // Keep the load factor under 1/2 so probes stay short.
  if (views_.size() * 2 > slots_.size()) Grow();
  return id;
}

StringId StringPool::Find(std::string_view s) const {
  uint64_t h = HashOf(s);
  uint32_t tag = static_cast<uint32_t>(h >> 32);
  for (size_t i = h & mask_;; i = (i + 1) & mask_) {
    const Slot& slot = slots_[i];
    if (slot.id == kNullStringId) return kNullStringId;
    if (slot.hash == tag && views_[slot.id] == s) return slot.id;
  }
}

}  // namespace fathom
