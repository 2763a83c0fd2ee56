#include "core/sql/table_eq_index.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace fathom {

bool EqIndex::Supports(const ColumnBase* col) {
  if (col->is_id() || col->sorted()) return false;  // those are binary searched already
  if (col->type() == SqlType::kInt) return true;
  return col->type() == SqlType::kString && !col->HasComputedText();
}

int64_t EqIndex::Key(uint32_t row) const {
  return col_->type() == SqlType::kString ? static_cast<int64_t>(col_->GetStringId(row))
                                          : col_->GetInt(row);
}

namespace {

// Orders `keyed` (in row order) by (value, row) into `rows` with a counting
// sort, when it holds at most `limit` distinct values; false otherwise.
// Filters such as `state = 'R'` or `cpu = 3` index columns of a handful of
// values over a million rows, where sorting all pairs cost 0.1 s a column.
bool CountingOrder(const std::vector<std::pair<int64_t, uint32_t>>& keyed, size_t limit,
                   std::vector<uint32_t>* rows) {
  size_t capacity = 16;
  while (capacity < 2 * limit) capacity *= 2;
  const unsigned shift = 64 - static_cast<unsigned>(std::countr_zero(capacity));
  std::vector<int64_t> slot_key(capacity);
  std::vector<uint32_t> slot_id(capacity, UINT32_MAX);
  std::vector<int64_t> distinct;
  std::vector<uint32_t> ids(keyed.size());
  for (size_t i = 0; i < keyed.size(); ++i) {
    const int64_t k = keyed[i].first;
    size_t h = static_cast<size_t>((static_cast<uint64_t>(k) * 0x9E3779B97F4A7C15ull) >> shift);
    while (slot_id[h] != UINT32_MAX && slot_key[h] != k) h = (h + 1) & (capacity - 1);
    if (slot_id[h] == UINT32_MAX) {
      if (distinct.size() == limit) return false;
      slot_key[h] = k;
      slot_id[h] = static_cast<uint32_t>(distinct.size());
      distinct.push_back(k);
    }
    ids[i] = slot_id[h];
  }
  // Each value's first position: values in ascending order, rows in the
  // order seen (ascending), as the sort of (value, row) gives them.
  std::vector<uint32_t> by_value(distinct.size());
  for (uint32_t v = 0; v < by_value.size(); ++v) by_value[v] = v;
  std::sort(by_value.begin(), by_value.end(),
            [&](uint32_t a, uint32_t b) { return distinct[a] < distinct[b]; });
  std::vector<size_t> next(distinct.size(), 0);
  for (uint32_t id : ids) ++next[id];
  size_t offset = 0;
  for (uint32_t v : by_value) offset += std::exchange(next[v], offset);
  rows->resize(keyed.size());
  for (size_t i = 0; i < keyed.size(); ++i) (*rows)[next[ids[i]]++] = keyed[i].second;
  return true;
}

}  // namespace

EqIndex::EqIndex(const ColumnBase* col, uint32_t rows) : col_(col), row_count_(rows) {
  std::vector<std::pair<int64_t, uint32_t>> keyed;
  keyed.reserve(rows);
  for (uint32_t r = 0; r < rows; ++r)
    if (!col->IsNull(r)) keyed.emplace_back(Key(r), r);
  // Few distinct values (at most a quarter of the rows, and 65536): counted.
  if (CountingOrder(keyed, std::min<size_t>(keyed.size() / 4, 65536), &rows_)) return;
  std::sort(keyed.begin(), keyed.end());
  rows_.clear();
  rows_.reserve(keyed.size());
  for (const auto& k : keyed) rows_.push_back(k.second);
}

void EqIndex::Find(int64_t key, size_t* begin, size_t* end) const {
  auto lo =
      std::partition_point(rows_.begin(), rows_.end(), [&](uint32_t r) { return Key(r) < key; });
  auto hi = std::partition_point(lo, rows_.end(), [&](uint32_t r) { return Key(r) <= key; });
  *begin = static_cast<size_t>(lo - rows_.begin());
  *end = static_cast<size_t>(hi - rows_.begin());
}

const EqIndex* EqIndexCache::Get(const ColumnBase* col, uint32_t rows) {
  std::unique_ptr<EqIndex>& slot = indexes_[col];
  if (!slot || slot->row_count() != rows) slot = std::make_unique<EqIndex>(col, rows);
  return slot.get();
}

bool EqIndexCache::NonDecreasing(const ColumnBase* col, uint32_t rows) {
  if (col->is_id() || col->sorted()) return true;
  if (col->type() != SqlType::kInt) return false;  // text orders by bytes, not by id
  auto [it, added] = non_decreasing_.try_emplace(col, rows, false);
  if (!added && it->second.first == rows) return it->second.second;
  bool ok = true;
  int64_t prev = INT64_MIN;
  for (uint32_t r = 0; r < rows && ok; ++r) {
    if (col->IsNull(r)) {
      ok = false;
    } else {
      const int64_t v = col->GetInt(r);
      ok = v >= prev;
      prev = v;
    }
  }
  it->second = {rows, ok};
  return ok;
}

}  // namespace fathom
