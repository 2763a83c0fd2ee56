#include "core/sql/table_eq_index.h"

#include <algorithm>

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

}  // namespace fathom
