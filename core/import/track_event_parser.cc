#include "core/import/track_event_parser.h"

#include <string>
#include <vector>

#include "core/import/args_tracker.h"
#include "core/import/chrome_process_args.h"
#include "core/import/debug_annotation_parser.h"
#include "core/import/parse_problems.h"
#include "core/import/process_tracker.h"
#include "core/import/profile_parser.h"
#include "core/import/sequence_state.h"
#include "core/import/slice_tracker.h"
#include "core/import/track_event_tracks.h"
#include "core/import/track_event_typed_args.h"
#include "core/import/track_tracker.h"
#include "core/import/translation_table.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {

using perfetto::protos::EventCategory;
using perfetto::protos::EventName;
using perfetto::protos::InternedData;
using perfetto::protos::ProcessDescriptor;
using perfetto::protos::ThreadDescriptor;
using perfetto::protos::TracePacket;
using perfetto::protos::TracePacketDefaults;
using perfetto::protos::TrackDescriptor;
using perfetto::protos::TrackEvent;
using perfetto::protos::TrackEvent_LegacyEvent;
using perfetto::protos::TrackEventDefaults;
using proto::Bytes;
using proto::Decoder;
using proto::Field;
using proto::WireType;

// One TrackEvent, decoded once.
struct TrackEventView {
  std::optional<uint32_t> type;
  std::optional<uint64_t> track_uuid;
  StringId name = kNullStringId;
  StringId category = kNullStringId;
  std::vector<Bytes> debug_annotations;
  std::vector<std::pair<uint32_t, Bytes>> typed_args;  // (TrackEvent field, message)
  std::vector<uint64_t> flow_ids;
  std::vector<uint64_t> terminating_flow_ids;
  std::optional<double> counter_value;
  std::optional<int64_t> thread_ts;
  TrackEventCallstack callstack;

  bool has_legacy = false;
  char phase = 0;
  std::optional<int64_t> duration_us;
  std::optional<int64_t> thread_duration_us;
  std::optional<uint64_t> unscoped_id, global_id, local_id;
  StringId id_scope = kNullStringId;
  std::optional<uint64_t> bind_id;
  uint32_t flow_direction = 0;
  bool bind_to_enclosing = false;
  uint32_t instant_scope = 0;
  std::optional<int64_t> pid_override, tid_override;
};

