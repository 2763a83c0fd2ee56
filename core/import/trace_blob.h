// Owned byte buffers that the import keeps alive until every event pointing
// into them has been parsed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>

#include "base/platform.h"

namespace fathom {

// A TraceBlob's `data` may start inside its allocation (a blob made with
// headroom and then prepended to); this frees the whole allocation.
struct TraceBlobDeleter {
  uint8_t* allocation = nullptr;
  size_t large_bytes = 0;  // of a platform::AllocateLarge block; 0: new[]
  void operator()(uint8_t* p) const {
    uint8_t* a = allocation ? allocation : p;
    if (large_bytes) {
      platform::FreeLarge(a, large_bytes);
    } else {
      delete[] a;
    }
  }
};

struct TraceBlob {
  std::unique_ptr<uint8_t[], TraceBlobDeleter> data;
  size_t size = 0;
  size_t headroom = 0;  // free bytes before `data` that Prepend may fill

  // The size from which blocks get huge pages, as for columns.
  static constexpr size_t kLargeBytes = platform::kLargeBlockBytes;

  static std::unique_ptr<TraceBlob> Allocate(size_t n) { return AllocateWithHeadroom(0, n); }

  // `headroom` bytes in front of the payload that the loader fills with the
  // unfinished packet of the previous chunk, so a chunk read ahead on another
  // thread need not be copied behind it. Untouched headroom costs address
  // space, not memory. Chunks of several MiB (every read-ahead chunk) come from
  // platform::AllocateLarge: huge pages, one page fault per 2 MiB read into them,
  // except in the headroom, where a few KiB written must not cost 2 MiB.
  static std::unique_ptr<TraceBlob> AllocateWithHeadroom(size_t headroom, size_t n) {
    auto b = std::make_unique<TraceBlob>();
    size_t total = headroom + n ? headroom + n : 1;
    size_t large = total >= kLargeBytes ? total : 0;
    uint8_t* all = large ? static_cast<uint8_t*>(platform::AllocateLarge(total, headroom))
                         : new uint8_t[total];
    if (!all) throw std::bad_alloc();  // as new[] does
    b->data =
        std::unique_ptr<uint8_t[], TraceBlobDeleter>(all + headroom, TraceBlobDeleter{all, large});
    b->size = n;
    b->headroom = headroom;
    return b;
  }

  // Puts `len` bytes in front of the payload; false when they do not fit.
  bool Prepend(const uint8_t* bytes, size_t len) {
    if (len > headroom) return false;
    uint8_t* p = data.release() - len;
    memcpy(p, bytes, len);
    data.reset(p);
    size += len;
    headroom -= len;
    return true;
  }
};

}  // namespace fathom
