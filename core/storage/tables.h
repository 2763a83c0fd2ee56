// Every table of the trace processor, with upstream Perfetto's table and
// column names so that Perfetto users' queries run unchanged. Columns are
// declared in the order `SELECT *` shows them.
#pragma once

#include <atomic>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/storage/column.h"
#include "core/storage/compact_int64_column.h"

namespace fathom {

using std::nullopt;
using std::optional;

// Row of the `machine` table that owns whatever no packet attributes to
// another machine: upstream always has it, so a single-machine trace's
// machine_id columns say 0, not NULL.
inline constexpr uint32_t kHostMachineId = 0;

// ---- processes and threads ------------------------------------------------

struct ProcessTable : Table {
  ProcessTable() : Table("process") {}
  // upid before id: upstream's column order, so `select *` lines up.
  IdColumn upid{this, "upid"};
  IdColumn id{this, "id"};
  Int64Column pid{this, "pid"};
  StringColumn name{this, "name"};
  Int64Column start_ts{this, "start_ts", kNullable};
  Int64Column end_ts{this, "end_ts", kNullable};
  UInt32Column parent_upid{this, "parent_upid", kNullable};
  Int64Column uid{this, "uid", kNullable};
  Int64Column android_appid{this, "android_appid", kNullable};
  Int64Column android_user_id{this, "android_user_id", kNullable};
  StringColumn cmdline{this, "cmdline"};
  UInt32Column arg_set_id{this, "arg_set_id", kNullable};
  UInt32Column machine_id{this, "machine_id", kNullable};

  uint32_t Insert(int64_t p) {
    pid.Append(p);
    name.Append(kNullStringId);
    start_ts.AppendNull();
    end_ts.AppendNull();
    parent_upid.AppendNull();
    uid.AppendNull();
    android_appid.AppendNull();
    android_user_id.AppendNull();
    cmdline.Append(kNullStringId);
    arg_set_id.AppendNull();
    machine_id.Append(kHostMachineId);
    return CommitRow();
  }
};

struct ThreadTable : Table {
  ThreadTable() : Table("thread") {}
  // utid before id, as upstream orders them.
  IdColumn utid{this, "utid"};
  IdColumn id{this, "id"};
  Int64Column tid{this, "tid"};
  StringColumn name{this, "name"};
  Int64Column start_ts{this, "start_ts", kNullable};
  Int64Column end_ts{this, "end_ts", kNullable};
  UInt32Column upid{this, "upid", kNullable};
  Int64Column is_main_thread{this, "is_main_thread", kNullable};
  Int64Column is_idle{this, "is_idle"};
  UInt32Column machine_id{this, "machine_id", kNullable};
  UInt32Column arg_set_id{this, "arg_set_id", kNullable};

  // `idle`: the idle task that every trace starts with (utid 0). Other
  // threads with tid 0 (a JSON trace's, another machine's) are not idle.
  uint32_t Insert(int64_t t, bool idle = false) {
    tid.Append(t);
    name.Append(kNullStringId);
    start_ts.AppendNull();
    end_ts.AppendNull();
    upid.AppendNull();
    is_main_thread.AppendNull();
    is_idle.Append(idle ? 1 : 0);
    machine_id.Append(kHostMachineId);
    arg_set_id.AppendNull();
    return CommitRow();
  }
};

// ---- scheduling -----------------------------------------------------------

struct SchedSliceTable : Table {
  SchedSliceTable() : Table("sched_slice") {}
  IdColumn id{this, "id"};
  TimestampColumn ts{this, "ts", kSorted};  // 4 bytes a row: compact_int64_column.h
  DurationColumn dur{this, "dur"};
  UInt16Column cpu{this, "cpu"};         // 2 bytes: see UInt16Column
  SmallUInt32Column utid{this, "utid"};  // 2 bytes while utids fit
  StringColumn end_state{this, "end_state"};
  Int32Column priority{this, "priority"};
  MirrorColumn<UInt16Column> ucpu{this, "ucpu", &cpu};

  uint32_t Insert(int64_t t, int64_t d, uint32_t c, uint32_t u, StringId state, int32_t prio) {
    assert(c <= UINT16_MAX);
    ts.Append(t);
    dur.Append(d);
    cpu.Append(static_cast<uint16_t>(c));
    utid.Append(u);
    end_state.Append(state);
    priority.Append(prio);
    return CommitRow();
  }
};

struct ThreadStateTable : Table {
  ThreadStateTable() : Table("thread_state") {}
  IdColumn id{this, "id"};
  TimestampColumn ts{this, "ts"};
  DurationColumn dur{this, "dur"};
  // Only Running rows have a cpu, only runnable rows after a wakeup a waker:
  // both stored sparsely (see SparseColumn).
  SparseUInt32Column cpu{this, "cpu"};
  SmallUInt32Column utid{this, "utid"};  // 2 bytes while utids fit
  StringColumn state{this, "state"};
  Int64Column io_wait{this, "io_wait", kNullable};
  StringColumn blocked_function{this, "blocked_function"};
  SparseUInt32Column waker_utid{this, "waker_utid"};
  // Set (SetLast) on the R rows of wakings only: sparse.
  SparseUInt32Column waker_id{this, "waker_id"};
  SparseUInt32Column irq_context{this, "irq_context"};
  MirrorColumn<SparseUInt32Column> ucpu{this, "ucpu", &cpu};