namespace {

constexpr int64_t kUsToNs = 1000;

void AppendIds(const Field& f, std::vector<uint64_t>* out) {
  if (f.type == WireType::kLengthDelimited) {
    // Packed: fixed64 for flow_ids (47/48), varints for the old fields.
    if (f.id == TrackEvent::kFlowIdsFieldNumber ||
        f.id == TrackEvent::kTerminatingFlowIdsFieldNumber) {
      for (size_t i = 0; i + 8 <= f.bytes.size; i += 8) {
        uint64_t v;
        memcpy(&v, f.bytes.data + i, 8);
        out->push_back(v);
      }
    } else {
      proto::PackedVarints it(f.bytes);
      uint64_t v;
      while (it.Next(&v)) out->push_back(v);
    }
  } else {
    out->push_back(f.int_value);
  }
}

// Field 2 (name) of an interned {iid, name} entry (null: no entry). Tells an
// entry whose name is "" (a name: upstream keeps "") from an entry without one
// or an unknown iid (no name: NULL).
std::optional<std::string_view> EntryName(const Bytes* b) {
  if (!b) return std::nullopt;
  Decoder d(*b);
  for (Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id == EventName::kNameFieldNumber) return f.as_string();
  return std::nullopt;
}

std::optional<std::string_view> InternedNameIfSet(const SequenceGeneration& gen, uint32_t table,
                                                  uint64_t iid) {
  return EntryName(gen.GetInterned(table, iid));
}

// Same, with "" for both (callers that skip empty names anyway).
std::string_view InternedName(const SequenceGeneration& gen, uint32_t table, uint64_t iid) {
  return InternedNameIfSet(gen, table, iid).value_or(std::string_view());
}

// What a legacy event (one without a type) needs to be placed: a thread for
// B/E/X and thread-scoped instants, a thread or process for process-scoped
// instants. Global instants, async and flow phases need neither.
enum class LegacyScope { kAny, kThread, kProcess };
LegacyScope LegacyScopeNeeded(const TrackEventView& ev) {
  if (ev.type || !ev.has_legacy) return LegacyScope::kAny;
  switch (ev.phase) {
    case 'B':
    case 'E':
    case 'X':
      return LegacyScope::kThread;
    case 'I':
    case 'i':
      if (ev.instant_scope == TrackEvent_LegacyEvent::SCOPE_GLOBAL) return LegacyScope::kAny;
      if (ev.instant_scope == TrackEvent_LegacyEvent::SCOPE_PROCESS) return LegacyScope::kProcess;
      return LegacyScope::kThread;
    default:
      return LegacyScope::kAny;
  }
}

// Whether the described track `uuid` gives a legacy event what it needs.
bool LegacyEventFits(const TrackEventView& ev, TrackEventTracker* tracker, uint64_t uuid) {
  LegacyScope needs = LegacyScopeNeeded(ev);
  if (needs == LegacyScope::kAny) return true;
  auto res = tracker->Resolve(uuid);
  if (!res) return false;
  if (res->scope == TrackEventTracker::Resolved::kThread) return true;
  return needs == LegacyScope::kProcess && res->scope == TrackEventTracker::Resolved::kProcess;
}

std::optional<uint64_t> DefaultTrackUuid(const SequenceGeneration& gen) {
  if (!gen.trace_packet_defaults) return std::nullopt;
  Decoder d(*gen.trace_packet_defaults);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id != TracePacketDefaults::kTrackEventDefaultsFieldNumber) continue;
    Decoder e(f.bytes);
    for (Field g = e.Next(); g.valid(); g = e.Next())
      if (g.id == TrackEventDefaults::kTrackUuidFieldNumber) return g.int_value;
  }
  return std::nullopt;
}

void DecodeLegacyEvent(Bytes b, const SequenceGeneration& gen, TraceStorage* storage,
                       TrackEventView* ev) {
  using L = TrackEvent_LegacyEvent;
  ev->has_legacy = true;
  Decoder d(b);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case L::kNameIidFieldNumber:
        if (ev->name == kNullStringId) {
          std::string_view n = InternedName(gen, InternedData::kEventNamesFieldNumber, f.int_value);
          if (!n.empty()) ev->name = storage->Intern(n);
        }
        break;
      case L::kPhaseFieldNumber:
        ev->phase = static_cast<char>(f.as_int32());
        break;
      case L::kDurationUsFieldNumber:
        ev->duration_us = f.as_int64();
        break;
      case L::kThreadDurationUsFieldNumber:
        ev->thread_duration_us = f.as_int64();
        break;
      case L::kUnscopedIdFieldNumber:
        ev->unscoped_id = f.int_value;
        break;
      case L::kGlobalIdFieldNumber:
        ev->global_id = f.int_value;
        break;
      case L::kLocalIdFieldNumber:
        ev->local_id = f.int_value;
        break;
      case L::kIdScopeFieldNumber:
        ev->id_scope = storage->Intern(f.as_string());
        break;
      case L::kBindIdFieldNumber:
        ev->bind_id = f.int_value;
        break;
      case L::kFlowDirectionFieldNumber:
        ev->flow_direction = f.as_uint32();
        break;
      case L::kBindToEnclosingFieldNumber:
        ev->bind_to_enclosing = f.int_value != 0;
        break;
      case L::kInstantEventScopeFieldNumber:
        ev->instant_scope = f.as_uint32();
        break;
      case L::kPidOverrideFieldNumber:
        ev->pid_override = f.as_int32();
        break;
      case L::kTidOverrideFieldNumber:
        ev->tid_override = f.as_int32();
        break;
      default:
        break;
    }
  }
}

}  // namespace

TrackEventParser::TrackEventParser(TraceContext* ctx)
    : ctx_(ctx), tracker_(new TrackEventTracker(ctx)), flows_(ctx->storage.get()) {}
TrackEventParser::~TrackEventParser() = default;

