// Typed column storage behind the SQL tables. A table is a set of equally
// long columns; SQLite reads them through a virtual table (core/sql) and the
// viewer reads them directly (no SQL on the hot path).
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "core/base/column_vector.h"
#include "core/base/string_pool.h"

namespace fathom {

enum class SqlType : uint8_t { kInt, kDouble, kString };

enum ColumnFlags : uint32_t {
  kNoFlags = 0,
  kSorted = 1 << 0,    // values never decrease with the row index
  kNullable = 1 << 1,  // may hold NULL
  kHidden = 1 << 2,    // internal: not exposed to SQL
};

class Table;

// ColumnBase::IntAt for a final column class C: its own IsNull and GetInt,
// called without virtual dispatch.
template <typename C>
inline bool IntAtOf(const C& c, uint32_t row, int64_t* v) {
  if (c.C::IsNull(row)) return false;
  *v = c.C::GetInt(row);
  return true;
}

class ColumnBase {
 public:
  ColumnBase(Table* table, std::string name, SqlType type, uint32_t flags);
  virtual ~ColumnBase() = default;
  ColumnBase(const ColumnBase&) = delete;
  ColumnBase& operator=(const ColumnBase&) = delete;

  const std::string& name() const { return name_; }
  SqlType type() const { return type_; }
  uint32_t flags() const { return flags_; }
  bool sorted() const { return flags_ & kSorted; }
  bool is_id() const { return is_id_; }

  // Room for `rows` rows before a big import, so the biggest columns are not grown
  // (and re-faulted) step by step. A hint: columns that store nothing ignore it.
  virtual void Reserve(size_t rows) {}

  virtual bool IsNull(uint32_t row) const = 0;
  virtual int64_t GetInt(uint32_t row) const = 0;
  virtual double GetDouble(uint32_t row) const = 0;
  // IsNull and GetInt in one call: false for NULL, else the value in *v. A
  // SQL scan reads every cell this way, where two virtual calls a cell were
  // a tenth of a plain scan's time; the column classes override it with
  // IntAtOf, whose calls to their own (final) members are inlined.
  virtual bool IntAt(uint32_t row, int64_t* v) const {
    if (IsNull(row)) return false;
    *v = GetInt(row);
    return true;
  }
  // Only for kString columns.
  virtual StringId GetStringId(uint32_t row) const { return kNullStringId; }
  // String columns whose text is formatted on read rather than interned
  // (e.g. args.display_value). Equality push-down skips them.
  virtual bool HasComputedText() const { return false; }
  virtual std::string ComputedText(uint32_t row, const StringPool& pool) const { return {}; }

 protected:
  bool is_id_ = false;

 private:
  std::string name_;
  SqlType type_;
  uint32_t flags_;
};

// The row index itself (id, utid, upid...). Stores nothing.
class IdColumn final : public ColumnBase {
 public:
  IdColumn(Table* table, std::string name)
      : ColumnBase(table, std::move(name), SqlType::kInt, kSorted) {
    is_id_ = true;
  }
  bool IsNull(uint32_t) const override { return false; }
  int64_t GetInt(uint32_t row) const override { return row; }
  double GetDouble(uint32_t row) const override { return row; }
  bool IntAt(uint32_t row, int64_t* v) const override { return IntAtOf(*this, row, v); }
};

// Numeric column of T (int32/uint32/int64/double...). NULL is tracked in a
// separate bitmap only for nullable columns. A nullable column that has only
// seen NULLs stores nothing but its length (many thread_state/raw columns are
// NULL for every row); the first non-NULL value materializes it.
template <typename T>
class NumericColumn final : public ColumnBase {
 public:
  static constexpr SqlType kType = std::is_floating_point_v<T> ? SqlType::kDouble : SqlType::kInt;

  NumericColumn(Table* table, std::string name, uint32_t flags = kNoFlags)
      : ColumnBase(table, std::move(name), kType, flags),
        nullable_(flags & kNullable),
        lazy_(flags & kNullable) {}

