#include "core/import/ftrace_raw_args.h"

#include <cstring>

#include "perfetto/trace/ftrace/ftrace_event_bundle.pb.h"

namespace fathom {

using perfetto::protos::FtraceEvent;
using perfetto::protos::SchedSwitchFtraceEvent;
using perfetto::protos::SchedWakingFtraceEvent;

FtraceRawArgs::FtraceRawArgs(TraceStorage* storage) : storage_(storage), descriptors_(storage) {
  const FtraceEventInfo* ss = descriptors_.Get(FtraceEvent::kSchedSwitchFieldNumber);
  const FtraceEventInfo* sw = descriptors_.Get(FtraceEvent::kSchedWakingFieldNumber);
  for (uint32_t i = 0; i < 8; ++i) ss_keys_[i] = i < ss->fields.size() ? ss->fields[i].name : 0;
  for (uint32_t i = 0; i < 6; ++i) sw_keys_[i] = i < sw->fields.size() ? sw->fields[i].name : 0;
  ArgsTable& t = storage->args;
  StringId string_name = storage->Intern("string");
  type_int_ = t.ResolveType(storage->Intern("int"), ArgsTable::kIntKind);
  type_uint_ = t.ResolveType(storage->Intern("uint"), ArgsTable::kIntKind);
  type_string_ = t.ResolveType(string_name, ArgsTable::kStringKind);
  type_null_string_ = t.ResolveType(string_name, ArgsTable::kNullKind);
  type_real_ = t.ResolveType(storage->Intern("real"), ArgsTable::kRealKind);
}

FtraceRawArgs::~FtraceRawArgs() = default;

bool FtraceRawArgs::HasArgs(const FtraceEventInfo& info, proto::Bytes payload) {
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id < info.fields.size() && info.fields[f.id].type != FtraceArgType::kNone) return true;
  return false;
}

void FtraceRawArgs::WriteEventArgs(uint32_t set, const FtraceEventInfo& info, proto::Bytes payload,
                                   ArgsTable* t) {
  // Rows in payload order, one per field our protos know (the raw table's
  // contract, as upstream).
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id >= info.fields.size()) continue;
    const FtraceFieldInfo& fi = info.fields[f.id];
    int64_t slot;
    switch (fi.type) {
      case FtraceArgType::kInt:
        t->AppendResolved(set, fi.name, f.as_int64(), type_int_);
        break;
      case FtraceArgType::kUint:
        t->AppendResolved(set, fi.name, static_cast<int64_t>(f.as_uint64()), type_uint_);
        break;
      case FtraceArgType::kSint:
        t->AppendResolved(set, fi.name, f.as_sint64(), type_int_);
        break;
      case FtraceArgType::kString: {
        StringId s = storage_->Intern(f.as_string());
        t->AppendResolved(set, fi.name, s, s == kNullStringId ? type_null_string_ : type_string_);
        break;
      }
      case FtraceArgType::kDouble: {
        double v = f.as_double();
        memcpy(&slot, &v, sizeof slot);
        t->AppendResolved(set, fi.name, slot, type_real_);
        break;
      }
      case FtraceArgType::kFloat: {
        double v = static_cast<double>(f.as_float());
        memcpy(&slot, &v, sizeof slot);
        t->AppendResolved(set, fi.name, slot, type_real_);
        break;
      }
      case FtraceArgType::kNone:
        break;
    }
  }
}

bool FtraceRawArgs::DeferEvent(uint32_t set, uint32_t event_id, proto::Bytes payload) {
  if (!CanDefer(event_id, payload)) return false;
  Entry e;
  e.data = payload.data;
  e.set = set;
  e.tag = event_id | static_cast<uint32_t>(payload.size) << kIdBits;
  entries_.push_back(e);
  return true;
}

namespace {
bool FitsInt16(int32_t v) { return v >= INT16_MIN && v <= INT16_MAX; }
}  // namespace

void FtraceRawArgs::DeferSwitch(uint32_t set, const Switch& s) {
  bool narrow =
      s.prev_state >= 0 && s.prev_state < kWide && FitsInt16(s.prev_prio) && FitsInt16(s.next_prio);
  uint32_t state = narrow ? static_cast<uint32_t>(s.prev_state) : kWide;
  switches_.push_back({set, s.prev_comm, s.next_comm, s.prev_pid, s.next_pid,
                       static_cast<int16_t>(narrow ? s.prev_prio : 0),
                       static_cast<int16_t>(narrow ? s.next_prio : 0), state});
  if (!narrow) wide_switches_.push_back({set, s});
}

