// Equality lookups on the unsorted columns of the trace's tables. A join such
// as `slice JOIN thread_track ON slice.track_id = thread_track.id` makes
// SQLite ask the slice table once per track for `track_id = ?`; without an
// index each ask scans every slice (tracks x slices). An EqIndex is built
// the first time a column is asked for equality: the rows holding a value,
// ordered by (value, row), so a lookup is a binary search and the rows come
// back in table order, as a scan gives them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

class EqIndex {
 public:
  // Integer and (non-computed) string columns; others are scanned.
  static bool Supports(const ColumnBase* col);
  EqIndex(const ColumnBase* col, uint32_t rows);

  // Rows whose value is `key` (an integer, or a StringId for strings), in
  // increasing order, as [*begin, *end) into rows().
  void Find(int64_t key, size_t* begin, size_t* end) const;
  const std::vector<uint32_t>& rows() const { return rows_; }
  uint32_t row_count() const { return row_count_; }

 private:
  int64_t Key(uint32_t row) const;
  const ColumnBase* col_;
  uint32_t row_count_;
  std::vector<uint32_t> rows_;  // non-null rows, by (value, row)
};

// The indexes of one table, built on demand and rebuilt if the table grew.
class EqIndexCache {
 public:
  const EqIndex* Get(const ColumnBase* col, uint32_t rows);
  // Whether an integer column's first `rows` values, none NULL, never
  // decrease: then a scan in table order is also in that column's order and
  // `ORDER BY col` needs no sort. Columns declared sorted are so by
  // construction; others often are in fact (counter.ts, which the stdlib's
  // counter macros read `ORDER BY ts`), found by one pass, remembered.
  bool NonDecreasing(const ColumnBase* col, uint32_t rows);

 private:
  std::map<const ColumnBase*, std::unique_ptr<EqIndex>> indexes_;
  std::map<const ColumnBase*, std::pair<uint32_t, bool>> non_decreasing_;  // rows, answer
};

}  // namespace fathom
