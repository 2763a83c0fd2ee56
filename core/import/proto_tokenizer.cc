#include "core/import/proto_tokenizer.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>

#include "core/import/chrome_metadata.h"
#include "core/import/chunk_reader.h"
#include "core/import/clock_tracker.h"
#include "core/import/ftrace_parser.h"
#include "core/import/ftrace_setup_errors.h"
#include "core/import/import_logs.h"
#include "core/import/interrupt_info.h"
#include "core/import/metadata_parser.h"
#include "core/import/profile_parser.h"
#include "core/import/system_parser.h"
#include "core/import/track_event_tokenizer.h"
#include "core/import/translation_table.h"
#include "perfetto/trace/trace.pb.h"

namespace fathom {
namespace {

using perfetto::protos::ClockSnapshot;
using perfetto::protos::ClockSnapshot_Clock;
using perfetto::protos::FtraceEvent;
using perfetto::protos::FtraceEventBundle;
using perfetto::protos::FtraceEventBundle_CompactSched;
using perfetto::protos::TracePacket;
using perfetto::protos::TracePacketDefaults;
using perfetto::protos::TrackEventRangeOfInterest;
using proto::Bytes;
using proto::Decoder;
using proto::Field;
using proto::PackedVarints;
using proto::WireType;

// TracePacket.translation_table (upstream's field number; Fathom's protos do
// not carry the message, see translation_table.cc).
constexpr uint32_t kTranslationTableFieldNumber = 82;

constexpr uint32_t kSeqIncrementalStateCleared = 1;
constexpr uint32_t kSeqNeedsIncrementalState = 2;

// Appends every value of a repeated varint field occurrence (packed or not).
template <typename T>
bool AppendVarints(const Field& f, std::vector<T>* out) {
  if (f.type == WireType::kVarint) {
    out->push_back(static_cast<T>(f.int_value));
    return true;
  }
  if (f.type != WireType::kLengthDelimited) return false;
  // compact_sched columns are most of such a trace, decoded once when
  // tokenized and again when merged: size the column once (a value takes at
  // least a byte), write through a pointer, trim. Most values take one or
  // two bytes.
  size_t old = out->size();
  out->resize(old + f.bytes.size);
  T* w = out->data() + old;
  const uint8_t* p = f.bytes.data;
  const uint8_t* end = p + f.bytes.size;
  bool ok = true;
  while (p < end) {
    uint64_t v = *p;
    if (v < 0x80) {
      ++p;
    } else if (end - p >= 2 && p[1] < 0x80) {
      v = (v & 0x7f) | (uint64_t{p[1]} << 7);
      p += 2;
    } else if (const uint8_t* q = proto::ReadVarint(p, end, &v)) {
      p = q;
    } else {
      ok = false;
      break;
    }
    *w++ = static_cast<T>(v);
  }
  out->resize(static_cast<size_t>(w - out->data()));
  return ok;
}

}  // namespace

ProtoTokenizer::ProtoTokenizer(TraceContext* ctx, Sorter* sorter)
    : ctx_(ctx), sorter_(sorter), track_event_tokenizer_(new TrackEventTokenizer(ctx, this)) {
  // Sequence 0 (packets without a trusted sequence id) gets a generation too.
  NewGeneration(0);
}

ProtoTokenizer::~ProtoTokenizer() {
  // Deferred raw ftrace args point into the buffers: they outlive the import.
  if (ctx_->ftrace_parser) ctx_->ftrace_parser->RetainPayloads(&blobs_);
}

void ProtoTokenizer::NewGeneration(uint32_t sequence_id) {
  generations_.emplace_back();
  SequenceGeneration& gen = generations_.back();
  gen.sequence_id = sequence_id;
  auto [it, first] = sequences_.try_emplace(sequence_id);
  if (!first) {
    // The thread a sequence writes for is no incremental state: as upstream,
    // it survives a clear (events without a track stay on that thread).
    const SequenceGeneration& prev = generations_[it->second.generation];
    gen.pid_tid_valid = prev.pid_tid_valid;
    gen.pid = prev.pid;
    gen.tid = prev.tid;
  }
  it->second.generation = static_cast<uint32_t>(generations_.size() - 1);
}

Result<size_t> ProtoTokenizer::Feed(std::unique_ptr<TraceBlob> blob, uint64_t stream_offset) {
  size_t consumed = 0;
  Status st = TokenizeStream(blob->data.get(), blob->size, stream_offset, &consumed, false);
  size_t leftover = blob->size - consumed;
  retained_bytes_ += blob->size;
  blobs_.push_back(std::move(blob));
  if (!st.ok()) return st;
  return leftover;
}

Status ProtoTokenizer::TokenizeStream(const uint8_t* data, size_t size, uint64_t stream_offset,
                                      size_t* consumed, bool nested) {
  const uint8_t* p = data;
  const uint8_t* end = data + size;
  while (p < end) {
    const uint8_t* field_start = p;
    uint64_t tag;
    const uint8_t* q = proto::ReadVarint(p, end, &tag);
    uint64_t offset = stream_offset + static_cast<uint64_t>(field_start - data);
    if (!q) {
      // Fewer than 10 bytes left: the tag may complete in the next chunk.
      // Ten or more without an end byte can never be a varint.
      if (end - p >= 10) {
        *consumed = static_cast<size_t>(field_start - data);
        return ErrorStatus("byte offset " + std::to_string(offset) +
                           ": invalid field tag (varint longer than 10 bytes)");
      }
      break;
    }
    uint32_t wire = tag & 7;
    uint64_t field_id = tag >> 3;
    if (field_id == 0 || (wire != 0 && wire != 1 && wire != 2 && wire != 5)) {
      *consumed = static_cast<size_t>(field_start - data);
      return ErrorStatus("byte offset " + std::to_string(offset) +
                         ": expected a TracePacket (field 1, length-delimited), found tag 0x" +
                         [&] {
                           char b[24];
                           snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(tag));
                           return std::string(b);
                         }());
    }
    if (wire == 2) {
      uint64_t len;
      const uint8_t* body = proto::ReadVarint(q, end, &len);
      if (!body) {
        if (end - q >= 10) {
          *consumed = static_cast<size_t>(field_start - data);
          return ErrorStatus("byte offset " + std::to_string(offset) +
                             ": invalid packet length (varint longer than 10 bytes)");
        }
        break;
      }
      if (len > static_cast<uint64_t>(end - body)) {
        // A length this large can never complete in a nested buffer.
        if (nested) {
          ctx_->storage->stats.Increment(Stat::kProtoDecodeErrors);
          p = end;
        }
        break;
      }
      if (field_id == 1) {
        TokenizePacket(body, static_cast<size_t>(len), offset);
      } else {
        SkippedTraceField(field_id, offset);
      }
      p = body + len;
    } else if (wire == 0) {
      uint64_t v;
      const uint8_t* r = proto::ReadVarint(q, end, &v);
      if (!r) break;  // (counted once it is whole, in the next chunk)
      SkippedTraceField(field_id, offset);
      p = r;
    } else {
      size_t n = wire == 1 ? 8 : 4;
      if (static_cast<size_t>(end - q) < n) break;
      SkippedTraceField(field_id, offset);
      p = q + n;
    }
  }
  *consumed = static_cast<size_t>(p - data);
  return Status::Ok();
}

