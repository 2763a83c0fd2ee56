// A std::allocator that takes big blocks (>= 4 MiB) from platform::AllocateLarge, which
// backs them with transparent huge pages on Linux, and small ones from operator new.
// For arrays that grow to hundreds of MB during an import and stay for the session:
// table columns (ColumnVector). Stateless: all instances are equal.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

#include "core/base/platform.h"

namespace fathom {

template <typename T>
struct LargeBlockAllocator {
  using value_type = T;
  static constexpr size_t kLargeBytes = size_t{16} << 20;

  LargeBlockAllocator() = default;
  template <typename U>
  LargeBlockAllocator(const LargeBlockAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    size_t bytes = n * sizeof(T);  // std::vector keeps n <= max_size(): no overflow
    if (bytes < kLargeBytes) return std::allocator<T>().allocate(n);
    void* p = platform::AllocateLarge(bytes);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    size_t bytes = n * sizeof(T);
    if (bytes < kLargeBytes) {
      std::allocator<T>().deallocate(p, n);
    } else {
      platform::FreeLarge(p, bytes);
    }
  }

  friend bool operator==(const LargeBlockAllocator&, const LargeBlockAllocator&) { return true; }
  friend bool operator!=(const LargeBlockAllocator&, const LargeBlockAllocator&) { return false; }
};

template <typename T>
using ColumnVector = std::vector<T, LargeBlockAllocator<T>>;

}  // namespace fathom