  uint32_t Insert(int64_t t, int64_t d, optional<uint32_t> c, uint32_t u, StringId st) {
    return Insert(t, d, c.value_or(kNone), u, st, kNone);
  }
  // The importer's form, with kNone for NULL. It runs per scheduling event,
  // where an optional built in memory and reloaded whole stalls store
  // forwarding.
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  uint32_t Insert(int64_t t, int64_t d, uint32_t c, uint32_t u, StringId st, uint32_t waker) {
    ts.Append(t);
    dur.Append(d);
    if (c == kNone) {
      cpu.AppendNull();
    } else {
      cpu.Append(c);
    }
    utid.Append(u);
    state.Append(st);
    io_wait.AppendNull();
    blocked_function.Append(kNullStringId);
    if (waker == kNone) {
      waker_utid.AppendNull();
    } else {
      waker_utid.Append(waker);
    }
    waker_id.AppendNull();
    irq_context.AppendNull();
    return CommitRow();
  }
};

// ---- tracks, counters, slices ---------------------------------------------

// One table for every track. The kind-specific tables of upstream
// (thread_track, process_track, counter_track, cpu_counter_track, ...) are SQL
// views over it that filter on `event_type` and the owner columns.
struct TrackTable : Table {
  TrackTable() : Table("track") {}
  IdColumn id{this, "id"};
  StringColumn name{this, "name"};
  StringColumn type{this, "type"};  // upstream "classification", e.g. cpu_frequency
  UInt32Column parent_id{this, "parent_id", kNullable};
  UInt32Column source_arg_set_id{this, "source_arg_set_id", kNullable};
  UInt32Column dimension_arg_set_id{this, "dimension_arg_set_id", kNullable};
  UInt32Column machine_id{this, "machine_id", kNullable};
  StringColumn event_type{this, "event_type"};  // "slice" or "counter"
  StringColumn counter_unit{this, "counter_unit"};
  // Owners: at most one is set. They drive the kind-specific views.
  UInt32Column utid{this, "utid", kNullable};
  UInt32Column upid{this, "upid", kNullable};
  UInt32Column cpu{this, "cpu", kNullable};
  // Track-event tracks that upstream merges by name (or merge key) under one
  // parent share a group: dense ids in the order groups are first seen.
  UInt32Column track_group_id{this, "track_group_id", kNullable};

  uint32_t Insert(StringId n, StringId ty, StringId evt, optional<uint32_t> u_tid,
                  optional<uint32_t> u_pid, optional<uint32_t> c) {
    name.Append(n);
    type.Append(ty);
    parent_id.AppendNull();
    source_arg_set_id.AppendNull();
    dimension_arg_set_id.AppendNull();
    machine_id.Append(kHostMachineId);
    event_type.Append(evt);
    counter_unit.Append(kNullStringId);
    utid.Append(u_tid);
    upid.Append(u_pid);
    cpu.Append(c);
    track_group_id.AppendNull();
    return CommitRow();
  }
};

// TrackEvent TYPE_STATE events: each value lasts until the next state event
// on its track (dur -1 while it is the last one).
struct StateTable : Table {
  StateTable() : Table("state") {}
  IdColumn id{this, "id"};
  TimestampColumn ts{this, "ts"};
  DurationColumn dur{this, "dur"};
  UInt32Column track_id{this, "track_id"};
  StringColumn category{this, "category"};
  StringColumn value{this, "value"};
  UInt32Column arg_set_id{this, "arg_set_id", kNullable};

  uint32_t Insert(int64_t t, uint32_t track, StringId cat, StringId v) {
    ts.Append(t);
    dur.Append(-1);
    track_id.Append(track);
    category.Append(cat);
    value.Append(v);
    arg_set_id.AppendNull();
    return CommitRow();
  }
};

// Installed Android packages (PackagesList packets). As upstream, a package
// name is kept once: its first entry stands.
struct PackageListTable : Table {
  PackageListTable() : Table("package_list") {}
  IdColumn id{this, "id"};
  StringColumn package_name{this, "package_name"};
  Int64Column uid{this, "uid"};
  Int64Column debuggable{this, "debuggable"};
  Int64Column profileable_from_shell{this, "profileable_from_shell"};
  Int64Column version_code{this, "version_code"};

  uint32_t Insert(StringId name, int64_t u, bool debug, bool profileable, int64_t version) {
    package_name.Append(name);
    uid.Append(u);
    debuggable.Append(debug ? 1 : 0);
    profileable_from_shell.Append(profileable ? 1 : 0);
    version_code.Append(version);
    return CommitRow();
  }
};

// InterruptInfo packets: the names of the IRQ numbers. Read in file order;
// the first mapping of an irq on a machine stands.
struct InterruptMappingTable : Table {
  InterruptMappingTable() : Table("_linux_interrupt_mapping") {}
  IdColumn id{this, "id"};
  Int64Column irq_id{this, "irq_id"};
  StringColumn name{this, "name"};
  UInt32Column machine_id{this, "machine_id"};