  // The append path runs several times per imported event: no vector<bool>
  // (a bitmap of words instead) and the flags test is a plain member.
  void Append(T v) {
    if (__builtin_expect(lazy_, false)) Materialize();
    if (nullable_) PushNullBit(false);
    data_.push_back(v);
  }
  void Append(std::optional<T> v) {
    if (v) {
      Append(*v);
    } else {
      AppendNull();
    }
  }
  void AppendNull() {
    assert(nullable_);
    if (lazy_) {
      ++lazy_rows_;
      return;
    }
    PushNullBit(true);
    data_.push_back(T{});
  }
  void Set(uint32_t row, T v) {
    if (lazy_) Materialize();
    data_[row] = v;
    if (nullable_) SetNullBit(row, false);
  }
  void SetNull(uint32_t row) {
    assert(nullable_);
    if (lazy_) return;
    data_[row] = T{};
    SetNullBit(row, true);
  }
  T operator[](uint32_t row) const { return lazy_ ? T{} : data_[row]; }
  std::optional<T> Get(uint32_t row) const {
    if (IsNull(row)) return std::nullopt;
    return data_[row];
  }
  // Only for non-nullable columns (a lazy column has no data to expose).
  const ColumnVector<T>& data() const {
    assert(!lazy_);
    return data_;
  }
  size_t size() const { return lazy_ ? lazy_rows_ : data_.size(); }
  void Reserve(size_t n) override {
    if (lazy_) {
      reserve_hint_ = n;
      return;
    }
    data_.reserve(n);
    if (nullable_) null_words_.reserve(n / 64 + 1);
  }
  void ShrinkToFit() {
    data_.shrink_to_fit();
    null_words_.shrink_to_fit();
  }

  bool IsNull(uint32_t row) const override {
    return lazy_ || (nullable_ && ((null_words_[row >> 6] >> (row & 63)) & 1));
  }
  int64_t GetInt(uint32_t row) const override { return static_cast<int64_t>((*this)[row]); }
  bool IntAt(uint32_t row, int64_t* v) const override { return IntAtOf(*this, row, v); }
  double GetDouble(uint32_t row) const override { return static_cast<double>((*this)[row]); }

 private:
  // Bit `row` of null_words_ is set when the row is NULL; the bit for the
  // row being appended is data_.size() (call before pushing the value).
  void PushNullBit(bool is_null) {
    size_t row = data_.size();
    if ((row & 63) == 0) null_words_.push_back(0);
    if (is_null) null_words_.back() |= uint64_t{1} << (row & 63);
  }
  void SetNullBit(uint32_t row, bool is_null) {
    uint64_t bit = uint64_t{1} << (row & 63);
    if (is_null) {
      null_words_[row >> 6] |= bit;
    } else {
      null_words_[row >> 6] &= ~bit;
    }
  }
  void Materialize() {
    lazy_ = false;
    data_.reserve(std::max(reserve_hint_, lazy_rows_ + 1));
    null_words_.reserve(std::max(reserve_hint_, lazy_rows_ + 1) / 64 + 1);
    data_.assign(lazy_rows_, T{});
    // Every earlier row is NULL; bits past the last row stay clear.
    null_words_.assign(lazy_rows_ / 64, ~uint64_t{0});
    if (lazy_rows_ & 63) null_words_.push_back((uint64_t{1} << (lazy_rows_ & 63)) - 1);
  }

  bool nullable_;
  bool lazy_;
  size_t lazy_rows_ = 0;
  size_t reserve_hint_ = 0;
  ColumnVector<T> data_;
  ColumnVector<uint64_t> null_words_;
};

// A nullable numeric column for mostly-NULL values that arrive in row order
// (thread_state.waker_utid is set on ~15% of rows, cpu on ~45%). Only the
// non-NULL values are stored, densely; a bitmap says which rows have one and
// a running count per 64 rows finds a row's value (its rank). A 4-byte column
// then costs 0.2 B per row plus 4 B per value, not 4.1 B per row. Values are
// given as rows are appended (or, with SetLast, just after); there is no Set.
//
// kAbsentIsZero: for a column upstream never leaves NULL but that is mostly 0
// (ftrace_event.common_flags), a row without a value reads as 0 in SQL, while
// Get() still tells the importer's readers that no value was given.
template <typename T>
class SparseColumn final : public ColumnBase {
 public:
  static constexpr SqlType kType = std::is_floating_point_v<T> ? SqlType::kDouble : SqlType::kInt;
  enum AbsentReads { kAbsentIsNull, kAbsentIsZero };