void ProtoTokenizer::SkippedTraceField(uint64_t field_id, uint64_t offset) {
  // A Trace holds only packets (field 1); anything else is damage that would
  // otherwise vanish without a word (a whole heap profile, once).
  ctx_->storage->stats.Increment(Stat::kProtoDecodeErrors);
  ctx_->problems.Add("trace_field", offset,
                     "Trace field " + std::to_string(field_id) +
                         " is not a packet (field 1): its bytes were skipped");
}

void ProtoTokenizer::TokenizePacket(const uint8_t* data, size_t size, uint64_t offset) {
  ++packets_;
  ctx_->cursor.packet_offset = offset;
  // An empty packet carries nothing; upstream skips it too. Not sorting it
  // keeps a stream of them (2 bytes each) from costing a sort entry apiece.
  if (size == 0) return;
  PacketView pv;
  pv.packet = Bytes{data, size};
  pv.file_offset = offset;
  uint32_t flags = 0;
  bool state_cleared = false;
  // TracePacket.previous_packet_dropped: non-zero is a loss; above bit 0 it
  // carries DataLossReason cause bits.
  uint64_t previous_dropped = 0;
  Bytes interned, defaults;
  bool has_interned = false, has_defaults = false;
  uint64_t raw_machine_id = 0;
  Decoder d(data, size);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case TracePacket::kTimestampFieldNumber:
        pv.has_timestamp = true;
        pv.timestamp = f.int_value;
        break;
      case TracePacket::kTimestampClockIdFieldNumber:
        pv.clock_id = f.as_uint32();
        break;
      case TracePacket::kTrustedPacketSequenceIdFieldNumber:
        pv.sequence_id = f.as_uint32();
        break;
      case TracePacket::kSequenceFlagsFieldNumber:
        flags = f.as_uint32();
        break;
      case TracePacket::kIncrementalStateClearedFieldNumber:
        state_cleared = f.as_bool();
        break;
      case TracePacket::kPreviousPacketDroppedFieldNumber:
        previous_dropped = f.int_value;
        break;
      case TracePacket::kInternedDataFieldNumber:
        interned = f.bytes;
        has_interned = true;
        break;
      case TracePacket::kTracePacketDefaultsFieldNumber:
        defaults = f.bytes;
        has_defaults = true;
        break;
      case TracePacket::kTrustedUidFieldNumber:
      case TracePacket::kTrustedPidFieldNumber:
      case TracePacket::kFirstPacketOnSequenceFieldNumber:
        break;
      case TracePacket::kMachineIdFieldNumber:
        raw_machine_id = f.int_value;
        break;
      default:
        if (f.type == WireType::kLengthDelimited || pv.data_field == 0) {
          pv.data_field = f.id;
          pv.payload = f.bytes;
        }
    }
  }
  if (d.error()) {
    ctx_->storage->stats.Increment(Stat::kProtoDecodeErrors);
    return;
  }

  // As upstream, the load's first packet names the default machine (row 0 of
  // `machine`, which owns packets without a machine_id): a trace recorded
  // entirely on a remote machine has just that one. Nothing was seen yet
  // exactly when no sequence has an entry below.
  if (raw_machine_id != 0 && ctx_->packet_loss_by_sequence.empty())
    ctx_->storage->machine.raw_id.Set(kHostMachineId, static_cast<int64_t>(raw_machine_id));

  // Per-sequence packet loss for the traced_buf_sequence_packet_loss stat
  // (the first packet's flag is not a loss within the trace).
  auto [loss_it, first_on_sequence] = ctx_->packet_loss_by_sequence.try_emplace(pv.sequence_id);
  TraceContext::SequenceLoss& loss = loss_it->second;
  if (!first_on_sequence && previous_dropped) {
    ++loss.packets_lost;
    for (size_t bit = 0; bit < loss.causes.size(); ++bit)
      if (previous_dropped & (uint64_t{2} << bit)) ++loss.causes[bit];
  }

  // Sequence state.
  if (flags & kSeqIncrementalStateCleared || state_cleared) NewGeneration(pv.sequence_id);
  auto seq_it = sequences_.find(pv.sequence_id);
  if (seq_it == sequences_.end()) {
    NewGeneration(pv.sequence_id);
    seq_it = sequences_.find(pv.sequence_id);
    // As upstream, a sequence whose first packet is not a clear has no
    // incremental state yet: its packets that need it are skipped until one
    // clears it. Sequences that never intern (ftrace, /proc pollers) do not
    // flag their packets, so they are unaffected.
    generations_[seq_it->second.generation].valid = false;
  }
  SequenceGeneration* gen = &generations_[seq_it->second.generation];
  if (previous_dropped && !(flags & kSeqIncrementalStateCleared || state_cleared)) {
    gen->valid = false;
    // As upstream, a loss ends the heapprofd state of the sequence (packet
    // index, cumulative counters): its ProfilePacket gets a generation of
    // its own, with the same interned data.
    if (pv.data_field == TracePacket::kProfilePacketFieldNumber) {
      generations_.push_back(*gen);
      seq_it->second.generation = static_cast<uint32_t>(generations_.size() - 1);
      gen = &generations_.back();
    }
  }
  // As upstream, interned data is not taken while the state is invalid (it
  // could not be told from entries of the generation that was lost), whether
  // or not the packet itself is skipped below: each such packet is counted.
  if (has_interned && !gen->valid) {
    ctx_->storage->stats.Increment(Stat::kInternedDataSkippedIncrementalState);
    has_interned = false;
  }
  if ((flags & kSeqNeedsIncrementalState) && !gen->valid) {
    ctx_->storage->stats.Increment(Stat::kPacketsSkippedIncrementalState);
    loss.incremental_skipped = true;
    return;
  }
  if (flags & kSeqNeedsIncrementalState) loss.incremental_parsed = true;
  if (has_defaults) {
    gen->trace_packet_defaults = defaults;
    Decoder dd(defaults);
    for (Field f = dd.Next(); f.valid(); f = dd.Next())
      if (f.id == TracePacketDefaults::kTimestampClockIdFieldNumber)
        gen->default_clock_id = f.as_uint32();
  }
  if (has_interned) ApplyInternedData(gen, interned);
  pv.generation = seq_it->second.generation;

  switch (pv.data_field) {
    case TracePacket::kFtraceEventsFieldNumber:
      TokenizeFtraceBundle(pv.payload, pv.generation,
                           raw_machine_id == 0
                               ? kHostMachineId
                               : ctx_->storage->MachineFor(static_cast<int64_t>(raw_machine_id)));
      return;
    case TracePacket::kClockSnapshotFieldNumber:
      ParseClockSnapshot(pv.sequence_id, pv.payload);
      break;  // also kept for the parsers (clock metadata)
    case TracePacket::kFtraceStatsFieldNumber:
      // Counted in file order (see ftrace_setup_errors.h), parsed sorted.
      if (!seq_it->second.ftrace_setup_errors_counted) {
        const std::vector<std::string> errors = FtraceSetupErrors(pv.payload);
        // Each error is an import log with its message: as upstream's, made
        // while tokenizing, so their arg sets come before any parsed event's.
        for (const std::string& message : errors)
          LogImportProblem(ctx_->storage.get(), Stat::kFtraceSetupErrors, std::nullopt,
                           ctx_->args_tracker->NewSet().AddString("message", message));
        seq_it->second.ftrace_setup_errors_counted = !errors.empty();
      }
      break;
    case TracePacket::kCompressedPacketsFieldNumber:
      TokenizeCompressed(pv.payload, false, offset);
      return;
    case TracePacket::kZstdCompressedPacketsFieldNumber:
      TokenizeCompressed(pv.payload, true, offset);
      return;
    case TracePacket::kTrackEventFieldNumber:
    case TracePacket::kTrackDescriptorFieldNumber:
    case TracePacket::kThreadDescriptorFieldNumber:
    case TracePacket::kProcessDescriptorFieldNumber:
      track_event_tokenizer_->TokenizePacket(pv);
      return;
    case TracePacket::kStreamingProfilePacketFieldNumber:
      ctx_->profile_parser->TokenizeStreamingProfilePacket(pv, this);
      return;
    case kChromeMetadataPacketFieldNumber:
      // Read in file order: each packet's keys get the next cr-<letter>- prefix.
      if (!ParseChromeMetadataPacket(ctx_, chrome_metadata_packets_++, pv.payload))
        ctx_->storage->stats.Increment(Stat::kProtoDecodeErrors);
      return;
    case kTranslationTableFieldNumber:
      // Read now, so events anywhere in the file are translated.
      if (!ctx_->translation_table->Parse(pv.payload))
        ctx_->storage->stats.Increment(Stat::kProtoDecodeErrors);
      return;
    case TracePacket::kAndroidLogFieldNumber:
      TokenizeAndroidLog(pv);
      return;
    case kInterruptInfoFieldNumber:
      // Read in file order, as upstream: the first name of an irq stands.
      if (!ParseInterruptInfo(ctx_->storage.get(),
                              raw_machine_id == 0
                                  ? kHostMachineId
                                  : ctx_->storage->MachineFor(static_cast<int64_t>(raw_machine_id)),
                              pv.payload))
        ctx_->storage->stats.Increment(Stat::kProtoDecodeErrors);
      return;
    case TracePacket::kTrackEventRangeOfInterestFieldNumber:
      // Recorded in file order, before any event is parsed: the last packet
      // in the file sets the range for every TrackEvent, earlier or later
      // ones alike (as upstream, checked with its --crop-track-events).
      SetRangeOfInterest(pv.payload);
      return;
    default:
      break;
  }

  int64_t ts = latest_ts_;
  if (pv.has_timestamp) {
    uint32_t clock = pv.clock_id ? pv.clock_id : gen->default_clock_id;
    auto converted = ToTraceTime(pv.sequence_id, clock, static_cast<int64_t>(pv.timestamp));
    if (!converted) return;
    ts = *converted;
  }
  PushPacket(pv, ts);
}

