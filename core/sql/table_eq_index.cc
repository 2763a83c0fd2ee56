#include "core/sql/table_eq_index.h"

#include <algorithm>

#include "core/base/counting_order.h"

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

EqIndex::EqIndex(const ColumnBase* col, uint32_t rows) : col_(col), row_count_(rows) {
  std::vector<std::pair<int64_t, uint32_t>> keyed;
  keyed.reserve(rows);
  for (uint32_t r = 0; r < rows; ++r)
    if (!col->IsNull(r)) keyed.emplace_back(Key(r), r);
  // Few distinct values (at most a quarter of the rows, and 65536): counted.
  // Filters such as `state = 'R'` or `cpu = 3` index columns of a handful of
  // values over a million rows, where sorting all pairs cost 0.1 s a column.
  std::vector<uint32_t> order;
  if (CountingOrder(
          keyed.size(), [&](size_t i) { return keyed[i].first; },
          std::min<size_t>(keyed.size() / 4, 65536), &order)) {
    rows_.resize(order.size());
    for (size_t i = 0; i < order.size(); ++i) rows_[i] = keyed[order[i]].second;
    return;
  }
  std::sort(keyed.begin(), keyed.end());
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