void TrackEventParser::ParsePacket(int64_t ts, uint32_t field_id, Bytes payload, Bytes packet,
                                   const SequenceGeneration& gen) {
  switch (field_id) {
    case TracePacket::kTrackDescriptorFieldNumber:
      ParseTrackDescriptor(payload, gen);
      break;
    case TracePacket::kThreadDescriptorFieldNumber:
      ParseThreadDescriptor(payload);
      break;
    case TracePacket::kProcessDescriptorFieldNumber: {
      Decoder d(payload);
      std::optional<uint32_t> upid;
      for (Field f = d.Next(); f.valid(); f = d.Next())
        if (f.id == ProcessDescriptor::kPidFieldNumber)
          upid = ctx_->process_tracker->GetOrCreateProcess(f.as_int32());
      if (upid) ParseProcessDescriptor(payload, upid);
      break;
    }
    case TracePacket::kTrackEventFieldNumber: {
      // --crop-track-events: nothing before the range of interest is parsed
      // (so it is neither annotated nor makes tracks).
      if (ctx_->options.crop_track_events && ctx_->track_event_range_start_ns &&
          ts < *ctx_->track_event_range_start_ns)
        break;
      StringId category = kNullStringId, name = kNullStringId;
      // Only events that parse cleanly are annotated (upstream skips the
      // ones it rejects, e.g. a counter event without a counter track).
      if (ParseTrackEvent(ts, payload, packet, gen, &category, &name) &&
          ctx_->options.analyze_trace_proto_content)
        annotations_.Note(category, name);
      break;
    }
    default:
      break;
  }
}

void TrackEventParser::OnImportFinished() {
  tracker_->ApplySortIndexHints();
  if (ctx_->options.analyze_trace_proto_content) annotations_.Write(ctx_->args_tracker.get());
}

void TrackEventParser::ParseTrackDescriptor(Bytes payload, const SequenceGeneration& gen) {
  uint64_t uuid = 0;
  Bytes thread, process;
  std::optional<Bytes> chrome_process;
  bool has_thread = false, has_process = false;
  Decoder d(payload);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == TrackDescriptor::kUuidFieldNumber) uuid = f.int_value;
    if (f.id == TrackDescriptor::kThreadFieldNumber) thread = f.bytes, has_thread = true;
    if (f.id == TrackDescriptor::kProcessFieldNumber) process = f.bytes, has_process = true;
    if (f.id == TrackDescriptor::kChromeProcessFieldNumber) chrome_process = f.bytes;
  }
  if (uuid == 0) return;
  // Resolve now, so threads/processes exist (and are named) from here on.
  // The track row itself waits for its first event (or a child's), as
  // upstream: a descriptor nobody uses makes no track.
  auto res = tracker_->Resolve(uuid);
  if (!res) {
    ctx_->storage->stats.Increment(Stat::kTrackEventParserErrors);
    return;
  }
  tracker_->OnDescriptorParsed(uuid);
  if (res->is_root) tracker_->OnScopeDescriptorResolved(uuid);
  if (has_thread && res->scope == TrackEventTracker::Resolved::kThread) {
    Decoder t(thread);
    for (Field f = t.Next(); f.valid(); f = t.Next())
      if (f.id == ThreadDescriptor::kThreadNameFieldNumber && f.bytes.size > 0)
        ctx_->process_tracker->UpdateThreadName(res->utid, ctx_->storage->Intern(f.as_string()),
                                                ThreadNamePriority::kTrackDescriptor);
  }
  if (has_process && res->scope == TrackEventTracker::Resolved::kProcess)
    ParseProcessDescriptor(process, res->upid);
  // A process's Chrome args are written once, by its first descriptor (a
  // repeated descriptor would only repeat them).
  if (chrome_process && res->scope == TrackEventTracker::Resolved::kProcess &&
      chrome_process_args_written_.insert(res->upid).second &&
      !AddChromeProcessArgs(*chrome_process, res->upid, ctx_))
    ctx_->storage->stats.Increment(Stat::kTrackEventParserErrors);
}