void FtraceRawArgs::DeferWaking(uint32_t set, const Waking& w) {
  bool narrow = FitsInt16(w.prio) && w.target_cpu >= 0 && w.target_cpu < kWide16;
  wakings_.push_back({set, w.comm, w.pid, static_cast<int16_t>(narrow ? w.prio : 0),
                      narrow ? static_cast<uint16_t>(w.target_cpu) : kWide16});
  if (!narrow) wide_wakings_.push_back({set, w});
}

void FtraceRawArgs::Retain(std::vector<std::unique_ptr<TraceBlob>>* blobs) {
  if (entries_.empty()) return;
  for (auto& b : *blobs) blobs_.push_back(std::move(b));
  blobs->clear();
}

size_t FtraceRawArgs::memory_bytes() const {
  size_t n = entries_.capacity() * sizeof(Entry) + switches_.capacity() * sizeof(SwitchRow) +
             wakings_.capacity() * sizeof(WakingRow) +
             wide_switches_.capacity() * sizeof(WideSwitch) +
             wide_wakings_.capacity() * sizeof(WideWaking);
  for (const auto& b : blobs_) n += b->size;
  return n;
}

void FtraceRawArgs::AppendString(uint32_t set, StringId key, StringId v, ArgsTable* t) const {
  t->AppendResolved(set, key, v, v == kNullStringId ? type_null_string_ : type_string_);
}

bool FtraceRawArgs::NextSet(uint32_t* set) {
  // Each list is in set order (sets are taken as events are written): the next
  // set is the smallest of the three heads.
  current_ = Current::kNone;
  uint32_t best = 0;
  auto consider = [&](uint32_t s, Current which) {
    if (current_ == Current::kNone || s < best) {
      best = s;
      current_ = which;
    }
  };
  if (next_entry_ < entries_.size()) consider(entries_[next_entry_].set, Current::kEntry);
  if (next_switch_ < switches_.size()) consider(switches_[next_switch_].set, Current::kSwitch);
  if (next_waking_ < wakings_.size()) consider(wakings_[next_waking_].set, Current::kWaking);
  switch (current_) {
    case Current::kNone:
      return false;
    case Current::kEntry:
      current_index_ = next_entry_++;
      break;
    case Current::kSwitch:
      current_index_ = next_switch_++;
      break;
    case Current::kWaking:
      current_index_ = next_waking_++;
      break;
  }
  *set = best;
  return true;
}

// Content is what AppendRows reads: an event's id and payload bytes, or a
// compact record's values (its bytes after the set id: the records have no
// padding). The rare record whose values sit whole in a side list is not
// compared (it is simply written).
bool FtraceRawArgs::ContentHash(Current which, size_t index,
                                RepeatedContentTable::Digest* d) const {
  switch (which) {
    case Current::kEntry: {
      const Entry& e = entries_[index];
      *d = RepeatedContentTable::Hash(e.data, e.tag >> kIdBits, e.tag);
      return true;
    }
    case Current::kSwitch: {
      const SwitchRow& r = switches_[index];
      if (r.prev_state == kWide) return false;
      *d = RepeatedContentTable::Hash(&r.prev_comm, sizeof r - sizeof r.set, uint64_t{1} << 40);
      return true;
    }
    case Current::kWaking: {
      const WakingRow& r = wakings_[index];
      if (r.target_cpu == kWide16) return false;
      *d = RepeatedContentTable::Hash(&r.comm, sizeof r - sizeof r.set, uint64_t{2} << 40);
      return true;
    }
    case Current::kNone:
      break;
  }
  return false;
}