  uint32_t Insert(int64_t irq, StringId n, uint32_t machine) {
    irq_id.Append(irq);
    name.Append(n);
    machine_id.Append(machine);
    return CommitRow();
  }
};

struct CounterTable : Table {
  CounterTable() : Table("counter") {}
  IdColumn id{this, "id"};
  TimestampColumn ts{this, "ts"};
  UInt32Column track_id{this, "track_id"};
  DoubleColumn value{this, "value"};
  UInt32Column arg_set_id{this, "arg_set_id", kNullable};
  UInt32Column machine_id{this, "machine_id", kNullable};

  uint32_t Insert(int64_t t, uint32_t track, double v) {
    ts.Append(t);
    track_id.Append(track);
    value.Append(v);
    arg_set_id.AppendNull();
    machine_id.AppendNull();
    return CommitRow();
  }
};

struct SliceTable : Table {
  SliceTable() : Table("slice") {}
  IdColumn id{this, "id"};
  TimestampColumn ts{this, "ts"};
  DurationColumn dur{this, "dur"};
  UInt32Column track_id{this, "track_id"};
  StringColumn category{this, "category"};
  StringColumn name{this, "name"};
  UInt32Column depth{this, "depth"};
  Int64Column stack_id{this, "stack_id"};
  Int64Column parent_stack_id{this, "parent_stack_id"};
  UInt32Column parent_id{this, "parent_id", kNullable};
  UInt32Column arg_set_id{this, "arg_set_id", kNullable};
  Int64Column thread_ts{this, "thread_ts", kNullable};
  Int64Column thread_dur{this, "thread_dur", kNullable};
  MirrorColumn<StringColumn> cat{this, "cat", &category};  // upstream's alias of category
  IdColumn slice_id{this, "slice_id"};                     // upstream keeps this alias of id

  uint32_t Insert(int64_t t, int64_t d, uint32_t track, StringId cat, StringId n, uint32_t dep,
                  optional<uint32_t> parent) {
    ts.Append(t);
    dur.Append(d);
    track_id.Append(track);
    category.Append(cat);
    name.Append(n);
    depth.Append(dep);
    stack_id.Append(0);
    parent_stack_id.Append(0);
    parent_id.Append(parent);
    arg_set_id.AppendNull();
    thread_ts.AppendNull();
    thread_dur.AppendNull();
    return CommitRow();
  }
};

struct FlowTable : Table {
  FlowTable() : Table("flow") {}
  IdColumn id{this, "id"};
  UInt32Column slice_out{this, "slice_out"};
  UInt32Column slice_in{this, "slice_in"};
  Int64Column trace_id{this, "trace_id", kNullable};
  UInt32Column arg_set_id{this, "arg_set_id", kNullable};

  uint32_t Insert(uint32_t out, uint32_t in) {
    slice_out.Append(out);
    slice_in.Append(in);
    trace_id.AppendNull();
    arg_set_id.AppendNull();
    return CommitRow();
  }
};

// ---- raw ftrace, args, logs -----------------------------------------------

struct FtraceEventTable : Table {
  FtraceEventTable() : Table("ftrace_event") {}
  IdColumn id{this, "id"};
  TimestampColumn ts{this, "ts"};
  StringColumn name{this, "name"};
  UInt16Column cpu{this, "cpu"};         // 2 bytes: see UInt16Column
  SmallUInt32Column utid{this, "utid"};  // 2 bytes while utids fit
  UInt32Column arg_set_id{this, "arg_set_id", kNullable};
  // Sparse: only given flags are stored (compact_sched wakings carry them);
  // a row without reads as 0 in SQL, as upstream's never-NULL column.
  SparseUInt32Column common_flags{this, "common_flags", SparseUInt32Column::kAbsentIsZero};
  MirrorColumn<UInt16Column> ucpu{this, "ucpu", &cpu};

  uint32_t Insert(int64_t t, StringId n, uint32_t c, uint32_t u, optional<uint32_t> args,
                  optional<uint32_t> flags) {
    return Insert(t, n, c, u, args.has_value(), args.value_or(0), flags.has_value(),
                  flags.value_or(0));
  }
  // The importer's form (see ThreadStateTable::kNone): presence as flags.
  uint32_t Insert(int64_t t, StringId n, uint32_t c, uint32_t u, bool has_args, uint32_t args,
                  bool has_flags, uint32_t flags) {
    assert(c <= UINT16_MAX);
    ts.Append(t);
    name.Append(n);
    cpu.Append(static_cast<uint16_t>(c));
    utid.Append(u);
    if (has_args) {
      arg_set_id.Append(args);
    } else {
      arg_set_id.AppendNull();
    }
    if (has_flags) {
      common_flags.Append(flags);
    } else {
      common_flags.AppendNull();
    }
    return CommitRow();
  }
};

struct ArgsTable;

// Arg sets whose rows are written on first read instead of at import: the raw
// ftrace events' args are most of a trace's rows and few queries read them.
// The importer keeps what it needs to write them later (event bytes, decoded
// compact_sched values) and the args table asks for them, in set order.
class DeferredArgSets {
 public:
  virtual ~DeferredArgSets() = default;
  // Sets waiting to be written.
  virtual size_t count() const = 0;
  // Walks them once by increasing set id: each call makes the next set current
  // and gives its id (false after the last).
  virtual bool NextSet(uint32_t* set) = 0;
  // Whether the current set's rows would repeat exactly those of an earlier
  // set of this walk; then `earlier` is that set's id and the caller may skip
  // the rows (ArgsTable shares equal sets anyway). Only asked when the final
  // ids are given; the default never says so.
  virtual bool RepeatsEarlierSet(uint32_t* earlier) {
    (void)earlier;
    return false;
  }
  // Appends the rows of the current set (ArgsTable::AppendResolved).
  virtual void AppendRows(ArgsTable* table) = 0;
  // Forgets every set (all were written) and frees what they needed.
  virtual void Clear() = 0;
};

// args: the most numerous rows of a trace (every raw ftrace event has several),
// so each row stores one 8-byte value slot and a 1-byte type instead of a
// column per value kind; int_value, string_value, real_value, value_type and
// display_value are computed from them when read.
//
// Rows of deferred sets (DeferredArgSets) are merged in, by set id, the first
// time anything reads the table: arg_set_id.data() (the way every reader
// finds a set's rows) and Table::PrepareForRead() (SQL) do it.
struct ArgsTable : Table {
  enum Kind : uint8_t { kNullKind, kIntKind, kRealKind, kStringKind };