std::optional<int64_t> ProtoTokenizer::ToTraceTime(uint32_t sequence_id, uint32_t clock_id,
                                                   int64_t value) {
  if (clock_id == 0) clock_id = kClockBoottime;
  uint64_t clock = ClockTracker::IsSequenceScoped(clock_id)
                       ? ClockTracker::SequenceScopedClock(sequence_id, clock_id)
                       : clock_id;
  auto ts = ctx_->clock_tracker->ToTraceTime(clock, value);
  if (!ts) {
    // Traces with no snapshots at all are taken to be in the trace clock.
    if (!ctx_->clock_tracker->has_snapshots() && !ClockTracker::IsSequenceScoped(clock_id))
      return value;
    ctx_->storage->stats.Increment(Stat::kClockSyncFailure);
  }
  return ts;
}

void ProtoTokenizer::SetRangeOfInterest(Bytes roi) {
  Decoder d(roi);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id != TrackEventRangeOfInterest::kStartUsFieldNumber) continue;
    // us -> ns in unsigned arithmetic: a hostile value wraps instead of
    // overflowing (UB).
    ctx_->track_event_range_start_ns =
        static_cast<int64_t>(static_cast<uint64_t>(f.as_int64()) * 1000u);
    return;
  }
  // Without start_us the packet sets no range (upstream ignores it too).
}

