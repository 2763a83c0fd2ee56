#include "core/import/byte_origins.h"

namespace fathom {

void ByteOrigins::Add(const uint8_t* base, size_t size, const std::string& source, uint64_t offset,
                      bool inflated) {
  if (!base || size == 0) return;
  const auto begin = reinterpret_cast<uintptr_t>(base);
  const uintptr_t end = begin + size;
  // Drop every earlier range that overlaps [begin, end).
  auto it = ranges_.lower_bound(begin);
  if (it != ranges_.begin()) {
    auto prev = std::prev(it);
    if (prev->first + prev->second.size > begin) it = prev;
  }
  while (it != ranges_.end() && it->first < end) it = ranges_.erase(it);
  if (sources_.empty() || sources_.back() != source) sources_.push_back(source);
  ranges_[begin] = Range{size, static_cast<uint32_t>(sources_.size() - 1), offset, inflated};
}

std::optional<ByteOrigins::Origin> ByteOrigins::Locate(const uint8_t* p) const {
  const auto at = reinterpret_cast<uintptr_t>(p);
  auto it = ranges_.upper_bound(at);
  if (it == ranges_.begin()) return std::nullopt;
  --it;
  const Range& r = it->second;
  if (at >= it->first + r.size) return std::nullopt;
  Origin o;
  o.source = sources_[r.source];
  o.inflated = r.inflated;
  o.offset = r.inflated ? r.offset : r.offset + (at - it->first);
  return o;
}

}  // namespace fathom