  SparseColumn(Table* table, std::string name, AbsentReads absent = kAbsentIsNull)
      : ColumnBase(table, std::move(name), kType,
                   absent == kAbsentIsNull ? uint32_t{kNullable} : uint32_t{0}),
        absent_is_zero_(absent == kAbsentIsZero) {}

  void Append(T v) {
    PushBit(true);
    values_.push_back(v);
  }
  void AppendNull() { PushBit(false); }
  // Gives the last appended row its value, if it has none yet: its bit is in
  // the last word, whose rank (values before the word) does not change.
  void SetLast(T v) {
    if (rows_ == 0) return;
    const uint32_t row = static_cast<uint32_t>(rows_ - 1);
    if (!HasNoValue(row)) return;
    bits_.back() |= uint64_t{1} << (row & 63);
    values_.push_back(v);
  }
  void Append(std::optional<T> v) {
    if (v) {
      Append(*v);
    } else {
      AppendNull();
    }
  }

  std::optional<T> Get(uint32_t row) const {
    if (HasNoValue(row)) return std::nullopt;
    return values_[Rank(row)];
  }
  T operator[](uint32_t row) const { return HasNoValue(row) ? T{} : values_[Rank(row)]; }
  size_t size() const { return rows_; }
  size_t non_null_count() const { return values_.size(); }
  void Reserve(size_t n) override {
    bits_.reserve(n / 64 + 1);
    ranks_.reserve(n / 64 + 1);
  }
  void ShrinkToFit() {
    bits_.shrink_to_fit();
    ranks_.shrink_to_fit();
    values_.shrink_to_fit();
  }

  bool HasNoValue(uint32_t row) const { return !((bits_[row >> 6] >> (row & 63)) & 1); }
  bool IsNull(uint32_t row) const override { return !absent_is_zero_ && HasNoValue(row); }
  int64_t GetInt(uint32_t row) const override { return static_cast<int64_t>((*this)[row]); }
  bool IntAt(uint32_t row, int64_t* v) const override { return IntAtOf(*this, row, v); }
  double GetDouble(uint32_t row) const override { return static_cast<double>((*this)[row]); }

 private:
  // Values before `row`: those before its 64-row word, plus the word's bits
  // below it.
  size_t Rank(uint32_t row) const {
    uint64_t below = bits_[row >> 6] & ((uint64_t{1} << (row & 63)) - 1);
    return ranks_[row >> 6] + static_cast<size_t>(std::popcount(below));
  }
  void PushBit(bool present) {
    if ((rows_ & 63) == 0) {
      bits_.push_back(0);
      ranks_.push_back(static_cast<uint32_t>(values_.size()));
    }
    if (present) bits_.back() |= uint64_t{1} << (rows_ & 63);
    ++rows_;
  }

