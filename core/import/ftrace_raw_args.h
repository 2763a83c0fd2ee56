// The args of raw ftrace events (ftrace_event.arg_set_id), written on first
// read of the args table rather than at import (DeferredArgSets).
//
// Most args rows of a trace belong to raw ftrace events; decoding and
// interning them for every event was the largest single cost of an import.
// At import each raw event now costs one 16-byte entry, a pointer to its
// payload in the retained trace bytes, or for compact_sched a record of the
// already decoded values with its set id (28 bytes a switch, 16 a waking: prios
// and target CPUs in 16 bits, prev_state in 32; the rare event whose values do
// not fit keeps them whole in a side list).
// When the args table is first read, the three lists, each in set order, are
// merged and decoded into exactly the rows an eager import writes.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/base/column_vector.h"
#include "core/import/ftrace_descriptors.h"
#include "core/import/proto_decoder.h"
#include "core/import/repeated_content_table.h"
#include "core/import/trace_blob.h"
#include "core/storage/trace_storage.h"

namespace fathom {

class FtraceRawArgs final : public DeferredArgSets {
 public:
  explicit FtraceRawArgs(TraceStorage* storage);
  ~FtraceRawArgs() override;

  const FtraceDescriptors& descriptors() const { return descriptors_; }

  // Whether raw event `info` with this payload has any args (an arg set).
  static bool HasArgs(const FtraceEventInfo& info, proto::Bytes payload);

  // Writes the args of a raw event now (payloads not kept alive until the
  // args table is read, e.g. converted systrace text).
  void WriteEventArgs(uint32_t set, const FtraceEventInfo& info, proto::Bytes payload,
                      ArgsTable* table);
  // Defers them; `payload` must stay valid until Retain() takes its owner
  // (false when it cannot be deferred: write them now instead).
  bool DeferEvent(uint32_t set, uint32_t event_id, proto::Bytes payload);
  // Whether DeferEvent would take this event (decided without deferring it).
  static bool CanDefer(uint32_t event_id, proto::Bytes payload) {
    return event_id <= kIdMask && payload.size <= kMaxPayload;
  }
  // sched_switch args from decoded values (compact_sched).
  struct Switch {
    StringId prev_comm, next_comm;
    int32_t prev_pid, prev_prio, next_pid, next_prio;
    int64_t prev_state;
  };
  void DeferSwitch(uint32_t set, const Switch& s);
  // sched_waking args from decoded values (compact_sched).
  struct Waking {
    StringId comm;
    int32_t pid, prio, target_cpu;
  };
  void DeferWaking(uint32_t set, const Waking& w);

  // Keeps the buffers that deferred payloads point into (when any do).
  void Retain(std::vector<std::unique_ptr<TraceBlob>>* blobs);
  size_t memory_bytes() const;
  // Capacity for this many compact_sched switches / wakings (from the file
  // size, like the tables): no reallocation copies while importing.
  void Reserve(size_t switches, size_t wakings) {
    switches_.reserve(switches);
    wakings_.reserve(wakings);
  }

  // DeferredArgSets.
  size_t count() const override { return entries_.size() + switches_.size() + wakings_.size(); }
  bool NextSet(uint32_t* set) override;
  bool RepeatsEarlierSet(uint32_t* earlier) override;
  void AppendRows(ArgsTable* table) override;
  void Clear() override;

 private:
  // NextSet's walk: the next unread position of each list, and the current set.
  enum class Current : uint8_t { kNone, kEntry, kSwitch, kWaking };
  // `tag` holds the event id (low 11 bits) and the payload size above it.
  struct Entry {
    const uint8_t* data;
    uint32_t set;
    uint32_t tag;
  };
  // A Switch in 28 bytes. Kernel priorities fit 16 bits and task states 32; a
  // switch whose values do not has prev_state kWide here and is whole in
  // wide_switches_ (in set order, like every list).
  struct SwitchRow {
    uint32_t set;
    StringId prev_comm, next_comm;
    int32_t prev_pid, next_pid;
    int16_t prev_prio, next_prio;
    uint32_t prev_state;
  };
  // A Waking in 16 bytes; target_cpu kWide16 (CPUs stop at 4096) marks one whole in
  // wide_wakings_.
  struct WakingRow {
    uint32_t set;
    StringId comm;
    int32_t pid;
    int16_t prio;
    uint16_t target_cpu;
  };
  static constexpr uint32_t kWide = UINT32_MAX;
  static constexpr uint16_t kWide16 = UINT16_MAX;
  struct WideSwitch {
    uint32_t set;
    Switch s;
  };
  struct WideWaking {
    uint32_t set;
    Waking w;
  };
  static_assert(sizeof(SwitchRow) == 28 && sizeof(WakingRow) == 16);
  static_assert(sizeof(Entry) == 16);
  static constexpr uint32_t kIdBits = 11;
  static constexpr uint32_t kIdMask = (1u << kIdBits) - 1;
  static constexpr uint32_t kMaxPayload = (1u << (32 - kIdBits)) - 1;

  // The content hash of element `index` of list `which`; false when that
  // element is not compared by content (its values are in a wide side list).
  bool ContentHash(Current which, size_t index, RepeatedContentTable::Digest* d) const;
  // A string arg; NULL strings get their own value type, as the sched parser wrote them.
  void AppendString(uint32_t set, StringId key, StringId v, ArgsTable* t) const;

  TraceStorage* storage_;
  FtraceDescriptors descriptors_;
  ColumnVector<Entry> entries_;  // grows without copies (column_vector.h)
  ColumnVector<SwitchRow> switches_;
  ColumnVector<WakingRow> wakings_;
  std::vector<WideSwitch> wide_switches_;
  std::vector<WideWaking> wide_wakings_;
  size_t next_wide_switch_ = 0, next_wide_waking_ = 0;
  // RepeatsEarlierSet: the first of each content, and per list (entries,
  // switches, wakings) the digests taken ahead of their turn. It sees every
  // element of a walk in order, so element i's digest is in slot i % size.
  RepeatedContentTable repeats_;
  static constexpr size_t kAheadSets = 32;
  struct AheadRing {
    RepeatedContentTable::Digest digest[kAheadSets] = {};
    bool comparable[kAheadSets] = {};
  };
  AheadRing rings_[3];
  size_t next_entry_ = 0, next_switch_ = 0, next_waking_ = 0;
  Current current_ = Current::kNone;
  size_t current_index_ = 0;
  std::vector<std::unique_ptr<TraceBlob>> blobs_;
  // Arg keys of sched_switch / sched_waking by field number.
  StringId ss_keys_[8] = {}, sw_keys_[6] = {};
  uint8_t type_int_, type_uint_, type_string_, type_null_string_, type_real_;
};

}  // namespace fathom