  ArgsTable() : Table("args") {}

  // The value columns, computed from the slot and type of a row.
  struct IntValue final : ColumnBase {
    IntValue(ArgsTable* t) : ColumnBase(t, "int_value", SqlType::kInt, kNullable), t_(t) {}
    std::optional<int64_t> Get(uint32_t row) const {
      if (IsNull(row)) return std::nullopt;
      return t_->Slot(row);
    }
    bool IsNull(uint32_t row) const override { return t_->kind(row) != kIntKind; }
    int64_t GetInt(uint32_t row) const override { return t_->Slot(row); }
    double GetDouble(uint32_t row) const override { return static_cast<double>(t_->Slot(row)); }
    const ArgsTable* t_;
  };
  struct RealValue final : ColumnBase {
    RealValue(ArgsTable* t) : ColumnBase(t, "real_value", SqlType::kDouble, kNullable), t_(t) {}
    std::optional<double> Get(uint32_t row) const {
      if (IsNull(row)) return std::nullopt;
      return GetDouble(row);
    }
    bool IsNull(uint32_t row) const override { return t_->kind(row) != kRealKind; }
    int64_t GetInt(uint32_t row) const override { return static_cast<int64_t>(GetDouble(row)); }
    double GetDouble(uint32_t row) const override {
      double d;
      int64_t v = t_->Slot(row);
      memcpy(&d, &v, sizeof d);
      return d;
    }
    const ArgsTable* t_;
  };
  struct StringValue final : ColumnBase {
    StringValue(ArgsTable* t, const char* name)
        : ColumnBase(t, name, SqlType::kString, kNullable), t_(t) {}
    StringId operator[](uint32_t row) const {
      return t_->kind(row) == kStringKind ? static_cast<StringId>(t_->Slot(row)) : kNullStringId;
    }
    bool IsNull(uint32_t row) const override { return (*this)[row] == kNullStringId; }
    int64_t GetInt(uint32_t) const override { return 0; }
    double GetDouble(uint32_t) const override { return 0; }
    StringId GetStringId(uint32_t row) const override { return (*this)[row]; }
    const ArgsTable* t_;
  };
  struct ValueType final : ColumnBase {
    ValueType(ArgsTable* t) : ColumnBase(t, "value_type", SqlType::kString, kNullable), t_(t) {}
    StringId operator[](uint32_t row) const { return t_->types_[t_->type_[row] & kTypeMask].name; }
    bool IsNull(uint32_t row) const override { return (*this)[row] == kNullStringId; }
    int64_t GetInt(uint32_t) const override { return 0; }
    double GetDouble(uint32_t) const override { return 0; }
    StringId GetStringId(uint32_t row) const override { return (*this)[row]; }
    const ArgsTable* t_;
  };
  // Text as upstream displays it; formatted on read, never stored.
  struct DisplayValue final : ColumnBase {
    DisplayValue(ArgsTable* t)
        : ColumnBase(t, "display_value", SqlType::kString, kNullable), t_(t) {}
    // The interned string for string values (kNullStringId otherwise).
    StringId operator[](uint32_t row) const {
      return t_->kind(row) == kStringKind ? static_cast<StringId>(t_->Slot(row)) : kNullStringId;
    }
    // A NaN real displays as NULL: upstream's text is SQLite's, which has
    // no NaN (real_value is NULL too).
    bool IsNull(uint32_t row) const override {
      Kind k = t_->kind(row);
      if (k == kRealKind) return std::isnan(t_->real_value.GetDouble(row));
      return k == kNullKind;
    }
    int64_t GetInt(uint32_t) const override { return 0; }
    double GetDouble(uint32_t) const override { return 0; }
    StringId GetStringId(uint32_t row) const override { return (*this)[row]; }
    bool HasComputedText() const override { return true; }
    std::string ComputedText(uint32_t row, const StringPool& pool) const override;
    const ArgsTable* t_;
  };