void ProtoTokenizer::PushPacket(const PacketView& p, int64_t ts) {
  if (ts > latest_ts_) latest_ts_ = ts;
  SortEntry e{};
  e.ts = ts;
  e.data = p.packet.data;
  e.size = static_cast<uint32_t>(p.packet.size);
  e.aux = p.generation;
  e.kind = SortKind::kTracePacket;
  sorter_->Push(sorter_->SequenceQueue(p.sequence_id), e);
}

void ProtoTokenizer::ApplyInternedData(SequenceGeneration* gen, Bytes interned) {
  Decoder d(interned);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.type != WireType::kLengthDelimited) continue;
    // Every InternedData entry message has its iid as field 1.
    Decoder e(f.bytes);
    uint64_t iid = 0;
    for (Field g = e.Next(); g.valid(); g = e.Next())
      if (g.id == 1 && g.type == WireType::kVarint) {
        iid = g.int_value;
        break;
      }
    gen->AddInterned(f.id, iid, f.bytes);
  }
  if (d.error()) ctx_->storage->stats.Increment(Stat::kInternedDataErrors);
}

void ProtoTokenizer::ParseClockSnapshot(uint32_t sequence_id, Bytes snapshot) {
  std::vector<std::pair<uint64_t, int64_t>> clocks;
  Decoder d(snapshot);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    if (f.id == ClockSnapshot::kClocksFieldNumber) {
      uint32_t id = 0;
      int64_t ts = 0;
      uint64_t multiplier = 1;
      Decoder c(f.bytes);
      for (Field g = c.Next(); g.valid(); g = c.Next()) {
        if (g.id == ClockSnapshot_Clock::kClockIdFieldNumber) id = g.as_uint32();
        if (g.id == ClockSnapshot_Clock::kTimestampFieldNumber) ts = g.as_int64();
        if (g.id == ClockSnapshot_Clock::kUnitMultiplierNsFieldNumber) multiplier = g.int_value;
      }
      uint64_t key = ClockTracker::IsSequenceScoped(id)
                         ? ClockTracker::SequenceScopedClock(sequence_id, id)
                         : id;
      clocks.emplace_back(key, ts * static_cast<int64_t>(multiplier ? multiplier : 1));
    } else if (f.id == ClockSnapshot::kPrimaryTraceClockFieldNumber) {
      ctx_->clock_tracker->SetTraceClock(f.int_value);
    }
  }
  ClockTracker* tracker = ctx_->clock_tracker.get();
  tracker->AddSnapshot(clocks);
  // As upstream, each of the snapshot's clocks is then converted to the trace
  // clock, in packet order: only the cache misses of that count.
  for (const auto& [clock, value] : clocks) tracker->ToTraceTime(clock, value);
}

