// TimestampColumn and DurationColumn: the ts and dur of the biggest tables (sched,
// thread_state, ftrace_event, slice, counter) in 4 bytes a row instead of 8.
//
// A load of a scheduling-heavy trace writes ~90 bytes per event, and on the VMs this
// runs on every fresh 4 KiB page costs ~1.8 us to fault in: ts and dur were 40 % of
// those bytes. Each row stores an int32 offset from a base. For timestamps, which
// arrive in time order, the base is the first value appended to the row's block of
// 256 rows (a block spans microseconds to a second or two). For durations, written
// as -1 when a row opens and set when it closes, the base is 0. A value more than
// ~2.1 s from its base (a long sleep, a pause in a sparse trace) is an exception,
// kept exactly in a side table; when exceptions pass 1/16 of the rows the column
// turns into plain 8-byte values once (a sparse trace, for which the bytes do not
// matter).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>

#include "core/base/column_vector.h"
#include "core/storage/column.h"

namespace fathom {

// kBlockBases: offsets from each block's first value (timestamps) or from 0 (durations).
template <bool kBlockBases>
class CompactInt64Column final : public ColumnBase {
 public:
  // 256 rows: a block must span under 2.1 s, so sparse tables (a few hundred slices a
  // second) fit too; the bases cost 8 bytes per 256 rows.
  static constexpr uint32_t kBlockShift = 8;
  static constexpr size_t kBlockRows = size_t{1} << kBlockShift;

  // flags: kSorted or kNoFlags (no NULLs).
  CompactInt64Column(Table* table, std::string name, uint32_t flags = kNoFlags)
      : ColumnBase(table, std::move(name), SqlType::kInt, flags) {}

  void Append(int64_t v) {
    if (__builtin_expect(wide_form_, false)) return wide_.push_back(v);
    if constexpr (kBlockBases) {
      if ((offsets_.size() & (kBlockRows - 1)) == 0) {
        base_ = v;
        bases_.push_back(v);
      }
    }
    uint64_t d = Offset(v, base_);
    if (__builtin_expect(Fits(d), 1)) return offsets_.push_back(static_cast<int32_t>(d));
    AppendException(v);
  }
  void Set(uint32_t row, int64_t v) {
    if (wide_form_) {
      wide_[row] = v;
      return;
    }
    // A store only (no read of the old slot: rows are set long after they were
    // appended, when their line has left the cache). A row that was an exception and
    // fits now leaves a stale entry behind, never consulted again.
    uint64_t d = Offset(v, BaseOf(row));
    if (__builtin_expect(Fits(d), 1)) {
      offsets_[row] = static_cast<int32_t>(d);
      return;
    }
    SetException(row, v);
  }
  int64_t operator[](uint32_t row) const {
    if (wide_form_) return wide_[row];
    int32_t d = offsets_[row];
    if (__builtin_expect(d == kException, 0)) return exceptions_.find(row)->second;
    return static_cast<int64_t>(static_cast<uint64_t>(BaseOf(row)) +
                                static_cast<uint64_t>(int64_t{d}));
  }
  size_t size() const { return wide_form_ ? wide_.size() : offsets_.size(); }

  void Reserve(size_t n) override {
    reserve_hint_ = std::max(reserve_hint_, n);
    if (wide_form_) {
      wide_.reserve(n);
    } else {
      offsets_.reserve(n);
      if constexpr (kBlockBases) bases_.reserve(n / kBlockRows + 1);
    }
  }
  void ShrinkToFit() {
    offsets_.shrink_to_fit();
    bases_.shrink_to_fit();
    wide_.shrink_to_fit();
  }
  // 4 while compact, 8 once widened (tests, bench reports).
  size_t bytes_per_row() const { return wide_form_ ? sizeof(int64_t) : sizeof(int32_t); }
  // Rows stored in the side table (stale entries of rows set back into range included).
  size_t exception_count() const { return exceptions_.size(); }

  bool IsNull(uint32_t) const override { return false; }
  int64_t GetInt(uint32_t row) const override { return (*this)[row]; }
  bool IntAt(uint32_t row, int64_t* v) const override { return IntAtOf(*this, row, v); }
  double GetDouble(uint32_t row) const override { return static_cast<double>((*this)[row]); }

 private:
  // INT32_MIN marks an exception row, so offsets use the rest of the int32 range.
  static constexpr int32_t kException = std::numeric_limits<int32_t>::min();
  int64_t BaseOf(uint32_t row) const {
    if constexpr (kBlockBases) return bases_[row >> kBlockShift];
    return 0;
  }
  // v - base modulo 2^64 (no signed overflow for values far apart): added back to the
  // base in the same arithmetic it gives v exactly.
  static uint64_t Offset(int64_t v, int64_t base) {
    return static_cast<uint64_t>(v) - static_cast<uint64_t>(base);
  }
  // The offset, as a signed value, in [-INT32_MAX, INT32_MAX]: one compare.
  static bool Fits(uint64_t d) {
    constexpr uint64_t kMax = std::numeric_limits<int32_t>::max();
    return d + kMax <= 2 * kMax;
  }
  bool TooManyExceptions() const {
    return exceptions_.size() > kMinExceptionsBeforeWiden &&
           exceptions_.size() * 16 > offsets_.size();
  }

  __attribute__((noinline)) void AppendException(int64_t v) {
    uint32_t row = static_cast<uint32_t>(offsets_.size());
    offsets_.push_back(kException);
    exceptions_[row] = v;
    if (TooManyExceptions()) Widen();
  }
  __attribute__((noinline)) void SetException(uint32_t row, int64_t v) {
    offsets_[row] = kException;
    exceptions_[row] = v;
    if (TooManyExceptions()) Widen();
  }
  __attribute__((noinline)) void Widen() {
    size_t rows = offsets_.size();
    wide_.reserve(std::max(reserve_hint_, rows + 1));
    for (uint32_t row = 0; row < rows; ++row) wide_.push_back((*this)[row]);
    ColumnVector<int32_t>().swap(offsets_);
    ColumnVector<int64_t>().swap(bases_);
    std::unordered_map<uint32_t, int64_t>().swap(exceptions_);
    wide_form_ = true;
  }

  static constexpr size_t kMinExceptionsBeforeWiden = 1024;

  bool wide_form_ = false;
  int64_t base_ = 0;  // bases_.back() (0 without block bases): read on every append
  size_t reserve_hint_ = 0;
  ColumnVector<int32_t> offsets_;
  ColumnVector<int64_t> bases_;  // one per block of kBlockRows rows, if kBlockBases
  std::unordered_map<uint32_t, int64_t> exceptions_;
  ColumnVector<int64_t> wide_;
};

// Values in (nearly) increasing row order.
using TimestampColumn = CompactInt64Column<true>;
// Values near zero (and -1 for "not ended").
using DurationColumn = CompactInt64Column<false>;

}  // namespace fathom
