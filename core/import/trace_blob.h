// Owned byte buffers that the import keeps alive until every event pointing
// into them has been parsed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

namespace fathom {

// A TraceBlob's `data` may start inside its allocation (a blob made with
// headroom and then prepended to); this frees the whole allocation.
struct TraceBlobDeleter {
  uint8_t* allocation = nullptr;
  void operator()(uint8_t* p) const { delete[](allocation ? allocation : p); }
};

struct TraceBlob {
  std::unique_ptr<uint8_t[], TraceBlobDeleter> data;
  size_t size = 0;
  size_t headroom = 0;  // free bytes before `data` that Prepend may fill

  static std::unique_ptr<TraceBlob> Allocate(size_t n) { return AllocateWithHeadroom(0, n); }

  // `headroom` bytes in front of the payload that the loader fills with the
  // unfinished packet of the previous chunk, so a chunk read ahead on another
  // thread need not be copied behind it. Untouched headroom costs address
  // space, not memory.
  static std::unique_ptr<TraceBlob> AllocateWithHeadroom(size_t headroom, size_t n) {
    auto b = std::make_unique<TraceBlob>();
    uint8_t* all = new uint8_t[headroom + n ? headroom + n : 1];
    b->data = std::unique_ptr<uint8_t[], TraceBlobDeleter>(all + headroom, TraceBlobDeleter{all});
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