void ProtoTokenizer::TokenizeCompressed(Bytes payload, bool zstd, uint64_t offset) {
  const char* field = zstd ? "zstd_compressed_packets" : "compressed_packets";
  if (compressed_depth_ >= ctx_->limits.max_compressed_nesting) {
    // Producers compress plain packets only; upstream rejects nesting too.
    ctx_->storage->stats.Increment(Stat::kCompressedPacketErrors);
    ctx_->problems.Add("compressed_packets", offset,
                       std::string(field) + " inside " + field + " (nested " +
                           std::to_string(compressed_depth_ + 1) +
                           " deep; the limit is --max-compressed-nesting " +
                           std::to_string(ctx_->limits.max_compressed_nesting) + "): skipped");
    return;
  }
  std::vector<uint8_t> out;
  size_t max_out = static_cast<size_t>(
      std::min<uint64_t>(ctx_->limits.InflateAllowance(payload.size), SIZE_MAX));
  Status st = zstd ? ZstdDecompressBuffer(payload.data, payload.size, &out, max_out)
                   : InflateBuffer(payload.data, payload.size, &out, max_out);
  if (!st.ok()) {
    // The packets that inflated before the damage (or the limit) still load.
    ctx_->storage->stats.Increment(Stat::kCompressedPacketErrors);
    ctx_->problems.Add("compressed_packets", offset,
                       std::string(field) + " of " + std::to_string(payload.size) +
                           " bytes: " + st.message() + "; loaded the " +
                           std::to_string(out.size()) + " bytes inflated before it");
  }
  inflated_bytes_ += out.size();
  if (out.empty()) return;
  auto blob = TraceBlob::Allocate(out.size());
  memcpy(blob->data.get(), out.data(), out.size());
  std::vector<uint8_t>().swap(out);
  ctx_->origins.Add(blob->data.get(), blob->size, ctx_->problems.source(), offset,
                    /*inflated=*/true);
  size_t consumed = 0;
  ++compressed_depth_;
  TokenizeStream(blob->data.get(), blob->size, offset, &consumed, true);
  --compressed_depth_;
  if (consumed != blob->size && st.ok())
    ctx_->storage->stats.Increment(Stat::kCompressedPacketErrors);
  retained_bytes_ += blob->size;
  blobs_.push_back(std::move(blob));
}

int64_t ProtoTokenizer::FtraceToBoot(int64_t ts) {
  ClockTracker* clocks = ctx_->clock_tracker.get();
  if (std::optional<int64_t> offset =
          clocks->CachedOffset(ClockTracker::kFtraceClock, kClockBoottime, ts))
    return ts + *offset;
  // Events mostly move forward in time: walk from the last answer, and
  // search only when going back.
  const auto& v = ftrace_clock_syncs_;
  size_t& i = ftrace_sync_cursor_;
  if (i >= v.size() || v[i].ftrace_ts > ts) {
    auto it = std::upper_bound(v.begin(), v.end(), ts,
                               [](int64_t t, const FtraceClockSync& x) { return t < x.ftrace_ts; });
    i = it == v.begin() ? 0 : static_cast<size_t>(it - v.begin()) - 1;
  }
  while (i + 1 < v.size() && v[i + 1].ftrace_ts <= ts) ++i;
  // The same sync points serve ftrace times from this one's (from any
  // time if it is the first) to the next one's.
  clocks->StoreMiss(ClockTracker::kFtraceClock, kClockBoottime,
                    i == 0 ? std::numeric_limits<int64_t>::min() : v[i].ftrace_ts,
                    i + 1 < v.size() ? v[i + 1].ftrace_ts : std::numeric_limits<int64_t>::max(),
                    v[i].offset);
  return ts + v[i].offset;
}

void ProtoTokenizer::NoteFtraceDataStart(uint32_t machine, int64_t ts) {
  auto [it, inserted] = ftrace_data_start_.try_emplace(machine, ts);
  if (!inserted && ts <= it->second) return;
  it->second = ts;
  ctx_->system_parser->metadata().writer().SetIntForMachine("ftrace_latest_data_start_ns", ts,
                                                            machine);
}

