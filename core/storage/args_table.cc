// ArgsTable's one rebuild: deferred sets written in set order and, once the
// import has finished, sets numbered and shared as upstream (see tables.h).
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/base/hash_mix.h"
#include "core/storage/tables.h"

namespace fathom {

// Two independent 64-bit digests of what a set's rows store (not what they
// read as): per row the low slot and the key as ids (ids, not the key
// column's codes: a column that widens recodes its rows), then the type byte
// (its kWide bit set exactly for values that do not fit the slot, whose whole
// value joins in) and the differing flat key. Each word is packed without
// overlap, so different rows never feed the same words.
// `wide_next` walks wide_ along with the rows (sets are digested in row
// order), where a binary search per wide value cost a cache miss per step.
ArgsTable::SetDigest ArgsTable::SetHash(uint32_t begin, uint32_t end, size_t* wide_next) const {
  uint64_t a = end - begin, b = ~a;
  const bool flat = !flat_key.differing_.empty();
  for (uint32_t r = begin; r < end; ++r) {
    uint64_t v1 = (static_cast<uint64_t>(static_cast<uint32_t>(slot_lo_[r])) << 32) | key[r];
    uint64_t v2 = (static_cast<uint64_t>(flat ? flat_key.differing_[r] : 0) << 8) | type_[r];
    a = Fmix64(Fmix64(a ^ v1) ^ v2);
    b = RotMul64(RotMul64(b, v1), v2);
    if (type_[r] & kWide) {
      while (wide_[*wide_next].row < r) ++*wide_next;
      uint64_t w = static_cast<uint64_t>(wide_[*wide_next].value);
      a = Fmix64(a ^ w);
      b = RotMul64(b, w);
    }
  }
  return {Fmix64(a), Fmix64(b)};
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

namespace {

// Digest -> final id of the first set seen with it: open addressing, at
// most half full, 16-byte slots keeping 96 of the digest's 128 bits. A
// ColumnVector, so that a big table gets huge pages: every probe is a random
// access, and the caller prefetches them ahead.
class SetTable {
 public:
  explicit SetTable(size_t sets) {
    size_t n = 1 << 10;
    while (n < sets * 2) n <<= 1;
    slots_.assign(n, Slot{});
    mask_ = n - 1;
  }
  void Prefetch(const ArgsTable::SetDigest& d) const { __builtin_prefetch(&slots_[d.a & mask_]); }
  // The id stored under `d`, or `id` after storing it.
  uint32_t FindOrInsert(const ArgsTable::SetDigest& d, uint32_t id) {
    const uint32_t b = static_cast<uint32_t>(d.b >> 32);
    for (size_t i = d.a & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.id_plus_one == 0) {
        s = {d.a, b, id + 1};
        return id;
      }
      if (s.a == d.a && s.b == b) return s.id_plus_one - 1;
    }
  }

 private:
  struct Slot {
    uint64_t a = 0;
    uint32_t b = 0;
    uint32_t id_plus_one = 0;  // 0: empty
  };
  ColumnVector<Slot> slots_;
  size_t mask_ = 0;
};

}  // namespace

// Upstream shares a set equal to an earlier one by its digest; so does this,
// with two independent digests (a false match needs 96 bits to collide).
// The table is far bigger than the caches, and probing set by set stalled on
// every probe: each is prefetched kAhead sets before it is needed.
std::vector<uint32_t> ArgsTable::ShareEqualSets(const std::vector<SetSpan>& spans) {
  const size_t n = spans.size();
  const uint32_t rows = row_count();
  auto end_of = [&](size_t i) { return i + 1 < n ? spans[i + 1].begin : rows; };
  uint32_t max_set = 0;
  for (const SetSpan& s : spans) max_set = std::max(max_set, s.set);
  std::vector<uint32_t> remap(n ? max_set + 1 : 0, kNoSet);
  SetTable table(n);
  constexpr size_t kAhead = 16;  // a power of two: digests[] is a ring
  SetDigest digests[kAhead];
  size_t wide_next = 0;
  auto digest = [&](size_t i) {
    SetDigest d = SetHash(spans[i].begin, end_of(i), &wide_next);
    table.Prefetch(d);
    digests[i % kAhead] = d;
  };
  for (size_t i = 0; i < std::min(n, kAhead); ++i) digest(i);
  std::vector<uint8_t> kept(n, 0);
  uint32_t next_id = 0;  // the first row of the next kept set, once the others are gone
  for (size_t i = 0; i < n; ++i) {
    SetDigest d = digests[i % kAhead];
    if (i + kAhead < n) digest(i + kAhead);
    uint32_t size = end_of(i) - spans[i].begin;
    if (size == 0) continue;  // no rows: no set
    uint32_t id = table.FindOrInsert(d, next_id);
    if (id == next_id) {  // earlier ids are all below next_id
      kept[i] = 1;
      next_id += size;
    }
    remap[spans[i].set] = id;
  }
  KeepRows(spans, kept);
  return remap;
}

// Drops the rows of the sets not kept, moving the others down in runs, and
// gives each kept set's rows its final id (its new first row).
void ArgsTable::KeepRows(const std::vector<SetSpan>& spans, const std::vector<uint8_t>& kept) {
  const size_t n = spans.size();
  const uint32_t rows = row_count();
  const bool flat = !flat_key.differing_.empty();
  auto& ids = arg_set_id.v_;
  uint32_t w = 0;
  size_t wide_in = 0, wide_out = 0;
  auto move_run = [&](uint32_t src, uint32_t len) {
    if (len == 0) return;
    if (w != src) {
      memmove(&ids[w], &ids[src], len * sizeof(uint32_t));
      key.MoveRange(w, src, len);
      if (flat) memmove(&flat_key.differing_[w], &flat_key.differing_[src], len * sizeof(StringId));
      memmove(&slot_lo_[w], &slot_lo_[src], len * sizeof(int32_t));
      memmove(&type_[w], &type_[src], len);
    }
    while (wide_in < wide_.size() && wide_[wide_in].row < src) ++wide_in;  // a dropped set's
    for (; wide_in < wide_.size() && wide_[wide_in].row < src + len; ++wide_in) {
      WideSlot e = wide_[wide_in];
      e.row = e.row - src + w;
      wide_[wide_out++] = e;
    }
    w += len;
  };
  uint32_t run_src = 0, run_len = 0;
  for (size_t i = 0; i < n; ++i) {
    uint32_t begin = spans[i].begin, end = i + 1 < n ? spans[i + 1].begin : rows;
    if (!kept[i]) {
      move_run(run_src, run_len);
      run_src = end;
      run_len = 0;
      continue;
    }
    uint32_t final_id = w + (begin - run_src);
    for (uint32_t r = begin; r < end; ++r) ids[r] = final_id;
    run_len += end - begin;
  }
  move_run(run_src, run_len);
  wide_.resize(wide_out);
  TruncateTo(w);
}

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
  std::vector<SetSpan> spans;  // when finalizing: every set's rows, to share equal ones
  // Deferred sets that repeat an earlier one's content: not written, they
  // take that set's final id (set, earlier set).
  std::vector<std::pair<uint32_t, uint32_t>> repeats;
  uint32_t r = 0, rows = static_cast<uint32_t>(sets.size());
  auto copy_set = [&] {
    uint32_t set = sets[r], begin = row_count();
    while (r < rows && sets[r] == set) copy_row(r++);
    if (finalize) spans.push_back({set, begin});
  };
  if (d) {
    for (uint32_t set = 0; d->NextSet(&set);) {
      while (r < rows && sets[r] < set) copy_set();
      if (uint32_t earlier; finalize && d->RepeatsEarlierSet(&earlier)) {
        repeats.emplace_back(set, earlier);
        continue;
      }
      uint32_t begin = row_count();
      d->AppendRows(this);
      if (finalize) spans.push_back({set, begin});
    }
  }
  while (r < rows) copy_set();
  if (d) d->Clear();
  if (!finalize) return;
  std::vector<uint32_t> remap = ShareEqualSets(spans);
  if (!repeats.empty() && remap.size() <= repeats.back().first)
    remap.resize(repeats.back().first + 1, kNoSet);
  for (auto [set, earlier] : repeats) remap[set] = remap[earlier];
  finalized_ = true;
  if (remap_hook_) remap_hook_(remap);
  finalize_pending_.store(false, std::memory_order_release);
}

}  // namespace fathom