  bool absent_is_zero_;
  size_t rows_ = 0;
  ColumnVector<uint64_t> bits_;   // bit `row & 63` of word `row >> 6`: has a value
  ColumnVector<uint32_t> ranks_;  // per word: values in the rows before it
  ColumnVector<T> values_;
};

// Interned strings; kNullStringId is NULL. A column takes the cheapest of three forms
// that holds what it has seen: lazy (only NULLs: just the row count), narrow (at most
// 256 distinct ids: one byte per row, an index into the column's own dictionary of
// those ids) and wide (the 4-byte ids). The big tables' string columns hold a handful
// of values (ftrace_event.name, thread_state.state, sched.end_state: ~28 M rows in a
// 100 MB compact_sched trace), so narrow saves 3 bytes a row of memory that is
// written and paged in while loading. The 257th distinct id widens the column once.
class StringColumn final : public ColumnBase {
 public:
  StringColumn(Table* table, std::string name, uint32_t flags = kNullable)
      : ColumnBase(table, std::move(name), SqlType::kString, flags | kNullable) {}
  void Append(StringId v) {
    if (__builtin_expect(form_ == kNarrow, 1)) {
      if (int code = dict_->Find(v); __builtin_expect(code >= 0, 1)) {
        codes_.push_back(static_cast<uint8_t>(code));
        return;
      }
    } else if (form_ == kLazy) {
      if (v == kNullStringId) {
        ++lazy_rows_;
        return;
      }
      Materialize();
    } else {
      wide_.push_back(v);
      return;
    }
    AppendNew(v);
  }
  void Set(uint32_t row, StringId v) {
    if (form_ == kLazy) {
      if (v == kNullStringId) return;
      Materialize();
    }
    if (form_ == kNarrow) {
      int code = dict_->Find(v);
      if (code < 0) code = dict_->Add(v);
      if (code >= 0) {
        codes_[row] = static_cast<uint8_t>(code);
        return;
      }
      Widen();
    }
    wide_[row] = v;
  }
  StringId operator[](uint32_t row) const {
    if (form_ == kNarrow) return dict_->ids[codes_[row]];
    return form_ == kWide ? wide_[row] : kNullStringId;
  }
  size_t size() const {
    return form_ == kNarrow ? codes_.size() : form_ == kWide ? wide_.size() : lazy_rows_;
  }
  void Reserve(size_t n) override {
    reserve_hint_ = std::max(reserve_hint_, n);
    if (form_ == kNarrow) codes_.reserve(n);
    if (form_ == kWide) wide_.reserve(n);
  }
  void ShrinkToFit() {
    codes_.shrink_to_fit();
    wide_.shrink_to_fit();
  }
  // Whether rows a.. and b.. hold the same n values (one compare of the
  // stored codes: within one column equal codes are equal ids).
  bool SameRange(uint32_t a, uint32_t b, uint32_t n) const {
    if (form_ == kNarrow) return memcmp(&codes_[a], &codes_[b], n) == 0;
    if (form_ == kWide) return memcmp(&wide_[a], &wide_[b], n * sizeof(StringId)) == 0;
    return true;
  }
  // Copies rows src.. over rows dst.. (dst <= src, ranges may overlap).
  void MoveRange(uint32_t dst, uint32_t src, uint32_t n) {
    if (form_ == kNarrow) memmove(&codes_[dst], &codes_[src], n);
    if (form_ == kWide) memmove(&wide_[dst], &wide_[src], n * sizeof(StringId));
  }
  // Drops the rows from `n` on.
  void Truncate(size_t n) {
    if (form_ == kNarrow) codes_.resize(n);
    if (form_ == kWide) wide_.resize(n);
    if (form_ == kLazy) lazy_rows_ = n;
  }
  // Moves the values out as ids (NULLs included), leaving the column empty.
  ColumnVector<StringId> Take() {
    if (form_ == kLazy) wide_.assign(lazy_rows_, kNullStringId);
    if (form_ == kNarrow) Widen();
    ColumnVector<StringId> out;
    out.swap(wide_);
    form_ = kLazy;
    lazy_rows_ = 0;
    return out;
  }
  // Bytes per row of the current form (0 while only NULLs were seen), for tests.
  size_t bytes_per_row() const {
    return form_ == kNarrow ? sizeof(uint8_t) : form_ == kWide ? sizeof(StringId) : 0;
  }

  bool IsNull(uint32_t row) const override { return (*this)[row] == kNullStringId; }
  int64_t GetInt(uint32_t row) const override { return 0; }
  double GetDouble(uint32_t row) const override { return 0; }
  StringId GetStringId(uint32_t row) const override { return (*this)[row]; }