void ProtoTokenizer::TokenizeFtraceBundle(Bytes bundle, uint32_t generation, uint32_t machine) {
  uint32_t cpu = 0;
  bool lost = false;
  int64_t clock_offset = 0;  // ftrace clock -> boot clock
  uint64_t ftrace_clock = 0;
  int64_t ftrace_ts = 0, boot_ts = 0;
  bool has_sync = false;
  std::optional<int64_t> prev_bundle_end, legacy_prev_end;
  bool has_cpu = false;
  // First pass: bundle-level fields (cpu may come after the events).
  Decoder d(bundle);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case FtraceEventBundle::kCpuFieldNumber:
        cpu = f.as_uint32();
        has_cpu = true;
        break;
      case FtraceEventBundle::kLostEventsFieldNumber:
        lost = f.as_bool();
        break;
      case FtraceEventBundle::kFtraceClockFieldNumber:
        ftrace_clock = f.int_value;
        break;
      case FtraceEventBundle::kFtraceTimestampFieldNumber:
        ftrace_ts = f.as_int64();
        has_sync = true;
        break;
      case FtraceEventBundle::kBootTimestampFieldNumber:
        boot_ts = f.as_int64();
        break;
      case FtraceEventBundle::kPreviousBundleEndTimestampFieldNumber:
        prev_bundle_end = f.as_int64();
        break;
      case FtraceEventBundle::kLastReadEventTimestampFieldNumber:
        legacy_prev_end = f.as_int64();
        break;
      default:
        break;
    }
  }
  // A bundle that does not say which CPU buffer it drained cannot be placed
  // on the timeline: dropped whole, as upstream does.
  if (d.error() || !has_cpu || cpu >= kMaxCpus) {
    ctx_->storage->stats.Increment(Stat::kFtraceBundleErrors);
    return;
  }
  if (lost) ctx_->storage->stats.Increment(Stat::kFtraceLostEvents);
  if (ftrace_clock != 0 && has_sync) {
    clock_offset = boot_ts - ftrace_ts;
    // As upstream, a sync point is taken (as a clock snapshot) only when its
    // ftrace time differs from the last one's: the bundles of one read of
    // all the CPUs share it. Like a snapshot, it empties the conversion cache and its
    // ftrace time is then converted (only the cache miss of that counts).
    if (ftrace_ts != last_ftrace_sync_) {
      last_ftrace_sync_ = ftrace_ts;
      FtraceClockSync sync{ftrace_ts, clock_offset};
      auto pos =
          std::upper_bound(ftrace_clock_syncs_.begin(), ftrace_clock_syncs_.end(), ftrace_ts,
                           [](int64_t t, const FtraceClockSync& x) { return t < x.ftrace_ts; });
      ftrace_clock_syncs_.insert(pos, sync);
      ctx_->clock_tracker->ClearCache();
      FtraceToBoot(ftrace_ts);
    }
  }
  // Without a non-boot clock the events are already boot time.
  const bool convert = ftrace_clock != 0 && !ftrace_clock_syncs_.empty();
  // Producers before previous_bundle_end_timestamp wrote the same value as
  // last_read_event_timestamp.
  auto to_boot = [&](int64_t ts) { return convert ? FtraceToBoot(ts) : ts + clock_offset; };
  if (legacy_prev_end) NoteFtraceDataStart(machine, to_boot(*legacy_prev_end));
  if (!prev_bundle_end) prev_bundle_end = legacy_prev_end;
  if (prev_bundle_end) ctx_->ftrace_parser->OnBundlePreviousEnd(cpu, to_boot(*prev_bundle_end));

  uint32_t queue = sorter_->FtraceQueue(cpu);
  Decoder e(bundle);
  for (Field f = e.Next(); f.valid(); f = e.Next()) {
    if (f.id == FtraceEventBundle::kEventFieldNumber ||
        f.id == FtraceEventBundle::kCompactSchedFieldNumber)
      ctx_->clock_tracker->NoteBootTimestampBeforeSnapshots();
    if (f.id == FtraceEventBundle::kEventFieldNumber && f.type == WireType::kLengthDelimited) {
      // The timestamp is field 1, written first by every producer; fall back
      // to a full scan when it is not.
      uint64_t ts = 0;
      bool found = false;
      const uint8_t* p = f.bytes.data;
      const uint8_t* end = p + f.bytes.size;
      if (p < end && *p == ((FtraceEvent::kTimestampFieldNumber << 3) | 0)) {
        found = proto::ReadLongVarint(p + 1, end, &ts) != nullptr;
      }
      if (!found) {
        Decoder ed(f.bytes);
        for (Field g = ed.Next(); g.valid(); g = ed.Next())
          if (g.id == FtraceEvent::kTimestampFieldNumber) {
            ts = g.int_value;
            found = true;
            break;
          }
      }
      if (!found) {
        ctx_->storage->stats.Increment(Stat::kFtraceParseErrors);
        continue;
      }
      SortEntry se{};
      se.ts = convert ? FtraceToBoot(static_cast<int64_t>(ts))
                      : static_cast<int64_t>(ts) + clock_offset;
      se.data = f.bytes.data;
      se.size = static_cast<uint32_t>(f.bytes.size);
      se.cpu = static_cast<uint16_t>(cpu);
      se.aux = generation;  // interned kernel symbols (funcgraph) live there
      se.kind = SortKind::kFtraceEvent;
      sorter_->Push(queue, se);
      if (se.ts > latest_ts_) latest_ts_ = se.ts;
    } else if (f.id == FtraceEventBundle::kCompactSchedFieldNumber) {
      TokenizeCompactSched(cpu, f.bytes);
    }
  }
  (void)clock_offset;
}

