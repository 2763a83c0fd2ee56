#include "core/import/track_event_tokenizer.h"

#include <string>

#include "core/import/clock_tracker.h"
#include "core/import/proto_tokenizer.h"
#include "core/import/track_event_parser.h"
#include "core/import/track_event_tracks.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {
namespace {

using perfetto::protos::CounterDescriptor;
using perfetto::protos::ProcessDescriptor;
using perfetto::protos::ThreadDescriptor;
using perfetto::protos::TracePacket;
using perfetto::protos::TracePacketDefaults;
using perfetto::protos::TrackDescriptor;
using perfetto::protos::TrackEvent;
using perfetto::protos::TrackEventDefaults;
using proto::Bytes;
using proto::Decoder;
using proto::Field;
using proto::WireType;

constexpr uint64_t kUsToNs = 1000;  // unsigned: us -> ns wraps instead of overflowing (UB)

// Appends every value of a repeated varint field occurrence (packed or not).
void AppendVarints(const Field& f, std::vector<uint64_t>* out) {
  if (f.type == WireType::kVarint) {
    out->push_back(f.int_value);
  } else if (f.type == WireType::kLengthDelimited) {
    proto::PackedVarints it(f.bytes);
    uint64_t v;
    while (it.Next(&v)) out->push_back(v);
  }
}

// Appends every value of a repeated double field occurrence (packed or not).
void AppendDoubles(const Field& f, std::vector<double>* out) {
  if (f.type == WireType::kFixed64) {
    out->push_back(f.as_double());
  } else if (f.type == WireType::kLengthDelimited) {
    for (size_t i = 0; i + 8 <= f.bytes.size; i += 8) {
      double d;
      memcpy(&d, f.bytes.data + i, 8);
      out->push_back(d);
    }
  }
}

// TracePacketDefaults.track_event_defaults of the generation, if any.
std::optional<Bytes> TrackEventDefaultsOf(const SequenceGeneration& gen) {
  if (!gen.trace_packet_defaults) return std::nullopt;
  Decoder d(*gen.trace_packet_defaults);
  for (Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id == TracePacketDefaults::kTrackEventDefaultsFieldNumber) return f.bytes;
  return std::nullopt;
}

}  // namespace

TrackEventTokenizer::TrackEventTokenizer(TraceContext* ctx, ProtoTokenizer* tokenizer)
    : ctx_(ctx), tokenizer_(tokenizer) {}

TrackEventTracker* TrackEventTokenizer::tracker() { return ctx_->track_event_parser->tracker(); }

void TrackEventTokenizer::TokenizePacket(const PacketView& p) {
  SequenceGeneration& gen = tokenizer_->mutable_generation(p.generation);
  // first_packet_on_sequence is not part of PacketView: look for it here (only
  // track descriptors need it, and those packets are few and small).
  if (p.data_field == TracePacket::kTrackDescriptorFieldNumber) {
    Decoder d(p.packet);
    for (Field f = d.Next(); f.valid(); f = d.Next())
      if (f.id == TracePacket::kFirstPacketOnSequenceFieldNumber && f.as_bool())
        tracker()->MarkSequenceHasFirstPacket(p.sequence_id);
  }

  int64_t ts = tokenizer_->latest_timestamp();
  bool have_ts = false;
  uint32_t clock = p.clock_id ? p.clock_id : gen.default_clock_id;
  if (p.has_timestamp) {
    auto converted =
        tokenizer_->ToTraceTime(p.sequence_id, clock, static_cast<int64_t>(p.timestamp));
    if (!converted) return;
    ts = *converted;
    have_ts = true;
  }

  switch (p.data_field) {
    case TracePacket::kTrackDescriptorFieldNumber:
      TokenizeTrackDescriptor(p, gen);
      break;
    case TracePacket::kThreadDescriptorFieldNumber:
      TokenizeThreadDescriptor(p.payload, gen);
      break;
    case TracePacket::kTrackEventFieldNumber: {
      int64_t legacy_ts = 0;
      if (!TokenizeTrackEvent(p, gen, &legacy_ts)) return;
      if (!have_ts && legacy_ts != 0) {
        // TrackEvent's own timestamp_{delta,absolute}_us are CLOCK_MONOTONIC
        // whatever the packet's clock; as upstream, a value that cannot be
        // converted is kept as it is rather than dropping the event.
        auto converted = ctx_->clock_tracker->ToTraceTime(kClockMonotonic, legacy_ts);
        if (!converted && ctx_->clock_tracker->has_snapshots())
          ctx_->storage->stats.Increment(Stat::kClockSyncFailure);
        ts = converted.value_or(legacy_ts);
      }
      break;
    }
    default:
      break;
  }
  tokenizer_->PushPacket(p, ts);
}