bool FtraceRawArgs::RepeatsEarlierSet(uint32_t* earlier) {
  if (!repeats_.enabled() || current_ == Current::kNone) return false;
  // Each probe is a random access into a table far bigger than the caches,
  // and an event's payload one into the trace (sets are walked in time order,
  // payloads lie in CPU bundles): the element kAheadSets further along the
  // same list has its digest taken (kept in the list's ring until its turn)
  // and its probe prefetched now, and the payload twice as far is fetched.
  const size_t i = current_index_, slot = i % kAheadSets;
  size_t list_size = entries_.size();
  uint32_t set = 0;
  switch (current_) {
    case Current::kEntry:
      set = entries_[i].set;
      if (i + 2 * kAheadSets < list_size) __builtin_prefetch(entries_[i + 2 * kAheadSets].data);
      break;
    case Current::kSwitch:
      list_size = switches_.size();
      set = switches_[i].set;
      break;
    case Current::kWaking:
      list_size = wakings_.size();
      set = wakings_[i].set;
      break;
    case Current::kNone:
      return false;
  }
  AheadRing& ring = rings_[static_cast<size_t>(current_) - 1];
  RepeatedContentTable::Digest d;
  bool comparable = i >= kAheadSets ? ring.comparable[slot] : ContentHash(current_, i, &d);
  if (i >= kAheadSets) d = ring.digest[slot];
  if (i + kAheadSets < list_size) {
    ring.comparable[slot] = ContentHash(current_, i + kAheadSets, &ring.digest[slot]);
    if (ring.comparable[slot]) repeats_.Prefetch(ring.digest[slot]);
  }
  if (!comparable) return false;
  std::optional<uint32_t> first = repeats_.FindOrInsert(d, set);
  if (!first) return false;
  *earlier = *first;
  return true;
}

void FtraceRawArgs::AppendRows(ArgsTable* t) {
  if (current_ == Current::kSwitch) {
    // In proto field order, every field, as the sched parser wrote them.
    using SS = SchedSwitchFtraceEvent;
    const SwitchRow& s = switches_[current_index_];
    Switch whole{s.prev_comm, s.next_comm, s.prev_pid,  s.prev_prio,
                 s.next_pid,  s.next_prio, s.prev_state};
    if (s.prev_state == kWide && next_wide_switch_ < wide_switches_.size() &&
        wide_switches_[next_wide_switch_].set == s.set)
      whole = wide_switches_[next_wide_switch_++].s;
    auto str = [&](StringId key, StringId v) { AppendString(s.set, key, v, t); };
    str(ss_keys_[SS::kPrevCommFieldNumber], whole.prev_comm);
    t->AppendResolved(s.set, ss_keys_[SS::kPrevPidFieldNumber], whole.prev_pid, type_int_);
    t->AppendResolved(s.set, ss_keys_[SS::kPrevPrioFieldNumber], whole.prev_prio, type_int_);
    t->AppendResolved(s.set, ss_keys_[SS::kPrevStateFieldNumber], whole.prev_state, type_int_);
    str(ss_keys_[SS::kNextCommFieldNumber], whole.next_comm);
    t->AppendResolved(s.set, ss_keys_[SS::kNextPidFieldNumber], whole.next_pid, type_int_);
    t->AppendResolved(s.set, ss_keys_[SS::kNextPrioFieldNumber], whole.next_prio, type_int_);
    return;
  }
  if (current_ == Current::kWaking) {
    using SW = SchedWakingFtraceEvent;
    const WakingRow& r = wakings_[current_index_];
    Waking w{r.comm, r.pid, r.prio, r.target_cpu};
    if (r.target_cpu == kWide16 && next_wide_waking_ < wide_wakings_.size() &&
        wide_wakings_[next_wide_waking_].set == r.set)
      w = wide_wakings_[next_wide_waking_++].w;
    AppendString(r.set, sw_keys_[SW::kCommFieldNumber], w.comm, t);
    t->AppendResolved(r.set, sw_keys_[SW::kPidFieldNumber], w.pid, type_int_);
    t->AppendResolved(r.set, sw_keys_[SW::kPrioFieldNumber], w.prio, type_int_);
    t->AppendResolved(r.set, sw_keys_[SW::kTargetCpuFieldNumber], w.target_cpu, type_int_);
    return;
  }
  if (current_ != Current::kEntry) return;
  const Entry& e = entries_[current_index_];
  const FtraceEventInfo* info = descriptors_.Get(e.tag & kIdMask);
  if (info) WriteEventArgs(e.set, *info, proto::Bytes{e.data, e.tag >> kIdBits}, t);
}

void FtraceRawArgs::Clear() {
  ColumnVector<Entry>().swap(entries_);
  ColumnVector<SwitchRow>().swap(switches_);
  ColumnVector<WakingRow>().swap(wakings_);
  std::vector<WideSwitch>().swap(wide_switches_);
  std::vector<WideWaking>().swap(wide_wakings_);
  next_entry_ = next_switch_ = next_waking_ = next_wide_switch_ = next_wide_waking_ = 0;
  current_ = Current::kNone;
  blobs_.clear();
  repeats_ = RepeatedContentTable();
  for (AheadRing& r : rings_) r = AheadRing{};
}

}  // namespace fathom