bool DecodeCompactSched(const uint8_t* data, size_t size, uint32_t parts,
                        CompactSchedColumns* out) {
  using CS = FtraceEventBundle_CompactSched;
  CompactSchedColumns& c = *out;
  c.Clear();
  bool sw = parts & kCompactSwitchPart, wk = parts & kCompactWakingPart;
  bool ok = true;
  Decoder d(Bytes{data, size});
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case CS::kSwitchTimestampFieldNumber:
        if (sw) ok &= AppendVarints(f, &c.sw_ts);
        break;
      case CS::kSwitchPrevStateFieldNumber:
        if (sw) ok &= AppendVarints(f, &c.sw_state);
        break;
      case CS::kSwitchNextPidFieldNumber:
        if (sw) ok &= AppendVarints(f, &c.sw_pid);
        break;
      case CS::kSwitchNextPrioFieldNumber:
        if (sw) ok &= AppendVarints(f, &c.sw_prio);
        break;
      case CS::kInternTableFieldNumber:
        if (sw && wk) c.intern.push_back(f.as_string());
        break;
      case CS::kSwitchNextCommIndexFieldNumber:
        if (sw) ok &= AppendVarints(f, &c.sw_comm);
        break;
      case CS::kWakingTimestampFieldNumber:
        if (wk) ok &= AppendVarints(f, &c.wk_ts);
        break;
      case CS::kWakingPidFieldNumber:
        if (wk) ok &= AppendVarints(f, &c.wk_pid);
        break;
      case CS::kWakingTargetCpuFieldNumber:
        if (wk) ok &= AppendVarints(f, &c.wk_cpu);
        break;
      case CS::kWakingPrioFieldNumber:
        if (wk) ok &= AppendVarints(f, &c.wk_prio);
        break;
      case CS::kWakingCommIndexFieldNumber:
        if (wk) ok &= AppendVarints(f, &c.wk_comm);
        break;
      case CS::kWakingCommonFlagsFieldNumber:
        if (wk) ok &= AppendVarints(f, &c.wk_flags);
        break;
      default:
        break;
    }
  }
  size_t ns = c.sw_ts.size(), nw = c.wk_ts.size();
  return ok && !d.error() && c.sw_state.size() == ns && c.sw_pid.size() == ns &&
         c.sw_prio.size() == ns && c.sw_comm.size() == ns && c.wk_pid.size() == nw &&
         c.wk_cpu.size() == nw && c.wk_prio.size() == nw && c.wk_comm.size() == nw &&
         (c.wk_flags.empty() || c.wk_flags.size() == nw);
}

namespace {

// Counts the values of a repeated varint field occurrence (packed or not)
// without decoding them; false on a truncated or over-long varint, exactly
// where PackedVarints fails.
bool CountVarints(const Field& f, size_t* n) {
  if (f.type == WireType::kVarint) {
    ++*n;
    return true;
  }
  if (f.type != WireType::kLengthDelimited) return false;
  // Varints end at bytes without the continuation bit (0x80); more than nine
  // continuation bytes in a row is no varint. A bundle's columns are most of a
  // compact_sched trace and this count is on the tokenizer's critical path, so it
  // takes 8 bytes a step: their continuation bits are gathered into one byte (a
  // multiply moves bit 7 of byte i to bit 56 + i) and counted, and the run of
  // continuation bytes is carried across steps (a run inside 8 bytes is at most 8,
  // so only a run crossing a step boundary can reach 10).
  const uint8_t* p = f.bytes.data;
  const uint8_t* end = p + f.bytes.size;
  unsigned run = 0;  // continuation bytes since the last varint ended
  size_t ended = 0;
  if constexpr (std::endian::native == std::endian::little) {
    for (; end - p >= 8; p += 8) {
      uint64_t w;
      memcpy(&w, p, sizeof w);
      uint64_t high = w & 0x8080808080808080ull;
      auto cont = static_cast<uint8_t>((high * 0x0002040810204081ull) >> 56);
      if (run + static_cast<unsigned>(std::countr_one(cont)) >= 10) return false;
      run = cont == 0xff ? run + 8 : static_cast<unsigned>(std::countl_one(cont));
      // Bytes with the bit set: a multiply sums the eight 0/1 bytes into the top
      // byte (std::popcount is a libgcc call on baseline x86-64).
      ended += 8 - static_cast<size_t>(((high >> 7) * 0x0101010101010101ull) >> 56);
    }
  }
  for (; p < end; ++p) {
    if (*p & 0x80) {
      if (++run >= 10) return false;
    } else {
      run = 0;
      ++ended;
    }
  }
  *n += ended;
  return run == 0;
}

// Walks a delta-coded timestamp column: count, first and last absolute ts,
// and whether they never decrease (a huge delta wraps to a negative step).
struct TsWalk {
  size_t count = 0;
  int64_t ts = 0, first = 0;
  bool monotonic = true;
  void Step(uint64_t delta) {
    int64_t next = ts + static_cast<int64_t>(delta);
    if (count > 0 && next < ts) monotonic = false;
    ts = next;
    if (count++ == 0) first = ts;
  }
  bool Add(const Field& f) {
    if (f.type == WireType::kVarint) {
      Step(f.int_value);
      return true;
    }
    if (f.type != WireType::kLengthDelimited) return false;
    PackedVarints it(f.bytes);
    uint64_t v;
    while (it.Next(&v)) Step(v);
    return !it.error();
  }
};

}  // namespace