void TrackEventParser::ParseThreadDescriptor(Bytes thread) {
  std::optional<int64_t> pid, tid;
  std::string_view name;
  Decoder d(thread);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == ThreadDescriptor::kPidFieldNumber) pid = f.as_int32();
    if (f.id == ThreadDescriptor::kTidFieldNumber) tid = f.as_int64();
    if (f.id == ThreadDescriptor::kThreadNameFieldNumber) name = f.as_string();
  }
  if (!pid || !tid) return;
  uint32_t utid = ctx_->process_tracker->UpdateThread(*tid, *pid);
  if (!name.empty())
    ctx_->process_tracker->UpdateThreadName(utid, ctx_->storage->Intern(name),
                                            ThreadNamePriority::kTrackDescriptor);
}

void TrackEventParser::ParseProcessDescriptor(Bytes process, std::optional<uint32_t> upid) {
  if (!upid) return;
  // Only process_name is read: names from the system (process dumps,
  // ftrace) outrank the app's own, and a descriptor's cmdline is not kept
  // (as upstream).
  Decoder d(process);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == ProcessDescriptor::kProcessNameFieldNumber && !f.as_string().empty())
      ctx_->process_tracker->SetProcessNameFromDescriptor(*upid,
                                                          ctx_->storage->Intern(f.as_string()));
  }
}

