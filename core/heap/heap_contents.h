// Object contents the heap explorer's duplicates and Activity leak filter
// need, which no heap_graph_* table holds: a hash of each primitive array's
// bytes, and which Activities have mDestroyed or mFinished set. For an HPROF
// file they are read back from the file on demand
// (core/import/hprof/hprof_contents.h); Perfetto heap graphs carry none, and
// callers pass null.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace fathom::heap {

struct HeapContents {
  std::vector<uint32_t> hashed_rows;             // heap_graph_object rows, ascending
  std::vector<uint64_t> hashes;                  // never 0
  std::vector<uint32_t> finished_activity_rows;  // ascending
  // The content hash of a row, or 0.
  uint64_t HashOf(uint32_t row) const {
    auto it = std::lower_bound(hashed_rows.begin(), hashed_rows.end(), row);
    return it != hashed_rows.end() && *it == row ? hashes[size_t(it - hashed_rows.begin())] : 0;
  }
};

}  // namespace fathom::heap