void TrackEventTokenizer::TokenizeThreadDescriptor(Bytes thread, SequenceGeneration& gen) {
  Decoder d(thread);
  bool has_pid = false, has_tid = false;
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case ThreadDescriptor::kPidFieldNumber:
        gen.pid = f.as_int32();
        has_pid = true;
        break;
      case ThreadDescriptor::kTidFieldNumber:
        gen.tid = f.as_int64();
        has_tid = true;
        break;
      case ThreadDescriptor::kReferenceTimestampUsFieldNumber:
        gen.reference_timestamp_ns = f.as_int64() * kUsToNs;
        gen.reference_timestamp_invalid = false;
        break;
      case ThreadDescriptor::kReferenceThreadTimeUsFieldNumber:
        gen.reference_thread_time_ns = f.as_int64() * kUsToNs;
        break;
      default:
        break;
    }
  }
  gen.pid_tid_valid = has_pid && has_tid;
}

void TrackEventTokenizer::TokenizeTrackDescriptor(const PacketView& p, SequenceGeneration& gen) {
  static constexpr uint32_t kProcessOrderingFieldNumber = 19;
  static constexpr uint32_t kThreadOrderingFieldNumber = 20;
  static constexpr uint64_t kOrderingExplicit = 1;
  TrackReservation r;
  uint64_t uuid = 0;
  bool explicit_process_order = false, explicit_thread_order = false;
  Decoder d(p.payload);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case TrackDescriptor::kUuidFieldNumber:
        uuid = f.int_value;
        break;
      case TrackDescriptor::kParentUuidFieldNumber:
        r.parent_uuid = f.int_value;
        break;
      case TrackDescriptor::kNameFieldNumber:
      case TrackDescriptor::kStaticNameFieldNumber:
      case TrackDescriptor::kAtraceNameFieldNumber:
        r.name = ctx_->storage->Intern(f.as_string());
        break;
      case TrackDescriptor::kStateFieldNumber:
        r.is_state = true;
        break;
      case TrackDescriptor::kDescriptionFieldNumber:
        r.description = ctx_->storage->Intern(f.as_string());
        break;
      case TrackDescriptor::kChildOrderingFieldNumber:
        r.child_ordering = f.as_int64();
        break;
      case TrackDescriptor::kSiblingOrderRankFieldNumber:
        r.sibling_order_rank = f.as_int32();
        break;
      // process_ordering / thread_ordering: UI-only enums this schema omits;
      // only ORDERING_EXPLICIT (1) on the root descriptor matters here.
      case kProcessOrderingFieldNumber:
        explicit_process_order = f.int_value == kOrderingExplicit;
        break;
      case kThreadOrderingFieldNumber:
        explicit_thread_order = f.int_value == kOrderingExplicit;
        break;
      case TrackDescriptor::kSiblingMergeBehaviorFieldNumber:
        r.last_name_wins = f.int_value == TrackDescriptor::SIBLING_MERGE_BEHAVIOR_NONE;
        r.merge_behavior = f.as_int64();
        break;
      case TrackDescriptor::kSiblingMergeKeyFieldNumber:
        r.merge_key = ctx_->storage->Intern(f.as_string());
        break;
      case TrackDescriptor::kSiblingMergeKeyIntFieldNumber:
        r.merge_key = ctx_->storage->Intern(std::to_string(f.as_uint64()));
        break;
      case TrackDescriptor::kDisallowMergingWithSystemTracksFieldNumber:
        r.use_separate_track = f.as_bool();
        break;
      case TrackDescriptor::kThreadFieldNumber: {
        Decoder t(f.bytes);
        for (Field g = t.Next(); g.valid(); g = t.Next()) {
          if (g.id == ThreadDescriptor::kPidFieldNumber) r.pid = g.as_int32();
          if (g.id == ThreadDescriptor::kTidFieldNumber) r.tid = g.as_int64();
        }
        // The sequence's legacy events belong to this thread from now on.
        if (r.pid && r.tid) TokenizeThreadDescriptor(f.bytes, gen);
        break;
      }
      case TrackDescriptor::kProcessFieldNumber: {
        Decoder t(f.bytes);
        for (Field g = t.Next(); g.valid(); g = t.Next())
          if (g.id == ProcessDescriptor::kPidFieldNumber) r.pid = g.as_int32();
        break;
      }
      case TrackDescriptor::kCounterFieldNumber: {
        r.is_counter = true;
        Decoder c(f.bytes);
        for (Field g = c.Next(); g.valid(); g = c.Next()) {
          switch (g.id) {
            case CounterDescriptor::kCategoriesFieldNumber:
              if (r.category == kNullStringId) r.category = ctx_->storage->Intern(g.as_string());
              break;
            case CounterDescriptor::kUnitFieldNumber:
              if (g.int_value == CounterDescriptor::UNIT_TIME_NS)
                r.unit = ctx_->storage->Intern("ns");
              if (g.int_value == CounterDescriptor::UNIT_COUNT)
                r.unit = ctx_->storage->Intern("count");
              if (g.int_value == CounterDescriptor::UNIT_SIZE_BYTES)
                r.unit = ctx_->storage->Intern("bytes");
              break;
            case CounterDescriptor::kUnitNameFieldNumber:
              r.unit = ctx_->storage->Intern(g.as_string());
              break;
            case CounterDescriptor::kUnitMultiplierFieldNumber:
              if (g.as_int64() > 0) r.unit_multiplier = g.as_int64();
              break;
            case CounterDescriptor::kIsIncrementalFieldNumber:
              r.is_incremental = g.as_bool();
              break;
            default:
              break;
          }
        }
        break;
      }
      default:
        break;
    }
  }
  if (!d.error() && uuid == 0) {
    // The root descriptor: it only carries trace-wide UI hints, no track.
    tracker()->SetExplicitOrdering(explicit_process_order, explicit_thread_order);
    return;
  }
  if (d.error() || (r.tid && !r.pid)) {
    ctx_->storage->stats.Increment(Stat::kTrackEventTokenizerErrors);
    return;
  }
  tracker()->Reserve(uuid, r);
  // A re-described incremental counter starts again from zero.
  if (r.is_counter && r.is_incremental) gen.incremental_values[uuid] = 0;
}