  // flat_key equals key except for array elements ("a[0]" -> "a"), so only
  // the differing rows are stored (none at all until the first one).
  struct FlatKey final : ColumnBase {
    FlatKey(ArgsTable* t) : ColumnBase(t, "flat_key", SqlType::kString, kNullable), t_(t) {}
    void Append(StringId flat, StringId key) {
      if (flat == key && differing_.empty()) return;
      if (differing_.empty()) differing_.assign(t_->slot_lo_.size(), kNullStringId);
      differing_.push_back(flat == key ? kNullStringId : flat == kNullStringId ? kNullFlat : flat);
    }
    StringId operator[](uint32_t row) const {
      StringId d = differing_.empty() ? kNullStringId : differing_[row];
      if (d == kNullFlat) return kNullStringId;
      return d != kNullStringId ? d : t_->key[row];
    }
    static constexpr StringId kNullFlat = ~StringId{0};
    bool IsNull(uint32_t row) const override { return (*this)[row] == kNullStringId; }
    int64_t GetInt(uint32_t) const override { return 0; }
    double GetDouble(uint32_t) const override { return 0; }
    StringId GetStringId(uint32_t row) const override { return (*this)[row]; }
    const ArgsTable* t_;
    ColumnVector<StringId> differing_;  // empty, or kNullStringId = same as key
  };

  // Sorted. data() first writes the deferred sets' rows.
  struct SetIdColumn final : ColumnBase {
    SetIdColumn(ArgsTable* t) : ColumnBase(t, "arg_set_id", SqlType::kInt, kSorted), t_(t) {}
    const ColumnVector<uint32_t>& data() const {
      t_->EnsureMaterialized();
      return v_;
    }
    // The rows written so far, without deferred sets (for the importer,
    // whose own sets are never deferred).
    const ColumnVector<uint32_t>& written() const { return v_; }
    uint32_t operator[](uint32_t row) const { return v_[row]; }
    bool IsNull(uint32_t) const override { return false; }
    int64_t GetInt(uint32_t row) const override { return v_[row]; }
    double GetDouble(uint32_t row) const override { return v_[row]; }
    const ArgsTable* t_;
    ColumnVector<uint32_t> v_;
  };

  IdColumn id{this, "id"};
  SetIdColumn arg_set_id{this};
  FlatKey flat_key{this};
  StringColumn key{this, "key"};
  IntValue int_value{this};
  StringValue string_value{this, "string_value"};
  RealValue real_value{this};
  ValueType value_type{this};
  DisplayValue display_value{this};

  // `vt` is the interned value type name ("int", "uint", "bool", "pointer",
  // "real", "string", "json"); exactly one of iv/sv/rv is normally set.
  // `display` is accepted for API compatibility and ignored (computed).
  uint32_t Insert(uint32_t set, StringId fk, StringId k, optional<int64_t> iv, StringId sv,
                  optional<double> rv, StringId vt, StringId display = kNullStringId) {
    Kind kind = kNullKind;
    int64_t slot = 0;
    if (iv) {
      kind = kIntKind;
      slot = *iv;
    } else if (rv) {
      kind = kRealKind;
      memcpy(&slot, &*rv, sizeof slot);
    } else if (sv != kNullStringId) {
      kind = kStringKind;
      slot = sv;
    }
    arg_set_id.v_.push_back(set);
    flat_key.Append(fk, k);  // before slot_lo_ grows: it sizes from it
    key.Append(k);
    uint8_t type = TypeIndex(vt, kind);
    if (slot != static_cast<int32_t>(slot)) {
      type |= kWide;
      wide_.push_back({static_cast<uint32_t>(slot_lo_.size()), slot});
    }
    slot_lo_.push_back(static_cast<int32_t>(slot));
    type_.push_back(type);
    return CommitRow();
  }

  // Hot path for callers that insert many args of a few fixed types (raw
  // ftrace events): resolve the type once, then append with no optionals.
  uint8_t ResolveType(StringId vt, Kind kind) { return TypeIndex(vt, kind); }
  uint32_t AppendResolved(uint32_t set, StringId k, int64_t slot, uint8_t type) {
    arg_set_id.v_.push_back(set);
    flat_key.Append(k, k);
    key.Append(k);
    if (slot != static_cast<int32_t>(slot)) {
      type |= kWide;
      wide_.push_back({static_cast<uint32_t>(slot_lo_.size()), slot});
    }
    slot_lo_.push_back(static_cast<int32_t>(slot));
    type_.push_back(type);
    return CommitRow();
  }

  // Turns written row `row` into the string arg `k` = `value` (`vt` the
  // "string" type name), for args translated once the import ends. False
  // (row unchanged) when the value would need a wide slot.
  bool RewriteAsString(uint32_t row, StringId k, StringId value, StringId vt) {
    if (static_cast<int64_t>(value) != static_cast<int32_t>(value)) return false;
    key.Set(row, k);
    if (!flat_key.differing_.empty()) flat_key.differing_[row] = kNullStringId;
    slot_lo_[row] = static_cast<int32_t>(value);
    type_[row] = TypeIndex(vt, kStringKind);  // drops kWide: the old wide entry is unused
    return true;
  }

  void Reserve(size_t n) {
    arg_set_id.v_.reserve(n);
    key.Reserve(n);
    slot_lo_.reserve(n);
    type_.reserve(n);
  }

  // Deferred sets (owned here so they live as long as the table).
  void SetDeferred(std::unique_ptr<DeferredArgSets> d) { deferred_ = std::move(d); }
  DeferredArgSets* deferred() const { return deferred_.get(); }
  // Writes the deferred sets' rows now and, once the import has finished,
  // gives the sets their final ids (below). Thread-safe; cheap when nothing waits.
  void EnsureMaterialized() const {
    if (deferred_ || finalize_pending_.load(std::memory_order_acquire))
      const_cast<ArgsTable*>(this)->Materialize();
  }