bool TrackEventParser::ParseTrackEvent(int64_t ts, Bytes event, Bytes packet,
                                       const SequenceGeneration& gen, StringId* category_out,
                                       StringId* name_out) {
  TraceStorage* storage = ctx_->storage.get();
  TrackEventView ev;
  std::string categories;
  size_t category_iids = 0;                      // category iids the event names
  std::optional<uint64_t> missing_category_iid;  // the last one not interned
  Decoder d(event);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case TrackEvent::kTypeFieldNumber:
        ev.type = f.as_uint32();
        break;
      case TrackEvent::kTrackUuidFieldNumber:
        ev.track_uuid = f.int_value;
        break;
      case TrackEvent::kNameFieldNumber:
        ev.name = storage->Intern(f.as_string());
        break;
      case TrackEvent::kNameIidFieldNumber: {
        // An iid the sequence never interned (or interned while its state
        // was invalid) leaves the name NULL; counted as upstream does.
        const Bytes* entry = gen.GetInterned(InternedData::kEventNamesFieldNumber, f.int_value);
        if (!entry) storage->stats.Increment(Stat::kInternedDataErrors);
        if (auto n = EntryName(entry)) ev.name = storage->Intern(*n);
        break;
      }
      case TrackEvent::kCategoriesFieldNumber:
        if (!categories.empty()) categories += ',';
        categories += f.as_string();
        break;
      case TrackEvent::kCategoryIidsFieldNumber: {
        std::vector<uint64_t> iids;
        AppendIds(f, &iids);
        for (uint64_t iid : iids) {
          ++category_iids;
          const Bytes* entry = gen.GetInterned(InternedData::kEventCategoriesFieldNumber, iid);
          if (!entry) {
            storage->stats.Increment(Stat::kInternedDataErrors);
            missing_category_iid = iid;
          }
          std::string_view c = EntryName(entry).value_or(std::string_view());
          if (c.empty()) continue;
          if (!categories.empty()) categories += ',';
          categories += c;
        }
        break;
      }
      case TrackEvent::kDebugAnnotationsFieldNumber:
        ev.debug_annotations.push_back(f.bytes);
        break;
      case TrackEvent::kFlowIdsFieldNumber:
      case TrackEvent::kFlowIdsOldFieldNumber:
        AppendIds(f, &ev.flow_ids);
        break;
      case TrackEvent::kTerminatingFlowIdsFieldNumber:
      case TrackEvent::kTerminatingFlowIdsOldFieldNumber:
        AppendIds(f, &ev.terminating_flow_ids);
        break;
      case TrackEvent::kCounterValueFieldNumber:
        ev.counter_value = static_cast<double>(f.as_int64());
        break;
      case TrackEvent::kDoubleCounterValueFieldNumber:
        ev.counter_value = f.as_double();
        break;
      case TrackEvent::kLegacyEventFieldNumber:
        DecodeLegacyEvent(f.bytes, gen, storage, &ev);
        break;
      case TrackEvent::kCallstackFieldNumber:
        ev.callstack.inline_frames = f.bytes;
        break;
      case TrackEvent::kCallstackIidFieldNumber:
        ev.callstack.iid = f.as_uint64();
        break;
      case TrackEvent::kCallstackWeightFieldNumber:
        ev.callstack.weight = f.as_double();
        break;
      default:
        if (IsTypedArgsField(f.id)) ev.typed_args.emplace_back(f.id, f.bytes);
        break;
    }
  }
  if (d.error()) {
    storage->stats.Increment(Stat::kTrackEventParserErrors);
    return false;
  }
  // A lone category iid that is unknown still names the category, as
  // upstream ("unknown(<iid>)"); unknown ones among several are left out.
  if (categories.empty() && category_iids == 1 && missing_category_iid)
    categories = "unknown(" + std::to_string(*missing_category_iid) + ")";
  if (!categories.empty()) ev.category = storage->Intern(categories);
  *category_out = ev.category;
  *name_out = ev.name;
  ev.name = ctx_->translation_table->SliceName(ev.name);
  const TrackEventPacketExtras* extras = tracker_->GetPacketExtras(packet.data);
  if (extras) {
    ev.thread_ts = extras->thread_ts;
    if (extras->counter_value) ev.counter_value = extras->counter_value;
  }

  // ---- which track ----
  std::optional<uint64_t> track_uuid = ev.track_uuid;
  if (!track_uuid) track_uuid = DefaultTrackUuid(gen);
  std::optional<uint32_t> track, utid, upid;
  std::optional<uint32_t> passthrough_utid;  // the sequence's thread, see below
  bool legacy_thread_track = false;
  const TrackReservation* reservation = nullptr;
  if (track_uuid && *track_uuid != 0) {
    // A uuid nobody described still gets a (global, event-named) track.
    if (!tracker_->GetReservation(*track_uuid)) tracker_->Reserve(*track_uuid, TrackReservation{});
    // As upstream, checked before the track is made (or named after it).
    if (!LegacyEventFits(ev, tracker_.get(), *track_uuid)) {
      storage->stats.Increment(Stat::kTrackEventParserErrors);
      return false;
    }
    // A state event needs a state track; upstream rejects it before
    // making the track it names.
    if (ev.type && *ev.type == TrackEvent::TYPE_STATE) {
      const TrackReservation* r = tracker_->GetReservation(*track_uuid);
      if (!r || !r->is_state) {
        storage->stats.Increment(Stat::kTrackEventParserErrors);
        return false;
      }
    }
    track = tracker_->GetDescriptorTrack(*track_uuid, ev.name, ts, gen.sequence_id);
    if (!track) {
      storage->stats.Increment(Stat::kTrackEventParserErrors);
      return false;
    }
    reservation = tracker_->GetReservation(*track_uuid);
    if (auto res = tracker_->Resolve(*track_uuid)) {
      if (res->scope == TrackEventTracker::Resolved::kThread) {
        utid = res->utid;
        upid = ctx_->process_tracker->GetUpidOfThread(res->utid);
      } else if (res->scope == TrackEventTracker::Resolved::kProcess) {
        upid = res->upid;
      }
    }
    // An event on a process or global track still looks up the sequence's
    // thread (from its last thread descriptor), as upstream does: when that
    // thread's process was replaced since (pid reuse), a new thread row
    // starts here. A thread of the track's process (any, for a global
    // track) is kept as the event's legacy_event.passthrough_utid arg.
    if (!utid && gen.pid_tid_valid) {
      uint32_t candidate = ctx_->process_tracker->UpdateThread(gen.tid, gen.pid);
      if (!upid || ctx_->process_tracker->GetUpidOfThread(candidate) == upid)
        passthrough_utid = candidate;
    }
  } else {
    // No explicit track: legacy events (and events overriding pid/tid) go
    // to the thread of the sequence; typed events to the default track.
    bool fallback = (!ev.track_uuid || !ev.type) && gen.pid_tid_valid;
    fallback |= ev.pid_override.has_value();
    fallback |= ev.tid_override.has_value() && gen.pid_tid_valid;
    if (fallback) {
      int64_t pid = gen.pid, tid = gen.tid;
      if (ev.pid_override) {
        pid = *ev.pid_override;
        tid = static_cast<uint32_t>(-1);  // as upstream: a synthetic thread
      }
      if (ev.tid_override) tid = *ev.tid_override;
      utid = ctx_->process_tracker->UpdateThread(tid, pid);
      upid = ctx_->process_tracker->GetUpidOfThread(*utid);
      // The thread track itself is created below, only if the event stays
      // on it (legacy async and scoped instants move elsewhere).
      legacy_thread_track = true;
    } else if (LegacyScopeNeeded(ev) != LegacyScope::kAny) {
      // A legacy slice or instant with neither a track nor a thread to
      // fall back on has nowhere to go (upstream rejects it too).
      storage->stats.Increment(Stat::kTrackEventParserErrors);
      return false;
    } else {
      track = tracker_->DefaultTrack();
    }
  }

  // ---- counters ----
  auto push_counter = [&](uint64_t uuid, uint32_t counter_track, double value) {
    const TrackReservation* r = tracker_->GetReservation(uuid);
    if (r) value *= static_cast<double>(r->unit_multiplier);
    return ctx_->track_tracker->PushCounter(ts, value, counter_track);
  };
  if (extras) {
    for (const auto& [uuid, value] : extras->extra_counter_values) {
      auto ct = tracker_->GetDescriptorTrack(uuid, kNullStringId, ts, gen.sequence_id);
      const TrackReservation* r = tracker_->GetReservation(uuid);
      if (!ct || !r || !r->is_counter) {
        storage->stats.Increment(Stat::kTrackEventParserErrors);
        continue;
      }
      push_counter(uuid, *ct, value);
    }
  }
  if (legacy_thread_track) {
    bool moves = !ev.type && ev.has_legacy &&
                 (((ev.phase == 'I' || ev.phase == 'i') &&
                   (ev.instant_scope == TrackEvent_LegacyEvent::SCOPE_GLOBAL ||
                    (ev.instant_scope == TrackEvent_LegacyEvent::SCOPE_PROCESS && upid))) ||
                  std::string_view("beSFnTp").find(ev.phase) != std::string_view::npos);
    if (!moves) track = tracker_->ThreadTrack(*utid);
  }
  if (ev.type && *ev.type == TrackEvent::TYPE_STATE) {
    // Only a described state track holds states (not the thread fallback).
    if (!reservation || !reservation->is_state || !track) {
      storage->stats.Increment(Stat::kTrackEventParserErrors);
      return false;
    }
    AddStateEvent(ts, ev, *track);
    return true;
  }
  if (ev.type && *ev.type == TrackEvent::TYPE_COUNTER) {
    if (!reservation || !reservation->is_counter || !ev.counter_value) {
      storage->stats.Increment(Stat::kTrackEventParserErrors);
      return false;
    }
    uint32_t row = push_counter(*track_uuid, *track, *ev.counter_value);
    // The event's own args go on its counter row (extra counters get none).
    auto counter_args = ctx_->args_tracker->NewSet();
    DebugAnnotationParser annotations(gen, ctx_->limits.max_annotation_key_bytes);
    for (Bytes a : ev.debug_annotations)
      if (!annotations.Parse(a, &counter_args))
        storage->stats.Increment(Stat::kTrackEventParserErrors);
    if (passthrough_utid) counter_args.AddUint("legacy_event.passthrough_utid", *passthrough_utid);
    if (auto set = counter_args.Commit()) storage->counter.arg_set_id.Set(row, *set);
    return true;
  }

  // ---- slices ----
  // What the event does: begin, end, complete/instant (dur >= 0).
  enum Kind { kBegin, kEnd, kComplete, kIgnore } kind = kIgnore;
  int64_t dur = 0;
  bool async = false;
  if (ev.type) {
    switch (*ev.type) {
      case TrackEvent::TYPE_SLICE_BEGIN:
        kind = kBegin;
        break;
      case TrackEvent::TYPE_SLICE_END:
        kind = kEnd;
        break;
      case TrackEvent::TYPE_INSTANT:
        kind = kComplete;
        break;
      default:
        break;
    }
  } else if (ev.has_legacy) {
    switch (ev.phase) {
      case 'B':
        kind = kBegin;
        break;
      case 'E':
        kind = kEnd;
        break;
      case 'X':
        kind = kComplete;
        dur = ev.duration_us.value_or(0) * kUsToNs;
        break;
      case 'I':
      case 'i':
        kind = kComplete;
        if (ev.instant_scope == TrackEvent_LegacyEvent::SCOPE_GLOBAL) {
          track = tracker_->LegacyGlobalInstantTrack();
        } else if (ev.instant_scope == TrackEvent_LegacyEvent::SCOPE_PROCESS && upid) {
          track = tracker_->LegacyProcessInstantTrack(*upid);
        }
        break;
      case 'b':
      case 'S':
        kind = kBegin;
        async = true;
        break;
      case 'e':
      case 'F':
        kind = kEnd;
        async = true;
        break;
      case 'n':
      case 'T':
      case 'p':
        kind = kComplete;
        async = true;
        break;
      case 's':
      case 't':
      case 'f':
        if (track) AddLegacyFlowEvent(ev, *track);
        return true;
      default:
        break;  // metadata and counter phases are not imported
    }
  }
  if (kind == kIgnore) return true;

  auto args = ctx_->args_tracker->NewSet();
  if (async) {
    std::optional<uint64_t> source_id;
    std::optional<uint32_t> track_upid;
    if (ev.unscoped_id) {
      source_id = ev.unscoped_id;
    } else if (ev.global_id) {
      source_id = ev.global_id;
    } else if (ev.local_id && upid) {
      source_id = ev.local_id;
      track_upid = upid;
    }
    if (!source_id) {
      storage->stats.Increment(Stat::kTrackEventParserErrors);
      return false;
    }
    LegacyAsyncTracks::Kind async_kind = kind == kBegin ? LegacyAsyncTracks::Kind::kBegin
                                         : kind == kEnd ? LegacyAsyncTracks::Kind::kEnd
                                                        : LegacyAsyncTracks::Kind::kInstant;
    track =
        tracker_->LegacyAsyncTrack(async_kind, ev.name, upid.value_or(0), track_upid.has_value(),
                                   *source_id, ev.category, ev.id_scope);
    if (kind != kEnd) {
      args.AddInt("legacy_trace_source_id", static_cast<int64_t>(*source_id));
      // Whether the id is process scoped, and its scope, are the track's
      // (its source args), not the slice's.
    }
  }
  DebugAnnotationParser annotations(gen, ctx_->limits.max_annotation_key_bytes);
  for (Bytes a : ev.debug_annotations)
    if (!annotations.Parse(a, &args)) storage->stats.Increment(Stat::kTrackEventParserErrors);
  for (const auto& [field, msg] : ev.typed_args)
    if (!AddTypedArgs(field, msg, gen, *ctx_->translation_table,
                      ctx_->profile_parser->stack_tracker(), &args))
      storage->stats.Increment(Stat::kTrackEventParserErrors);
  // After the annotations, as upstream orders the set.
  if (passthrough_utid && kind != kEnd)
    args.AddUint("legacy_event.passthrough_utid", *passthrough_utid);
  if (annotations.truncated())
    AddParseProblem(ctx_, "debug_annotations", ts,
                    "debug annotations whose keys pass " +
                        std::to_string(ctx_->limits.max_annotation_key_bytes >> 20) +
                        " MiB were cut short (the rest of the annotation was dropped; counted in "
                        "track_event_parser_errors; raise with --max-annotation-key-mb)");
  if (ev.has_legacy && kind != kEnd) {
    if (async && utid) args.AddUint("legacy_event.passthrough_utid", *utid);
    bool native = ev.phase == 'B' || ev.phase == 'E' || ev.phase == 'X' || ev.phase == 'I' ||
                  ev.phase == 'i' || ev.phase == 'b' || ev.phase == 'e' || ev.phase == 'n';
    if (!ev.type && !native && ev.phase)
      args.AddString("legacy_event.phase", std::string(1, ev.phase));
  }

  if (!track) return true;
  SliceTracker* slices = ctx_->slice_tracker.get();
  std::optional<uint32_t> slice;
  switch (kind) {
    case kBegin:
      slice = slices->Begin(ts, *track, ev.category, ev.name, std::move(args));
      if (slice && ev.thread_ts) storage->slice.thread_ts.Set(*slice, *ev.thread_ts);
      break;
    case kEnd:
      slice = slices->End(ts, *track, ev.category, ev.name, std::move(args));
      if (slice && ev.thread_ts) {
        if (auto begin = storage->slice.thread_ts.Get(*slice))
          storage->slice.thread_dur.Set(*slice, *ev.thread_ts - *begin);
      }
      break;
    case kComplete:
      slice = slices->Scoped(ts, *track, ev.category, ev.name, dur, std::move(args));
      // A complete event that would straddle the end of an enclosing one is
      // dropped; upstream counts each such event.
      if (!slice && slices->last_start_overlapped())
        storage->stats.Increment(Stat::kSliceDropOverlappingComplete);
      if (slice && ev.thread_ts) {
        storage->slice.thread_ts.Set(*slice, *ev.thread_ts);
        if (ev.thread_duration_us)
          storage->slice.thread_dur.Set(*slice, *ev.thread_duration_us * kUsToNs);
      }
      break;
    case kIgnore:
      break;
  }
  if (!slice) return true;
  if (ev.callstack.present()) {
    if (!callstacks_)
      callstacks_ =
          std::make_unique<TrackEventCallstacks>(storage, ctx_->profile_parser->stack_tracker());
    callstacks_->Record(ev.callstack, gen, kind == kEnd, *slice, *track);
  }
  if (kind != kEnd) flows_.OnSliceBegin(*track, *slice);
  AddFlows(ev, *slice);
  return true;
}

