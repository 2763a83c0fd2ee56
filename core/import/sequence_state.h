// Per-sequence incremental state (interned data, TracePacketDefaults). A
// "generation" lasts from one SEQ_INCREMENTAL_STATE_CLEARED to the next; every
// sorted packet remembers the generation it was tokenized in, so interned ids
// resolve correctly even though parsing happens after sorting.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>

#include "core/import/proto_decoder.h"

namespace fathom {

struct SequenceGeneration {
  uint32_t sequence_id = 0;
  bool valid = true;  // false after data loss until the next clear
  std::optional<proto::Bytes> trace_packet_defaults;
  uint32_t default_clock_id = 0;  // TracePacketDefaults.timestamp_clock_id (0 = unset)

  // Interned messages by (InternedData field number, iid).
  const proto::Bytes* GetInterned(uint32_t field_id, uint64_t iid) const {
    auto it = interned.find(Key(field_id, iid));
    return it == interned.end() ? nullptr : &it->second;
  }
  void AddInterned(uint32_t field_id, uint64_t iid, proto::Bytes b) {
    interned[Key(field_id, iid)] = b;
  }

  // Free-form per-generation state for parsers (e.g. TrackEvent incremental
  // counter values keyed by track uuid).
  std::unordered_map<uint64_t, int64_t> incremental_values;

  // TrackEvent legacy thread association, set by the TrackEvent tokenizer from
  // ThreadDescriptor packets and thread TrackDescriptors: events without an
  // explicit track fall back to this thread.
  bool pid_tid_valid = false;
  int64_t pid = 0;
  int64_t tid = 0;
  // Legacy delta-encoded TrackEvent timestamps (ThreadDescriptor reference
  // values, advanced by every timestamp_delta_us / thread_time_delta_us).
  int64_t reference_timestamp_ns = 0;
  int64_t reference_thread_time_ns = 0;
  // A StreamingProfilePacket delta took the reference out of int64 ns: every
  // later delta-timed sample and TrackEvent of the sequence is dropped (and
  // counted) until a ThreadDescriptor sets a new reference.
  bool reference_timestamp_invalid = false;

 private:
  static uint64_t Key(uint32_t field_id, uint64_t iid) {
    return (static_cast<uint64_t>(field_id) << 52) ^ iid;
  }
  std::unordered_map<uint64_t, proto::Bytes> interned;
};

}  // namespace fathom