  // Arg set ids. While importing, a set's id is provisional (1, 2, 3... in
  // commit order). Its final id, as upstream's, is the id of its first args
  // row, and a set equal to an earlier one (same keys, value types and
  // values, in order; told apart by two independent 64-bit digests, where
  // upstream uses one) takes that one's id and keeps no rows. Deduplicating
  // needs every set's rows, and the raw ftrace ones are only written when
  // the args table is first read (DeferredArgSets): so the final ids are
  // given then, in the same pass that writes those rows, and `remap`
  // (provisional id -> final id, kNoSet for a set without rows) rewrites
  // every other table's arg set columns. Anything reading an arg set column
  // calls EnsureMaterialized() first (SQL does, see table_vtab.cc).
  static constexpr uint32_t kNoSet = UINT32_MAX;
  // A set's two independent 64-bit digests (args_table.cc).
  struct SetDigest {
    uint64_t a, b;
  };
  using RemapFn = std::function<void(const std::vector<uint32_t>& remap)>;
  void SetRemapHook(RemapFn fn) { remap_hook_ = std::move(fn); }
  // The import is over: sets get their final ids on the next read, or now
  // when no deferred set waits (the pass then costs only the eager rows).
  void MarkImportFinished() {
    if (finalized_) return;
    finalize_pending_.store(true, std::memory_order_release);
    if (!deferred_ || deferred_->count() == 0) Materialize();
  }
  bool finalized() const { return finalized_; }
  void PrepareForRead() const override { EnsureMaterialized(); }
  // The type name strings used by display_value ("bool", "uint", "pointer").
  void SetTypeNames(StringId bool_name, StringId uint_name, StringId pointer_name) {
    bool_name_ = bool_name;
    uint_name_ = uint_name;
    pointer_name_ = pointer_name;
  }

 private:
  struct TypeEntry {
    StringId name;
    Kind kind;
  };
  struct WideSlot {
    uint32_t row;
    int64_t value;
  };
  // A set's rows, as the rebuild wrote them (its end is the next span's begin).
  struct SetSpan {
    uint32_t set;  // provisional id
    uint32_t begin;
  };
  void Materialize();                                                       // args_table.cc
  std::vector<uint32_t> ShareEqualSets(const std::vector<SetSpan>& spans);  // args_table.cc
  void KeepRows(const std::vector<SetSpan>& spans, const std::vector<uint8_t>& kept);
  void TruncateTo(uint32_t rows);                                            // args_table.cc
  SetDigest SetHash(uint32_t begin, uint32_t end, size_t* wide_next) const;  // args_table.cc
  Kind kind(uint32_t row) const { return types_[type_[row] & kTypeMask].kind; }
  // Most values (ids, pids, small ints) fit 32 bits: rows store the low half
  // and the few wide values (pointers, doubles, big uints) sit in a side
  // list ordered by row, flagged by the top bit of the row's type byte.
  int64_t Slot(uint32_t row) const {
    if (!(type_[row] & kWide)) return slot_lo_[row];
    auto it = std::lower_bound(wide_.begin(), wide_.end(), row,
                               [](const WideSlot& w, uint32_t r) { return w.row < r; });
    return it->value;
  }
  static constexpr uint8_t kWide = 0x80, kTypeMask = 0x7f;
  uint8_t TypeIndex(StringId name, Kind kind) {
    for (size_t i = 0; i < types_.size(); ++i)
      if (types_[i].name == name && types_[i].kind == kind) return static_cast<uint8_t>(i);
    types_.push_back({name, kind});
    assert(types_.size() <= kTypeMask + 1u);  // the top bit is kWide
    return static_cast<uint8_t>(types_.size() - 1);
  }

  ColumnVector<int32_t> slot_lo_;
  ColumnVector<WideSlot> wide_;  // by row
  ColumnVector<uint8_t> type_;
  std::vector<TypeEntry> types_;
  std::unique_ptr<DeferredArgSets> deferred_;
  std::mutex materialize_mu_;
  std::atomic<bool> finalize_pending_{false};
  bool finalized_ = false;
  RemapFn remap_hook_;
  StringId bool_name_ = kNullStringId, uint_name_ = kNullStringId, pointer_name_ = kNullStringId;
};

// A REAL as SQLite casts it to TEXT (upstream's display_value is that cast):
// 15 significant digits, always a decimal point ("431.0", "1.0e+20"), Inf and
// -Inf spelled so, and zero of either sign as "0.0".
inline std::string SqliteRealText(double d) {
  if (std::isinf(d)) return d > 0 ? "Inf" : "-Inf";
  if (d == 0) return "0.0";
  char buf[64];
  snprintf(buf, sizeof buf, "%.15g", d);
  std::string s = buf;
  size_t e = s.find('e');
  std::string_view mantissa = std::string_view(s).substr(0, e);
  if (mantissa.find('.') == std::string_view::npos)
    s.insert(e == std::string::npos ? s.size() : e, ".0");
  return s;
}

inline std::string ArgsTable::DisplayValue::ComputedText(uint32_t row,
                                                         const StringPool& pool) const {
  const TypeEntry& type = t_->types_[t_->type_[row] & kTypeMask];
  int64_t v = t_->Slot(row);
  char buf[64];
  switch (type.kind) {
    case kNullKind:
      return {};
    case kStringKind:
      return std::string(pool.Get(static_cast<StringId>(v)));
    case kRealKind: {
      double d;
      memcpy(&d, &v, sizeof d);
      return SqliteRealText(d);
    }
    case kIntKind:
      if (type.name == t_->bool_name_) return v ? "true" : "false";
      if (type.name == t_->uint_name_)
        snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
      else if (type.name == t_->pointer_name_)
        snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
      else
        snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
      return buf;
  }
  return {};
}

struct AndroidLogTable : Table {
  AndroidLogTable() : Table("android_logs") {}
  IdColumn id{this, "id"};
  Int64Column ts{this, "ts"};
  UInt32Column utid{this, "utid", kNullable};  // NULL: a journald entry without a pid
  Int64Column prio{this, "prio"};
  StringColumn tag{this, "tag"};
  StringColumn msg{this, "msg"};
  UInt32Column arg_set_id{this, "arg_set_id", kNullable};
  // "android" (logcat) or "systemd_journald"; the `logs` view shows both,
  // android_logs only the first, as upstream's.
  StringColumn log_source{this, "log_source"};