 private:
  enum Form : uint8_t { kLazy, kNarrow, kWide };
  // The narrow form's dictionary: code -> id, and an open-addressing table id -> code.
  // Ids are pool indices, handed out in order, so the low bits spread a column's few
  // ids over the 512 slots without a multiply: the append path is an and, a compare
  // and a byte load when the id sits in its own slot (nearly always).
  struct Dictionary {
    static constexpr uint32_t kSlots = 512;
    static constexpr StringId kEmpty = ~StringId{0};  // never a pool index
    StringId slot_id[kSlots];
    uint8_t slot_code[kSlots];
    StringId ids[256];
    uint32_t count = 0;
    Dictionary() { std::fill(std::begin(slot_id), std::end(slot_id), kEmpty); }
    int Find(StringId id) const {
      for (uint32_t h = id & (kSlots - 1);; h = (h + 1) & (kSlots - 1)) {
        if (slot_id[h] == id) return slot_code[h];
        if (slot_id[h] == kEmpty) return -1;
      }
    }
    // -1 when full.
    int Add(StringId id) {
      if (count == 256) return -1;
      uint32_t h = id & (kSlots - 1);
      while (slot_id[h] != kEmpty) h = (h + 1) & (kSlots - 1);
      slot_id[h] = id;
      slot_code[h] = static_cast<uint8_t>(count);
      ids[count] = id;
      return static_cast<int>(count++);
    }
  };
  static_assert(kNullStringId == 0, "Materialize gives NULL code 0");

  // An id the dictionary lacks: a new code, or the wide form when there are 256.
  __attribute__((noinline)) void AppendNew(StringId v) {
    int code = dict_->Add(v);
    if (code >= 0) {
      codes_.push_back(static_cast<uint8_t>(code));
      return;
    }
    Widen();
    wide_.push_back(v);
  }
  // Lazy -> narrow: the rows so far are NULL, code 0.
  __attribute__((noinline)) void Materialize() {
    form_ = kNarrow;
    dict_ = std::make_unique<Dictionary>();
    dict_->Add(kNullStringId);
    codes_.reserve(std::max(reserve_hint_, lazy_rows_ + 1));
    codes_.assign(lazy_rows_, 0);
  }
  // Narrow -> wide, once: every code becomes its id.
  __attribute__((noinline)) void Widen() {
    wide_.reserve(std::max(reserve_hint_, codes_.size() + 1));
    for (uint8_t c : codes_) wide_.push_back(dict_->ids[c]);
    ColumnVector<uint8_t>().swap(codes_);
    dict_.reset();
    form_ = kWide;
  }

  Form form_ = kLazy;
  size_t lazy_rows_ = 0;
  size_t reserve_hint_ = 0;
  std::unique_ptr<Dictionary> dict_;  // narrow form only
  ColumnVector<uint8_t> codes_;       // narrow form
  ColumnVector<StringId> wide_;       // wide form
};

// A non-nullable uint32 column whose values are nearly always small: the utid of every
// sched, thread_state and raw ftrace row (a trace has hundreds or thousands of
// threads, 28 M such rows in a 100 MB compact_sched trace). Two bytes per row while
// every value fits in 16 bits; the first that does not widens the column to four bytes,
// once.
class SmallUInt32Column final : public ColumnBase {
 public:
  SmallUInt32Column(Table* table, std::string name)
      : ColumnBase(table, std::move(name), SqlType::kInt, kNoFlags) {}
  void Append(uint32_t v) {
    if (__builtin_expect(!wide_form_ && v <= UINT16_MAX, 1)) {
      narrow_.push_back(static_cast<uint16_t>(v));
      return;
    }
    AppendWide(v);
  }
  void Set(uint32_t row, uint32_t v) {
    if (!wide_form_ && v > UINT16_MAX) Widen();
    if (wide_form_) {
      wide_[row] = v;
    } else {
      narrow_[row] = static_cast<uint16_t>(v);
    }
  }
  uint32_t operator[](uint32_t row) const { return wide_form_ ? wide_[row] : narrow_[row]; }
  size_t size() const { return wide_form_ ? wide_.size() : narrow_.size(); }
  void Reserve(size_t n) override {
    reserve_hint_ = std::max(reserve_hint_, n);
    if (wide_form_) {
      wide_.reserve(n);
    } else {
      narrow_.reserve(n);
    }
  }
  void ShrinkToFit() {
    narrow_.shrink_to_fit();
    wide_.shrink_to_fit();
  }
  size_t bytes_per_row() const { return wide_form_ ? sizeof(uint32_t) : sizeof(uint16_t); }

