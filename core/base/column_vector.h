// ColumnVector<T>: the growable array behind table columns and the import's other big,
// long-lived arrays. A std::vector that grows by reallocation instead of copying: a
// load appends ~100 bytes per event into arrays that reach hundreds of MB, and a
// std::vector moves every element into fresh memory each time it doubles. That fresh
// memory is the expensive part (page faults, zeroing, and the old block unmapped), and
// old and new blocks briefly coexist, which set the peak memory of a load. Blocks from
// 16 MiB up come from platform::AllocateLarge and grow with platform::ReallocateLarge,
// which on Linux moves the page mappings (mremap) without copying or touching a byte;
// smaller ones use malloc/realloc.
//
// Only for element types that may be relocated with memcpy (no destructors, trivial
// copies): ints, doubles and plain structs of them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

#include "core/base/async_prefault.h"
#include "base/platform.h"

namespace fathom {

template <typename T>
class ColumnVector {
  static_assert(std::is_trivially_copyable_v<T>,
                "ColumnVector relocates elements with memcpy/realloc");

 public:
  using value_type = T;
  using size_type = size_t;
  using iterator = T*;
  using const_iterator = const T*;
  using reference = T&;
  using const_reference = const T&;
  // From this block size up, memory comes from platform::AllocateLarge.
  static constexpr size_t kLargeBytes = platform::kLargeBlockBytes;
  static constexpr size_t kPrefaultBytes = size_t{1} << 20;

  ColumnVector() = default;
  ColumnVector(size_t n, const T& v) { assign(n, v); }
  ColumnVector(const ColumnVector& o) { CopyFrom(o); }
  ColumnVector(ColumnVector&& o) noexcept { swap(o); }
  ColumnVector& operator=(const ColumnVector& o) {
    if (this != &o) {
      clear();
      CopyFrom(o);
    }
    return *this;
  }
  ColumnVector& operator=(ColumnVector&& o) noexcept {
    ColumnVector(std::move(o)).swap(*this);
    return *this;
  }
  ~ColumnVector() { Release(data_, mapped_); }