  uint32_t Insert(int64_t t, optional<uint32_t> u, int64_t p, StringId tg, StringId m,
                  StringId source) {
    ts.Append(t);
    utid.Append(u);
    prio.Append(p);
    tag.Append(tg);
    msg.Append(m);
    arg_set_id.AppendNull();
    log_source.Append(source);
    return CommitRow();
  }
};

// ---- trace-level tables ---------------------------------------------------

// A metadata row or stat belongs to the whole load, to one trace, to one
// machine or to one machine within one trace (upstream's scopes): the ids it
// is not scoped by are NULL.
struct RowScope {
  optional<uint32_t> machine_id;
  optional<uint32_t> trace_id;
};

struct MetadataTable : Table {
  MetadataTable() : Table("metadata") {}
  IdColumn id{this, "id"};
  StringColumn name{this, "name"};
  StringColumn key_type{this, "key_type"};
  Int64Column int_value{this, "int_value", kNullable};
  StringColumn str_value{this, "str_value"};
  UInt32Column machine_id{this, "machine_id", kNullable};
  UInt32Column trace_id{this, "trace_id", kNullable};

  uint32_t Insert(StringId n, StringId kt, optional<int64_t> iv, StringId sv, RowScope scope = {}) {
    name.Append(n);
    key_type.Append(kt);
    int_value.Append(iv);
    str_value.Append(sv);
    machine_id.Append(scope.machine_id);
    trace_id.Append(scope.trace_id);
    return CommitRow();
  }
};

struct StatsTable : Table {
  StatsTable() : Table("stats") {}
  IdColumn id{this, "id"};
  StringColumn name{this, "name"};
  // Upstream's number for the stat (stat_keys.h); NULL for stats it lacks.
  Int64Column key{this, "key", kNullable};
  Int64Column idx{this, "idx", kNullable};
  StringColumn severity{this, "severity"};
  StringColumn source{this, "source"};
  Int64Column value{this, "value"};
  StringColumn description{this, "description"};
  UInt32Column machine_id{this, "machine_id", kNullable};
  UInt32Column trace_id{this, "trace_id", kNullable};

  uint32_t Insert(StringId n, optional<int64_t> k, optional<int64_t> i, StringId sev, StringId src,
                  int64_t v, StringId desc, RowScope scope = {}) {
    name.Append(n);
    key.Append(k);
    idx.Append(i);
    severity.Append(sev);
    source.Append(src);
    value.Append(v);
    description.Append(desc);
    machine_id.Append(scope.machine_id);
    trace_id.Append(scope.trace_id);
    return CommitRow();
  }
};

// One row per machine that recorded part of the trace: row 0 is the host
// (packets without TracePacket.machine_id), the others are keyed by the raw
// id those packets carry. Descriptive columns come from the machine's
// SystemInfo packet.
struct MachineTable : Table {
  MachineTable() : Table("machine") {}
  IdColumn id{this, "id"};
  Int64Column raw_id{this, "raw_id"};
  StringColumn name{this, "name"};
  StringColumn sysname{this, "sysname"};
  StringColumn release{this, "release"};
  StringColumn version{this, "version"};
  StringColumn arch{this, "arch"};
  Int64Column num_cpus{this, "num_cpus", kNullable};
  StringColumn android_build_fingerprint{this, "android_build_fingerprint"};
  StringColumn android_device_manufacturer{this, "android_device_manufacturer"};
  Int64Column android_sdk_version{this, "android_sdk_version", kNullable};
  Int64Column system_ram_bytes{this, "system_ram_bytes", kNullable};
  Int64Column system_ram_gb{this, "system_ram_gb", kNullable};
  Int64Column label_index{this, "label_index"};

