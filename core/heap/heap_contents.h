// Object contents the heap explorer's duplicates, bitmaps and Activity leak
// filter need, which no heap_graph_* table holds: a hash of each primitive
// array's bytes and where those bytes are, which Activities have mDestroyed
// or mFinished set, which Strings are UTF-16, and each Bitmap's size. For an
// HPROF file they are read back from the file on demand
// (core/import/hprof/hprof_contents.h), and array bytes are read again only
// for what is shown (a string's text, a bitmap's pixels); Perfetto heap
// graphs carry none, and callers pass null.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "base/status.h"

namespace fathom::heap {

struct BitmapFields {
  uint32_t row;  // heap_graph_object row
  int32_t width = 0, height = 0;
  int64_t native_ptr = 0;  // ART's mNativePtr; 0 when absent
};

struct HeapContents {
  std::vector<uint32_t> hashed_rows;             // heap_graph_object rows, ascending
  std::vector<uint64_t> hashes;                  // never 0
  std::vector<uint64_t> data_offsets;            // where each array's bytes start
  std::vector<uint32_t> finished_activity_rows;  // ascending
  std::vector<uint32_t> utf16_string_rows;       // ascending
  std::vector<BitmapFields> bitmaps;             // by row, ascending
  // Reads `size` bytes at `offset` of the dump's file; null when the
  // contents did not come from a file.
  std::function<Result<std::vector<uint8_t>>(uint64_t offset, uint64_t size)> read_bytes;

  // The content hash of a row, or 0.
  uint64_t HashOf(uint32_t row) const {
    size_t k = IndexOf(row);
    return k == kNone ? 0 : hashes[k];
  }
  // The index into hashed_rows / hashes / data_offsets of a row, or kNone.
  static constexpr size_t kNone = ~size_t{0};
  size_t IndexOf(uint32_t row) const {
    auto it = std::lower_bound(hashed_rows.begin(), hashed_rows.end(), row);
    return it != hashed_rows.end() && *it == row ? size_t(it - hashed_rows.begin()) : kNone;
  }
  bool IsUtf16String(uint32_t row) const {
    return std::binary_search(utf16_string_rows.begin(), utf16_string_rows.end(), row);
  }
  const BitmapFields* BitmapOf(uint32_t row) const {
    auto it = std::lower_bound(bitmaps.begin(), bitmaps.end(), row,
                               [](const BitmapFields& b, uint32_t r) { return b.row < r; });
    return it != bitmaps.end() && it->row == row ? &*it : nullptr;
  }
};

}  // namespace fathom::heap