  size_t size() const { return size_; }
  size_t capacity() const { return capacity_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  void push_back(const T& v) {
    if (__builtin_expect(size_ == capacity_, false)) {
      T copy = v;  // v may live in the block that growing moves
      Grow(size_ + 1);
      new (data_ + size_++) T(copy);
      return;
    }
    new (data_ + size_++) T(v);
  }
  void clear() { size_ = 0; }

  void reserve(size_t n) {
    if (n > mapped_) SetCapacity(n);
  }
  void resize(size_t n) { resize(n, T{}); }
  void resize(size_t n, const T& v) {
    if (n > capacity_) Grow(n);
    for (size_t i = size_; i < n; i++) new (data_ + i) T(v);
    size_ = n;
  }
  void assign(size_t n, const T& v) {
    clear();
    resize(n, v);
  }
  void shrink_to_fit() {
    if (mapped_ > size_) SetCapacity(size_);
  }
  void swap(ColumnVector& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
    std::swap(mapped_, o.mapped_);
    std::swap(ahead_, o.ahead_);
    std::swap(ticket_, o.ticket_);
  }

 private:
  // Doubles, as std::vector does: amortised O(1) appends. Growing a large block costs
  // no copy here, so doubling wastes only address space, never memory that is touched.
  void Grow(size_t at_least) {
    if (mapped_ > capacity_ && at_least <= mapped_) {
      Prefault(at_least);
      return;
    }
    size_t n = mapped_ ? mapped_ * 2 : 16;
    if (n < at_least) n = at_least;
    SetCapacity(n);
    if (mapped_ * sizeof(T) >= kLargeBytes) Prefault(at_least);
  }

  // A large block is mapped ahead of use (mapped_) but made usable (capacity_) a step at
  // a time, each step's pages faulted in with one call (platform::PrefaultLarge) instead
  // of one trap per page as appends first write them. The step after the one being made
  // usable is handed to the prefault thread (async_prefault.h), so a writer that keeps
  // appending finds its pages already there: faulting is ~40 % of a table writer's time.
  void Prefault(size_t at_least) {
    size_t step = kPrefaultBytes / sizeof(T);
    size_t n = capacity_ + step > at_least ? capacity_ + step : at_least;
    if (n > mapped_) n = mapped_;
    // What the prefault thread was asked for and has not done yet, this thread does: on
    // busy cores it would otherwise take one page fault per page.
    size_t from = ahead_ > capacity_ && platform::AsyncPrefaultDone(ticket_) ? ahead_ : capacity_;
    if (from > n) from = n;
    if (from < n) platform::PrefaultLarge(data_ + from, (n - from) * sizeof(T));
    capacity_ = n;
    if (ahead_ < n) ahead_ = n;
    size_t next = ahead_ + step < mapped_ ? ahead_ + step : mapped_;
    if (next > ahead_ && platform::AsyncPrefaultForThisThread()) {
      ticket_ = platform::PrefaultLargeAsync(data_ + ahead_, (next - ahead_) * sizeof(T));
      ahead_ = next;
    }
  }

  void SetCapacity(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();  // as std::vector's allocator
    size_t old_bytes = mapped_ * sizeof(T), new_bytes = n * sizeof(T);
    void* p = nullptr;
    if (new_bytes == 0) {
      Release(data_, mapped_);
    } else if (old_bytes == 0) {
      p = new_bytes >= kLargeBytes ? platform::AllocateLarge(new_bytes) : std::malloc(new_bytes);
    } else if (old_bytes >= kLargeBytes && new_bytes >= kLargeBytes) {
      p = platform::ReallocateLarge(data_, old_bytes, new_bytes);
    } else if (old_bytes < kLargeBytes && new_bytes < kLargeBytes) {
      p = std::realloc(data_, new_bytes);
    } else {  // across the boundary: a new kind of block
      p = new_bytes >= kLargeBytes ? platform::AllocateLarge(new_bytes) : std::malloc(new_bytes);
      if (p) {
        std::memcpy(p, data_, (size_ < n ? size_ : n) * sizeof(T));
        Release(data_, mapped_);
        ahead_ = 0;  // fresh pages: nothing of the new block was asked for
      }
    }
    if (new_bytes && !p) throw std::bad_alloc();  // the old block is still ours and intact
    data_ = static_cast<T*>(p);
    // Small blocks are usable at once; a large one keeps what was usable (Prefault).
    capacity_ = new_bytes >= kLargeBytes && capacity_ < n ? capacity_ : n;
    mapped_ = n;
    if (ahead_ > n) ahead_ = n;
    if (size_ > n) size_ = n;
  }

  static void Release(T* p, size_t mapped) {
    if (!p) return;
    size_t bytes = mapped * sizeof(T);
    if (bytes >= kLargeBytes) {
      platform::FreeLarge(p, bytes);
    } else {
      std::free(p);
    }
  }

  void CopyFrom(const ColumnVector& o) {
    reserve(o.size_);
    if (capacity_ < o.size_) capacity_ = o.size_;  // written below: usable now
    if (o.size_) std::memcpy(static_cast<void*>(data_), o.data_, o.size_ * sizeof(T));
    size_ = o.size_;
  }

  T* data_ = nullptr;
  size_t size_ = 0;
  size_t capacity_ = 0;  // elements usable without calling Grow
  size_t mapped_ = 0;    // elements the block holds
  // Elements whose pages were asked for (Prefault): the ones past capacity_ are the
  // prefault thread's. Page mappings move with the block (mremap), so this survives
  // growing; a fresh block starts over.
  size_t ahead_ = 0;
  uint64_t ticket_ = 0;  // the prefault thread's request for [.., ahead_)
};

}  // namespace fathom