  bool IsNull(uint32_t) const override { return false; }
  int64_t GetInt(uint32_t row) const override { return (*this)[row]; }
  bool IntAt(uint32_t row, int64_t* v) const override { return IntAtOf(*this, row, v); }
  double GetDouble(uint32_t row) const override { return (*this)[row]; }

 private:
  __attribute__((noinline)) void AppendWide(uint32_t v) {
    if (!wide_form_) Widen();
    wide_.push_back(v);
  }
  __attribute__((noinline)) void Widen() {
    wide_.reserve(std::max(reserve_hint_, narrow_.size() + 1));
    for (uint16_t v : narrow_) wide_.push_back(v);
    ColumnVector<uint16_t>().swap(narrow_);
    wide_form_ = true;
  }

  bool wide_form_ = false;
  size_t reserve_hint_ = 0;
  ColumnVector<uint16_t> narrow_;
  ColumnVector<uint32_t> wide_;
};

// A column that shows another column of the same table under a second name
// (e.g. ucpu = cpu while there is a single machine): no storage of its own.
template <typename Source>
class MirrorColumn final : public ColumnBase {
 public:
  MirrorColumn(Table* table, std::string name, const Source* source)
      : ColumnBase(table, std::move(name), source->type(), source->flags() & ~kSorted),
        source_(source) {}
  auto operator[](uint32_t row) const { return (*source_)[row]; }
  bool IsNull(uint32_t row) const override { return source_->IsNull(row); }
  int64_t GetInt(uint32_t row) const override { return source_->GetInt(row); }
  bool IntAt(uint32_t row, int64_t* v) const override { return IntAtOf(*source_, row, v); }
  double GetDouble(uint32_t row) const override { return source_->GetDouble(row); }
  StringId GetStringId(uint32_t row) const override { return source_->GetStringId(row); }

 private:
  const Source* source_;
};

using Int64Column = NumericColumn<int64_t>;
using Int32Column = NumericColumn<int32_t>;
using UInt32Column = NumericColumn<uint32_t>;
// CPU numbers: importers reject any above kMaxCpus (4096), so two bytes hold them.
using UInt16Column = NumericColumn<uint16_t>;
using SparseUInt32Column = SparseColumn<uint32_t>;
using DoubleColumn = NumericColumn<double>;

class Table {
 public:
  explicit Table(std::string name) : name_(std::move(name)) {}
  virtual ~Table() = default;
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  const std::string& name() const { return name_; }
  uint32_t row_count() const { return row_count_; }
  const std::vector<ColumnBase*>& columns() const { return columns_; }
  const ColumnBase* FindColumn(std::string_view name) const;
  // Called before SQL reads the table: a table that builds rows lazily
  // (args) builds them here. Thread-safe.
  virtual void PrepareForRead() const {}

  void RegisterColumn(ColumnBase* c) { columns_.push_back(c); }
  // ColumnBase::Reserve on every column.
  void ReserveRows(size_t rows) {
    for (ColumnBase* c : columns_) c->Reserve(rows);
  }

 protected:
  // Called by each table's Insert after appending one value to every column.
  uint32_t CommitRow() { return row_count_++; }
  void ResetRowCount() { row_count_ = 0; }
  // Drops the rows from `n` on (the caller truncates the columns).
  void TruncateRows(uint32_t n) { row_count_ = n; }

 private:
  std::string name_;
  uint32_t row_count_ = 0;
  std::vector<ColumnBase*> columns_;
};

inline ColumnBase::ColumnBase(Table* table, std::string name, SqlType type, uint32_t flags)
    : name_(std::move(name)), type_(type), flags_(flags) {
  table->RegisterColumn(this);
}

inline const ColumnBase* Table::FindColumn(std::string_view name) const {
  for (const ColumnBase* c : columns_)
    if (c->name() == name) return c;
  return nullptr;
}

}  // namespace fathom
