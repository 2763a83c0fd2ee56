// Owned byte buffers that the import keeps alive until every event pointing
// into them has been parsed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace fathom {

struct TraceBlob {
  std::unique_ptr<uint8_t[]> data;
  size_t size = 0;

  static std::unique_ptr<TraceBlob> Allocate(size_t n) {
    auto b = std::make_unique<TraceBlob>();
    b->data.reset(new uint8_t[n ? n : 1]);
    b->size = n;
    return b;
  }
};

}  // namespace fathom