  uint32_t Insert(int64_t raw) {
    raw_id.Append(raw);
    name.Append(kNullStringId);
    sysname.Append(kNullStringId);
    release.Append(kNullStringId);
    version.Append(kNullStringId);
    arch.Append(kNullStringId);
    num_cpus.AppendNull();
    android_build_fingerprint.Append(kNullStringId);
    android_device_manufacturer.Append(kNullStringId);
    android_sdk_version.AppendNull();
    system_ram_bytes.AppendNull();
    system_ram_gb.AppendNull();
    // Machines are labelled in order of appearance.
    label_index.Append(static_cast<int64_t>(row_count()));
    return CommitRow();
  }
};

// Problems found in the trace's own recording setup (its TraceConfig and
// what the recording reported), one row each; see core/import/trace_diagnostics.h.
struct TraceDiagnosticsTable : Table {
  TraceDiagnosticsTable() : Table("__intrinsic_trace_diagnostics") {}
  IdColumn id{this, "id"};
  StringColumn key{this, "key"};
  StringColumn title{this, "title"};
  StringColumn description{this, "description"};
  StringColumn remediation{this, "remediation"};
  DoubleColumn confidence{this, "confidence"};
  UInt32Column trace_id{this, "trace_id", kNullable};

  uint32_t Insert(StringId k, StringId t, StringId desc, StringId fix, double conf,
                  uint32_t trace) {
    key.Append(k);
    title.Append(t);
    description.Append(desc);
    remediation.Append(fix);
    confidence.Append(conf);
    trace_id.Append(trace);
    return CommitRow();
  }
};

// One row per problem an importer met with one event (upstream's
// `_trace_import_logs`): the stat it counted (name, severity), when, and args
// saying which event and why. Stats only count; this says which ones.
struct TraceImportLogsTable : Table {
  TraceImportLogsTable() : Table("_trace_import_logs") {}
  IdColumn id{this, "id"};
  UInt32Column trace_id{this, "trace_id"};
  Int64Column ts{this, "ts", kNullable};  // NULL: a problem met before the event had a time
  Int64Column byte_offset{this, "byte_offset", kNullable};
  StringColumn severity{this, "severity"};
  StringColumn name{this, "name"};
  UInt32Column arg_set_id{this, "arg_set_id", kNullable};

  uint32_t Insert(uint32_t trace, optional<int64_t> t, StringId sev, StringId n,
                  optional<uint32_t> args) {
    trace_id.Append(trace);
    ts.Append(t);
    byte_offset.AppendNull();
    severity.Append(sev);
    name.Append(n);
    arg_set_id.Append(args);
    return CommitRow();
  }
};

// One row per file of the load (upstream's `__intrinsic_trace_file`): the
// file itself, each archive member and what a gzip/zstd wrapper holds, with
// its container (parent_id), detected trace type and the order upstream
// processes them in.
struct TraceFileTable : Table {
  TraceFileTable() : Table("__intrinsic_trace_file") {}
  IdColumn id{this, "id"};
  UInt32Column parent_id{this, "parent_id", kNullable};
  StringColumn name{this, "name"};
  Int64Column size{this, "size"};
  StringColumn trace_type{this, "trace_type"};
  Int64Column processing_order{this, "processing_order"};
  UInt32Column is_container{this, "is_container"};

  uint32_t Insert(optional<uint32_t> parent, StringId n, StringId type, bool container) {
    parent_id.Append(parent);
    name.Append(n);
    size.Append(0);
    trace_type.Append(type);
    processing_order.Append(0);
    is_container.Append(container ? 1 : 0);
    return CommitRow();
  }
};

// One row per CPU, by ucpu (= id). As upstream, the rows live in
// __intrinsic_cpu and the `cpu` view shows those whose cpu is known: a CPU
// that events ran on or cpuinfo described (see FillCpuRowsFromEvents).
struct CpuTable : Table {
  CpuTable() : Table("__intrinsic_cpu") {}
  IdColumn id{this, "id"};
  IdColumn ucpu{this, "ucpu"};
  UInt32Column cpu{this, "cpu", kNullable};
  UInt32Column cluster_id{this, "cluster_id"};
  StringColumn processor{this, "processor"};
  UInt32Column machine_id{this, "machine_id", kNullable};
  UInt32Column capacity{this, "capacity", kNullable};
  UInt32Column arg_set_id{this, "arg_set_id", kNullable};

  // The row of host CPU `c`, made (with the rows before it) if missing.
  uint32_t Ensure(uint32_t c) {
    while (row_count() <= c) {
      cpu.AppendNull();
      cluster_id.Append(0);
      processor.Append(kNullStringId);
      machine_id.Append(kHostMachineId);
      capacity.AppendNull();
      arg_set_id.AppendNull();
      CommitRow();
    }
    if (!cpu.Get(c)) cpu.Set(c, c);
    return c;
  }
};

struct CpuFreqTable : Table {
  CpuFreqTable() : Table("cpu_available_frequencies") {}
  IdColumn id{this, "id"};
  UInt32Column cpu{this, "cpu"};
  Int64Column freq{this, "freq"};
  UInt32Column ucpu{this, "ucpu"};

  uint32_t Insert(uint32_t c, int64_t f) {
    cpu.Append(c);
    freq.Append(f);
    ucpu.Append(c);
    return CommitRow();
  }
};

struct TraceBoundsTable : Table {
  TraceBoundsTable() : Table("trace_bounds") {}
  Int64Column start_ts{this, "start_ts"};
  Int64Column end_ts{this, "end_ts"};
  void Set(int64_t start, int64_t end) {
    if (row_count() == 0) {
      start_ts.Append(start);
      end_ts.Append(end);
      CommitRow();
    } else {
      start_ts.Set(0, start);
      end_ts.Set(0, end);
    }
  }
};

}  // namespace fathom
