// ArgsTable's one rebuild: deferred sets written in set order and, once the
// import has finished, sets numbered and shared as upstream (see tables.h).
#include <cstring>
#include <vector>

#include "core/storage/tables.h"

namespace fathom {

namespace {

uint64_t Mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

}  // namespace

// Over what a row stores, not what it reads as: the low slot, the type byte
// (its kWide bit set exactly for values that do not fit the slot, whose whole
// value joins in), the key and the differing flat key as ids (ids, not the
// key column's codes: a column that widens recodes its rows).
uint64_t ArgsTable::SetHash(uint32_t begin, uint32_t end) const {
  uint64_t h = end - begin;
  const bool flat = !flat_key.differing_.empty();
  for (uint32_t r = begin; r < end; ++r) {
    uint64_t v = (static_cast<uint64_t>(static_cast<uint32_t>(slot_lo_[r])) << 32) ^
                 (static_cast<uint64_t>(type_[r]) << 24) ^ key[r];
    if (flat) v ^= static_cast<uint64_t>(flat_key.differing_[r]) << 8;
    if (type_[r] & kWide) v ^= Mix(static_cast<uint64_t>(Slot(r)));
    h = Mix(h ^ v);
  }
  return h;
}

bool ArgsTable::SameRows(uint32_t a, uint32_t b, uint32_t n) const {
  if (memcmp(&type_[a], &type_[b], n) != 0) return false;
  if (memcmp(&slot_lo_[a], &slot_lo_[b], n * sizeof(int32_t)) != 0) return false;
  if (!key.SameRange(a, b, n)) return false;
  if (!flat_key.differing_.empty() &&
      memcmp(&flat_key.differing_[a], &flat_key.differing_[b], n * sizeof(StringId)) != 0)
    return false;
  for (uint32_t i = 0; i < n; ++i)
    if ((type_[a + i] & kWide) && Slot(a + i) != Slot(b + i)) return false;
  return true;
}

void ArgsTable::TruncateTo(uint32_t rows) {
  arg_set_id.v_.resize(rows);
  key.Truncate(rows);
  if (!flat_key.differing_.empty()) flat_key.differing_.resize(rows);
  size_t wide = wide_.size();
  while (wide > 0 && wide_[wide - 1].row >= rows) --wide;
  wide_.resize(wide);
  slot_lo_.resize(rows);
  type_.resize(rows);
  TruncateRows(rows);
}

// Shares equal sets as they are appended: a flat open-addressing map from a
// set's hash to its first row, with an exact compare on a hash match.
class ArgSetInterner {
 public:
  ArgSetInterner(ArgsTable* t, bool active) : t_(t), active_(active) {
    if (active_) slots_.resize(1 << 16);
  }

  // The rows from `begin` to the table's end are provisional set `set`: keep
  // them under their final id, or drop them for an equal earlier set's.
  void Close(uint32_t set, uint32_t begin) {
    if (!active_) return;
    if (remap_.size() <= set) remap_.resize(set + 1, ArgsTable::kNoSet);
    uint32_t end = t_->row_count();
    if (end == begin) return;  // no rows: no set
    uint32_t size = end - begin;
    uint64_t h = t_->SetHash(begin, end);
    size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.size == 0) {
        s = {h, begin, size};
        if (++used_ * 2 > slots_.size()) Grow();
        break;
      }
      if (s.hash == h && s.size == size && t_->SameRows(s.first, begin, size)) {
        t_->TruncateTo(begin);
        remap_[set] = s.first;
        return;
      }
    }
    auto& ids = t_->arg_set_id.v_;
    for (uint32_t r = begin; r < end; ++r) ids[r] = begin;
    remap_[set] = begin;
  }

  std::vector<uint32_t> TakeRemap() { return std::move(remap_); }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t first = 0;
    uint32_t size = 0;  // 0: empty
  };
  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.size == 0) continue;
      size_t i = s.hash & mask;
      while (slots_[i].size != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  ArgsTable* t_;
  bool active_;
  std::vector<Slot> slots_;
  size_t used_ = 0;
  std::vector<uint32_t> remap_;  // by provisional id
};

void ArgsTable::Materialize() {
  std::lock_guard<std::mutex> lock(materialize_mu_);
  DeferredArgSets* d = deferred_.get();
  size_t n_deferred = d ? d->count() : 0;
  bool finalize = finalize_pending_.load(std::memory_order_relaxed);
  if (n_deferred == 0 && !finalize) return;
  // Take the written rows out and write everything again in set order: the
  // written rows and the deferred sets are each sorted by set id, so this is
  // one merge. Row ids are then what an eager import would have given.
  ColumnVector<uint32_t> sets;
  sets.swap(arg_set_id.v_);
  ColumnVector<StringId> keys = key.Take();
  ColumnVector<StringId> differing;
  differing.swap(flat_key.differing_);
  ColumnVector<int32_t> lo;
  lo.swap(slot_lo_);
  ColumnVector<WideSlot> wide;
  wide.swap(wide_);
  ColumnVector<uint8_t> types;
  types.swap(type_);
  ResetRowCount();
  // Raw ftrace events average four to five args; a generous reservation
  // costs only address space (pages never written are not resident), a
  // short one a reallocation copy of the biggest table at its largest.
  Reserve(sets.size() + n_deferred * 8);

  size_t wide_next = 0;
  auto copy_row = [&](uint32_t r) {
    StringId k = keys[r];
    StringId fk = k;
    if (!differing.empty()) {
      StringId dv = differing[r];
      fk = dv == kNullStringId ? k : dv == FlatKey::kNullFlat ? kNullStringId : dv;
    }
    int64_t slot = lo[r];
    if (types[r] & kWide) {
      while (wide[wide_next].row < r) ++wide_next;
      slot = wide[wide_next].value;
    }
    arg_set_id.v_.push_back(sets[r]);
    flat_key.Append(fk, k);
    key.Append(k);
    uint8_t type = types[r] & kTypeMask;
    if (slot != static_cast<int32_t>(slot)) {
      type |= kWide;
      wide_.push_back({static_cast<uint32_t>(slot_lo_.size()), slot});
    }
    slot_lo_.push_back(static_cast<int32_t>(slot));
    type_.push_back(type);
    CommitRow();
  };
  ArgSetInterner interner(this, finalize);
  uint32_t r = 0, rows = static_cast<uint32_t>(sets.size());
  // One written set: all its rows, then its final id.
  auto copy_set = [&] {
    uint32_t set = sets[r], begin = row_count();
    while (r < rows && sets[r] == set) copy_row(r++);
    interner.Close(set, begin);
  };
  if (d) {
    for (uint32_t set = 0; d->NextSet(&set);) {
      while (r < rows && sets[r] < set) copy_set();
      uint32_t begin = row_count();
      d->AppendRows(this);
      interner.Close(set, begin);
    }
  }
  while (r < rows) copy_set();
  if (d) d->Clear();
  if (!finalize) return;
  finalized_ = true;
  if (remap_hook_) remap_hook_(interner.TakeRemap());
  finalize_pending_.store(false, std::memory_order_release);
}

}  // namespace fathom