void TrackEventParser::AddFlows(const TrackEventView& ev, uint32_t slice) {
  // Each flow id continues from the last slice that carried it.
  for (uint64_t id : ev.flow_ids) {
    if (flows_.IsActive(id)) {
      flows_.Step(id, slice);
    } else {
      flows_.Begin(id, slice);
    }
  }
  for (uint64_t id : ev.terminating_flow_ids) flows_.End(id, slice, /*close=*/true);
  // A legacy bind_id shares the id space; an incoming flow stays open, so
  // several slices can receive it.
  if (!ev.bind_id) return;
  using L = TrackEvent_LegacyEvent;
  switch (ev.flow_direction) {
    case L::FLOW_OUT:
      flows_.Begin(*ev.bind_id, slice);
      break;
    case L::FLOW_INOUT:
      flows_.Step(*ev.bind_id, slice);
      break;
    case L::FLOW_IN:
      flows_.End(*ev.bind_id, slice, /*close=*/false);
      break;
    default:
      break;  // no direction: upstream ignores the bind_id
  }
}

void TrackEventParser::AddStateEvent(int64_t ts, const TrackEventView& ev, uint32_t track) {
  StateTable& states = ctx_->storage->state;
  auto it = current_state_.find(track);
  if (it != current_state_.end()) {
    states.dur.Set(it->second, ts - states.ts[it->second]);
    current_state_.erase(it);
  }
  ctx_->storage->UpdateBounds(ts);
  // An unnamed state event only ends the current state.
  if (ev.name == kNullStringId) return;
  current_state_[track] = states.Insert(ts, track, ev.category, ev.name);
}

void TrackEventParser::AddLegacyFlowEvent(const TrackEventView& ev, uint32_t track) {
  std::optional<uint64_t> id = ev.unscoped_id;
  if (!id) id = ev.global_id;
  if (!id) id = ev.local_id;
  if (!id) return;
  FlowTracker::V1Key key{*id, ev.category, ev.name};
  if (ev.phase == 'f' && !ev.bind_to_enclosing) {
    flows_.V1EndOnNextSlice(key, track);
    return;
  }
  std::optional<uint32_t> enclosing = ctx_->slice_tracker->GetTopmostOpen(track);
  if (!enclosing) return;
  if (ev.phase == 's') flows_.V1Begin(key, *enclosing);
  if (ev.phase == 't') flows_.V1Step(key, *enclosing);
  if (ev.phase == 'f') flows_.V1EndOnEnclosing(key, *enclosing);
}

}  // namespace fathom