void ProtoTokenizer::TokenizeCompactSched(uint32_t cpu, Bytes compact) {
  using CS = FtraceEventBundle_CompactSched;
  // Only the timestamps are decoded here (and the other columns counted):
  // the sorter decodes the bundle again when the merge reaches it.
  CompactSchedColumns& c = compact_scratch_;
  c.Clear();
  TsWalk sw, wk;
  size_t sw_state = 0, sw_pid = 0, sw_prio = 0, sw_comm = 0;
  size_t wk_pid = 0, wk_cpu = 0, wk_prio = 0, wk_comm = 0, wk_flags = 0;
  bool ok = true;
  Decoder d(compact);
  for (Field f = d.Next(); f.valid(); f = d.Next()) {
    switch (f.id) {
      case CS::kSwitchTimestampFieldNumber:
        ok &= sw.Add(f);
        break;
      case CS::kSwitchPrevStateFieldNumber:
        ok &= CountVarints(f, &sw_state);
        break;
      case CS::kSwitchNextPidFieldNumber:
        ok &= CountVarints(f, &sw_pid);
        break;
      case CS::kSwitchNextPrioFieldNumber:
        ok &= CountVarints(f, &sw_prio);
        break;
      case CS::kInternTableFieldNumber:
        c.intern.push_back(f.as_string());
        break;
      case CS::kSwitchNextCommIndexFieldNumber:
        ok &= CountVarints(f, &sw_comm);
        break;
      case CS::kWakingTimestampFieldNumber:
        ok &= wk.Add(f);
        break;
      case CS::kWakingPidFieldNumber:
        ok &= CountVarints(f, &wk_pid);
        break;
      case CS::kWakingTargetCpuFieldNumber:
        ok &= CountVarints(f, &wk_cpu);
        break;
      case CS::kWakingPrioFieldNumber:
        ok &= CountVarints(f, &wk_prio);
        break;
      case CS::kWakingCommIndexFieldNumber:
        ok &= CountVarints(f, &wk_comm);
        break;
      case CS::kWakingCommonFlagsFieldNumber:
        ok &= CountVarints(f, &wk_flags);
        break;
      default:
        break;
    }
  }
  size_t ns = sw.count, nw = wk.count;
  if (!ok || d.error() || sw_state != ns || sw_pid != ns || sw_prio != ns || sw_comm != ns ||
      wk_pid != nw || wk_cpu != nw || wk_prio != nw || wk_comm != nw ||
      (wk_flags != 0 && wk_flags != nw)) {
    ctx_->storage->stats.Increment(Stat::kCompactSchedParseErrors);
    return;
  }
  std::vector<StringId>& intern = compact_interns_;
  intern.clear();
  for (std::string_view s : c.intern) intern.push_back(ctx_->storage->Intern(s));
  // Switches, then wakings (push order: it decides ties between events of
  // one kind on one CPU). The bundle goes to the sorter as one run of its
  // bytes when it continues the CPU's earlier runs in time, else event by
  // event.
  if (ns + nw == 0) return;
  int64_t last = ns && nw ? std::max(sw.ts, wk.ts) : ns ? sw.ts : wk.ts;
  if (last > latest_ts_) latest_ts_ = last;
  if (sw.monotonic && wk.monotonic && compact.size <= UINT32_MAX) {
    Sorter::CompactRun run{compact.data,
                           static_cast<uint32_t>(compact.size),
                           static_cast<uint32_t>(ns),
                           static_cast<uint32_t>(nw),
                           0,
                           static_cast<uint32_t>(intern.size()),
                           0,
                           sw.first,
                           sw.ts,
                           wk.first,
                           wk.ts};
    if (sorter_->TryPushCompactRun(cpu, run, intern.data())) return;
  }
  // Rare (a bundle behind its CPU's earlier ones): decode it all now. It
  // decoded above, so this cannot fail.
  if (!DecodeCompactSched(compact.data, compact.size, kCompactSwitchPart | kCompactWakingPart,
                          &c) ||
      c.sw_ts.size() != ns || c.wk_ts.size() != nw) {
    ctx_->storage->stats.Increment(Stat::kCompactSchedParseErrors);
    return;
  }
  {
    uint32_t queue = sorter_->FtraceQueue(cpu, Sorter::kCompactSwitches);
    int64_t ts = 0;
    for (size_t i = 0; i < ns; ++i) {
      ts += static_cast<int64_t>(c.sw_ts[i]);
      StringId comm = c.sw_comm[i] < intern.size() ? intern[c.sw_comm[i]] : kNullStringId;
      CompactSwitchRecord r{c.sw_state[i], c.sw_pid[i], c.sw_prio[i], comm};
      r.ts = ts;
      sorter_->PushCompactSwitch(queue, r);
    }
  }
  {
    uint32_t queue = sorter_->FtraceQueue(cpu, Sorter::kCompactWakings);
    int64_t ts = 0;
    bool has_flags = !c.wk_flags.empty();
    for (size_t i = 0; i < nw; ++i) {
      ts += static_cast<int64_t>(c.wk_ts[i]);
      StringId comm = c.wk_comm[i] < intern.size() ? intern[c.wk_comm[i]] : kNullStringId;
      CompactWakingRecord r{
          c.wk_pid[i], c.wk_cpu[i], c.wk_prio[i], comm, has_flags ? c.wk_flags[i] : 0, has_flags};
      r.ts = ts;
      sorter_->PushCompactWaking(queue, r);
    }
  }
}

}  // namespace fathom
