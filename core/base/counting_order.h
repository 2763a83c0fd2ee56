// Orders positions by (key, position) in linear time when the keys take few
// distinct values: a counting sort. Columns such as a thread's state, a CPU
// or a utid hold a handful to a few thousand values over a million rows,
// where sorting every (key, row) pair costs n log n comparisons.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace fathom {

// Writes positions 0..n-1 to `order`, by ascending key and, within a key, by
// position (as a stable sort of (key, position) gives them); `key_at(i)` is
// position i's int64 key. When `starts` is given it receives the index in
// `order` where each distinct key begins, ascending, then n. When `rank` is
// given, (*rank)[i] is where position i went in `order`: a caller moving
// per-position values into key order writes them there while reading them in
// position order (a few write streams, one per key), where reading them
// through `order` jumps across memory at every step. Returns false, writing
// nothing, when the keys take more than `limit` distinct values.
template <typename KeyAt>
bool CountingOrder(size_t n, KeyAt key_at, size_t limit, std::vector<uint32_t>* order,
                   std::vector<size_t>* starts = nullptr, std::vector<uint32_t>* rank = nullptr) {
  // Open addressing from key to its number in order of first appearance.
  size_t capacity = 16;
  std::vector<int64_t> slot_key(capacity);
  std::vector<uint32_t> slot_id(capacity, UINT32_MAX);
  std::vector<int64_t> distinct;
  std::vector<uint32_t> ids(n);
  auto slot_of = [&](int64_t k) {
    const unsigned shift = 64 - static_cast<unsigned>(std::countr_zero(capacity));
    size_t h = static_cast<size_t>((static_cast<uint64_t>(k) * 0x9E3779B97F4A7C15ull) >> shift);
    while (slot_id[h] != UINT32_MAX && slot_key[h] != k) h = (h + 1) & (capacity - 1);
    return h;
  };
  for (size_t i = 0; i < n; ++i) {
    const int64_t k = key_at(i);
    size_t h = slot_of(k);
    if (slot_id[h] == UINT32_MAX) {
      if (distinct.size() == limit) return false;
      if (2 * (distinct.size() + 1) > capacity) {  // grow, then place again
        capacity *= 2;
        slot_key.assign(capacity, 0);
        slot_id.assign(capacity, UINT32_MAX);
        for (uint32_t d = 0; d < distinct.size(); ++d) {
          size_t s = slot_of(distinct[d]);
          slot_key[s] = distinct[d];
          slot_id[s] = d;
        }
        h = slot_of(k);
      }
      slot_key[h] = k;
      slot_id[h] = static_cast<uint32_t>(distinct.size());
      distinct.push_back(k);
    }
    ids[i] = slot_id[h];
  }
  std::vector<uint32_t> by_key(distinct.size());
  for (uint32_t d = 0; d < by_key.size(); ++d) by_key[d] = d;
  std::sort(by_key.begin(), by_key.end(),
            [&](uint32_t a, uint32_t b) { return distinct[a] < distinct[b]; });
  std::vector<size_t> next(distinct.size(), 0);
  for (uint32_t id : ids) ++next[id];
  size_t offset = 0;
  if (starts) starts->clear();
  for (uint32_t d : by_key) {
    if (starts) starts->push_back(offset);
    offset += std::exchange(next[d], offset);
  }
  if (starts) starts->push_back(n);
  order->resize(n);
  if (rank) rank->resize(n);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t at = static_cast<uint32_t>(next[ids[i]]++);
    (*order)[at] = static_cast<uint32_t>(i);
    if (rank) (*rank)[i] = at;
  }
  return true;
}

}  // namespace fathom