bool TrackEventTokenizer::TokenizeTrackEvent(const PacketView& p, SequenceGeneration& gen,
                                             int64_t* legacy_ts) {
  std::optional<uint64_t> track_uuid;
  uint32_t type = 0;
  std::optional<int64_t> counter_int;
  std::optional<double> counter_double;
  std::vector<uint64_t> extra_uuids, extra_double_uuids, extra_values_raw;
  std::vector<double> extra_double_values;
  std::optional<int64_t> thread_ts;
  Decoder d(p.payload);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case TrackEvent::kTrackUuidFieldNumber:
        track_uuid = f.int_value;
        break;
      case TrackEvent::kTypeFieldNumber:
        type = f.as_uint32();
        break;
      case TrackEvent::kCounterValueFieldNumber:
        counter_int = f.as_int64();
        break;
      case TrackEvent::kDoubleCounterValueFieldNumber:
        counter_double = f.as_double();
        break;
      case TrackEvent::kExtraCounterTrackUuidsFieldNumber:
        AppendVarints(f, &extra_uuids);
        break;
      case TrackEvent::kExtraCounterValuesFieldNumber:
        AppendVarints(f, &extra_values_raw);
        break;
      case TrackEvent::kExtraDoubleCounterTrackUuidsFieldNumber:
        AppendVarints(f, &extra_double_uuids);
        break;
      case TrackEvent::kExtraDoubleCounterValuesFieldNumber:
        AppendDoubles(f, &extra_double_values);
        break;
      case TrackEvent::kTimestampDeltaUsFieldNumber: {
        // A delta whose nanoseconds (or whose sum with the reference) leave
        // int64 makes the event unusable: dropped and counted, as upstream.
        int64_t delta_ns, sum;
        if (gen.reference_timestamp_invalid ||
            __builtin_mul_overflow(f.as_int64(), int64_t{1000}, &delta_ns) ||
            __builtin_add_overflow(gen.reference_timestamp_ns, delta_ns, &sum)) {
          ctx_->storage->stats.Increment(Stat::kTrackEventInvalidTimestamp);
          return false;
        }
        gen.reference_timestamp_ns = sum;
        *legacy_ts = sum;
        break;
      }
      case TrackEvent::kTimestampAbsoluteUsFieldNumber:
        if (__builtin_mul_overflow(f.as_int64(), int64_t{1000}, legacy_ts)) {
          ctx_->storage->stats.Increment(Stat::kTrackEventInvalidTimestamp);
          return false;
        }
        break;
      case TrackEvent::kThreadTimeDeltaUsFieldNumber:
        gen.reference_thread_time_ns += f.as_int64() * kUsToNs;
        thread_ts = gen.reference_thread_time_ns;
        break;
      case TrackEvent::kThreadTimeAbsoluteUsFieldNumber:
        thread_ts = f.as_int64() * kUsToNs;
        break;
      default:
        break;
    }
  }
  if (d.error()) {
    ctx_->storage->stats.Increment(Stat::kTrackEventTokenizerErrors);
    return false;
  }

  TrackEventPacketExtras extras;
  bool need_extras = thread_ts.has_value();
  extras.thread_ts = thread_ts;
  std::optional<Bytes> defaults = TrackEventDefaultsOf(gen);
  auto accumulate = [&](uint64_t uuid, double value) {
    const TrackReservation* r = tracker()->GetReservation(uuid);
    if (!r || !r->is_counter || !r->is_incremental) return value;
    need_extras = true;
    int64_t& acc = gen.incremental_values[uuid];
    acc += static_cast<int64_t>(value);
    return static_cast<double>(acc);
  };

  if (type == TrackEvent::TYPE_COUNTER) {
    uint64_t uuid = 0;
    if (track_uuid) {
      uuid = *track_uuid;
    } else if (defaults) {
      Decoder dd(*defaults);
      for (Field f = dd.Next(); f.valid(); f = dd.Next())
        if (f.id == TrackEventDefaults::kTrackUuidFieldNumber) uuid = f.int_value;
    }
    // As upstream, a counter event is checked here, in file order: it needs a
    // track uuid, a value and a counter track described by then (in that
    // order); else it is dropped before any track is made for it.
    std::optional<Stat> rejected;
    const TrackReservation* r = uuid ? tracker()->GetReservation(uuid) : nullptr;
    if (uuid == 0)
      rejected = Stat::kTrackEventCounterMissingTrackUuid;
    else if (!counter_int && !counter_double)
      rejected = Stat::kTrackEventCounterMissingValue;
    else if (!r || !r->is_counter)
      rejected = Stat::kTrackEventCounterInvalidTrackUuid;
    if (rejected) {
      ctx_->storage->stats.Increment(*rejected);
      return false;
    }
    double v = counter_int ? static_cast<double>(*counter_int) : *counter_double;
    extras.counter_value = accumulate(uuid, v);
  }

  if (!extra_values_raw.empty() || !extra_double_values.empty()) {
    if ((extra_uuids.empty() && !extra_values_raw.empty()) ||
        (extra_double_uuids.empty() && !extra_double_values.empty())) {
      if (defaults) {
        Decoder dd(*defaults);
        for (Field f = dd.Next(); f.valid(); f = dd.Next()) {
          if (f.id == TrackEventDefaults::kExtraCounterTrackUuidsFieldNumber &&
              extra_uuids.size() < extra_values_raw.size())
            AppendVarints(f, &extra_uuids);
          if (f.id == TrackEventDefaults::kExtraDoubleCounterTrackUuidsFieldNumber &&
              extra_double_uuids.size() < extra_double_values.size())
            AppendVarints(f, &extra_double_uuids);
        }
      }
    }
    if (extra_uuids.size() < extra_values_raw.size() ||
        extra_double_uuids.size() < extra_double_values.size()) {
      ctx_->storage->stats.Increment(Stat::kTrackEventTokenizerErrors);
      return false;
    }
    need_extras = true;
    for (size_t i = 0; i < extra_values_raw.size(); ++i) {
      double v = static_cast<double>(static_cast<int64_t>(extra_values_raw[i]));
      extras.extra_counter_values.emplace_back(extra_uuids[i], accumulate(extra_uuids[i], v));
    }
    for (size_t i = 0; i < extra_double_values.size(); ++i)
      extras.extra_counter_values.emplace_back(extra_double_uuids[i], extra_double_values[i]);
  }
  if (need_extras) tracker()->SetPacketExtras(p.packet.data, std::move(extras));
  return true;
}

}  // namespace fathom
