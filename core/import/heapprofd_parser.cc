#include "core/import/heapprofd_parser.h"

#include <algorithm>
#include <functional>
#include <string>

#include "core/import/clock_tracker.h"
#include "core/import/process_tracker.h"
#include "core/import/sequence_state.h"
#include "core/import/trace_context.h"
#include "perfetto/trace/profiling/profile_packet.pb.h"

namespace fathom {

using perfetto::protos::ProfilePacket;
using HeapSamples = perfetto::protos::ProfilePacket::ProcessHeapSamples;
using HeapSample = perfetto::protos::ProfilePacket::HeapSample;
using ProcessStats = perfetto::protos::ProfilePacket::ProcessStats;

namespace {

struct Counts {
  int64_t count = 0, size = 0;
};
struct Totals {
  Counts alloc, freed;
};
struct SeenKey {
  uint32_t upid;
  StringId heap;
  uint64_t iid;
  bool operator==(const SeenKey& o) const {
    return upid == o.upid && heap == o.heap && iid == o.iid;
  }
};
struct SeenKeyHash {
  size_t operator()(const SeenKey& k) const {
    return std::hash<uint64_t>()((static_cast<uint64_t>(k.upid) << 32 | k.heap) ^
                                 (k.iid * 0x9e3779b97f4a7c15ull));
  }
};

uint64_t IidOf(proto::Bytes msg) {
  proto::Decoder d(msg);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next())
    if (f.id == 1) return f.as_uint64();  // every interned message has iid = 1
  return 0;
}

}  // namespace

// One sequence generation's heapprofd state. The packet's own tables are
// copied: the packet memory is not ours to keep.
struct HeapprofdParser::Sequence : ProfileIdSource {
  std::unordered_map<uint64_t, std::string> tables[6];  // by ProfileIdSource::Kind
  const SequenceGeneration* gen = nullptr;              // InternedData fallback
  bool has_tables = false;                              // the current dump has its own tables
  // Until the first dump ends, string id 0 (a mapping without build id, a
  // frame without name) reads as ""; after it, as upstream, it is undefined.
  bool dump_ended = false;
  std::optional<uint64_t> prev_index;
  std::vector<Sample> pending;

  // Cumulative counters of the last dump, by (upid, callsite): allocations
  // positive, frees negative. Hash maps: a dump can have a million samples.
  std::unordered_map<uint64_t, Totals> prev;
  // Callsites each (upid, heap, callstack iid) has resolved to so far.
  std::unordered_map<SeenKey, std::vector<uint32_t>, SeenKeyHash> seen;
  // Added to a callstack iid's counters: what its callsite held when a
  // (process, heap) first used it. Keyed by the iid alone, as upstream.
  std::unordered_map<uint64_t, Totals> correction;

  std::optional<proto::Bytes> Get(Kind kind, uint64_t iid) const override {
    // Function names, mapping paths and build ids share the one string table.
    Kind table = (kind == kMappingPath || kind == kBuildId) ? kFunctionName : kind;
    auto it = tables[table].find(iid);
    if (it != tables[table].end())
      return proto::Bytes{reinterpret_cast<const uint8_t*>(it->second.data()), it->second.size()};
    if (table == kFunctionName && iid == 0 && !dump_ended) return proto::Bytes{nullptr, 0};
    if (gen) return InternedProfileIds(*gen).Get(kind, iid);
    return std::nullopt;
  }
  // The packet's own tables follow upstream's strict rules; InternedData
  // alone does not.
  bool strict() const override { return has_tables; }
  bool missing_is_interned_error() const override { return true; }
};

HeapprofdParser::HeapprofdParser(TraceContext* ctx, StackProfileTracker* stacks)
    : ctx_(ctx), stacks_(stacks), art_heap_(ctx->storage->Intern("com.android.art")) {}
HeapprofdParser::~HeapprofdParser() = default;

HeapprofdParser::Sequence& HeapprofdParser::SequenceOf(const SequenceGeneration& gen) {
  auto& p = sequences_[&gen];
  if (!p) {
    p = std::make_unique<Sequence>();
    p->gen = &gen;
    order_.push_back(p.get());
  }
  return *p;
}

void HeapprofdParser::ParseProfilePacket(int64_t ts, proto::Bytes payload,
                                         const SequenceGeneration& gen) {
  TraceStorage* s = ctx_->storage.get();
  Sequence& seq = SequenceOf(gen);
  bool continued = false;
  std::optional<uint64_t> index;
  std::vector<proto::Bytes> dumps;
  std::vector<uint64_t> order[6];  // iids in packet order, by kind
  proto::Decoder d(payload);
  for (proto::Field f = d.Next(); f.valid(); f = d.Next()) {
    int table = -1;
    switch (f.id) {
      case ProfilePacket::kStringsFieldNumber:
        table = ProfileIdSource::kFunctionName;
        break;
      case ProfilePacket::kFramesFieldNumber:
        table = ProfileIdSource::kFrame;
        break;
      case ProfilePacket::kCallstacksFieldNumber:
        table = ProfileIdSource::kCallstack;
        break;
      case ProfilePacket::kMappingsFieldNumber:
        table = ProfileIdSource::kMapping;
        break;
      case ProfilePacket::kProcessDumpsFieldNumber:
        dumps.push_back(f.bytes);
        break;
      case ProfilePacket::kContinuedFieldNumber:
        continued = f.as_bool();
        break;
      case ProfilePacket::kIndexFieldNumber:
        index = f.as_uint64();
        break;
    }
    if (table < 0) continue;
    uint64_t iid = IidOf(f.bytes);
    // A redefined id keeps its first definition within a dump.
    if (seq.tables[table].emplace(iid, std::string(f.bytes.AsString())).second)
      order[table].push_back(iid);
    seq.has_tables = true;
  }
  if (index) {
    if (seq.prev_index ? *index != *seq.prev_index + 1 : *index != 0)
      s->stats.Increment(Stat::kHeapprofdMissingPacket);
    seq.prev_index = index;
  }
  // As upstream, the packet's tables are interned right away, mappings then
  // frames then callstacks, each in packet order.
  for (auto kind :
       {ProfileIdSource::kMapping, ProfileIdSource::kFrame, ProfileIdSource::kCallstack})
    for (uint64_t iid : order[kind]) stacks_->Preresolve(seq, &seq, kind, iid);

  for (proto::Bytes dump : dumps) ParseDump(ts, dump, seq);
  // A dump split over several packets is complete with the last one.
  if (!continued) CommitDump(seq);
}

void HeapprofdParser::ParseDump(int64_t ts, proto::Bytes dump, Sequence& seq) {
  TraceStorage* s = ctx_->storage.get();
  int64_t pid = 0;
  int64_t raw_ts = 0;  // as upstream, a dump without a timestamp is at 0
  std::optional<int64_t> start_ts;
  StringId heap_name = kNullStringId;
  std::vector<proto::Bytes> samples;
  bool rejected = false, disconnected = false, overran = false, corrupted = false,
       guardrail = false;
  uint64_t client_error = 0, interval = 0, orig_interval = 0;
  uint64_t unwind_us = 0, unwind_samples = 0, spinlock_us = 0;
  proto::Decoder dd(dump);
  for (proto::Field f = dd.Next(); f.valid(); f = dd.Next()) {
    switch (f.id) {
      case HeapSamples::kPidFieldNumber:
        pid = f.as_int64();
        break;
      case HeapSamples::kSamplesFieldNumber:
        samples.push_back(f.bytes);
        break;
      case HeapSamples::kRejectedConcurrentFieldNumber:
        rejected = f.as_bool();
        break;
      case HeapSamples::kDisconnectedFieldNumber:
        disconnected = f.as_bool();
        break;
      case HeapSamples::kBufferOverranFieldNumber:
        overran = f.as_bool();
        break;
      case HeapSamples::kBufferCorruptedFieldNumber:
        corrupted = f.as_bool();
        break;
      case HeapSamples::kHitGuardrailFieldNumber:
        guardrail = f.as_bool();
        break;
      case HeapSamples::kHeapNameFieldNumber:
        heap_name = s->Intern(f.as_string());
        break;
      case HeapSamples::kTimestampFieldNumber:
        raw_ts = f.as_int64();
        break;
      case HeapSamples::kStartTimestampFieldNumber:
        start_ts = ctx_->clock_tracker->ToTraceTime(kClockMonotonicCoarse, f.as_int64());
        break;
      case HeapSamples::kClientErrorFieldNumber:
        client_error = f.as_uint64();
        break;
      case HeapSamples::kSamplingIntervalBytesFieldNumber:
        interval = f.as_uint64();
        break;
      case HeapSamples::kOrigSamplingIntervalBytesFieldNumber:
        orig_interval = f.as_uint64();
        break;
      case HeapSamples::kStatsFieldNumber: {
        proto::Decoder sd(f.bytes);
        for (proto::Field g = sd.Next(); g.valid(); g = sd.Next()) {
          if (g.id == ProcessStats::kTotalUnwindingTimeUsFieldNumber) unwind_us = g.as_uint64();
          if (g.id == ProcessStats::kHeapSamplesFieldNumber) unwind_samples = g.as_uint64();
          if (g.id == ProcessStats::kClientSpinlockBlockedUsFieldNumber)
            spinlock_us = g.as_uint64();
        }
        break;
      }
    }
  }
  // The dump time is CLOCK_MONOTONIC_COARSE. As upstream, a dump whose time
  // cannot be converted is dropped whole (its stats included) and counted.
  ClockTracker* clocks = ctx_->clock_tracker.get();
  std::optional<int64_t> t = clocks->ToTraceTime(kClockMonotonicCoarse, raw_ts);
  if (!t) {
    s->stats.Increment(clocks->Knows(kClockMonotonicCoarse)
                           ? Stat::kClockSyncFailure
                           : Stat::kClockSyncFailureUnknownSourceClock);
    return;
  }
  // Per process, indexed by pid; the last dump's time is the packet's.
  s->stats.SetIndexed(Stat::kHeapprofdLastProfileTimestamp, pid, ts);
  if (disconnected) s->stats.IncrementIndexed(Stat::kHeapprofdClientDisconnected, pid);
  if (corrupted) s->stats.IncrementIndexed(Stat::kHeapprofdBufferCorrupted, pid);
  if (overran || client_error == HeapSamples::CLIENT_ERROR_HIT_TIMEOUT)
    s->stats.IncrementIndexed(Stat::kHeapprofdBufferOverran, pid);
  if (client_error)
    s->stats.SetIndexed(Stat::kHeapprofdClientError, pid, static_cast<int64_t>(client_error));
  if (rejected) s->stats.IncrementIndexed(Stat::kHeapprofdRejected, pid);
  if (guardrail) s->stats.IncrementIndexed(Stat::kHeapprofdHitGuardrail, pid);
  if (orig_interval) {
    s->stats.SetIndexed(Stat::kHeapprofdSamplingIntervalAdjusted, pid,
                        static_cast<int64_t>(interval) - static_cast<int64_t>(orig_interval));
  }
  s->stats.IncrementIndexed(Stat::kHeapprofdUnwindTimeUs, pid, static_cast<int64_t>(unwind_us));
  s->stats.IncrementIndexed(Stat::kHeapprofdUnwindSamples, pid,
                            static_cast<int64_t>(unwind_samples));
  s->stats.IncrementIndexed(Stat::kHeapprofdClientSpinlockBlocked, pid,
                            static_cast<int64_t>(spinlock_us));

  uint32_t upid = ctx_->process_tracker->GetOrCreateProcess(pid);
  s->profile.heap_profile.Insert(start_ts.value_or(*t), *t, upid, heap_name);
  // A dump that names no heap is "unknown", as upstream (not assumed malloc).
  if (heap_name == kNullStringId) heap_name = s->Intern("unknown");
  // Producers set orig_sampling_interval_bytes only once they had fixed
  // self_max_count: older ones' counts at the peak are not used.
  const bool max_count_trusted = orig_interval > 0;

  for (proto::Bytes sample : samples) {
    Sample p{upid, *t, heap_name, 0, 0, 0, 0, 0};
    std::optional<int64_t> max_size;
    int64_t max_count = 0;
    proto::Decoder sd(sample);
    for (proto::Field f = sd.Next(); f.valid(); f = sd.Next()) {
      switch (f.id) {
        case HeapSample::kCallstackIdFieldNumber:
          p.callstack_iid = f.as_uint64();
          break;
        case HeapSample::kSelfAllocatedFieldNumber:
          p.alloc_size = f.as_int64();
          break;
        case HeapSample::kSelfFreedFieldNumber:
          p.free_size = f.as_int64();
          break;
        case HeapSample::kAllocCountFieldNumber:
          p.alloc_count = f.as_int64();
          break;
        case HeapSample::kFreeCountFieldNumber:
          p.free_count = f.as_int64();
          break;
        case HeapSample::kSelfMaxFieldNumber:
          max_size = f.as_int64();
          break;
        case HeapSample::kSelfMaxCountFieldNumber:
          max_count = f.as_int64();
          break;
      }
    }
    if (max_size) {
      // dump_at_max: what was live at the peak; nothing freed.
      p.alloc_size = *max_size;
      p.alloc_count = max_count_trusted ? max_count : 0;
      p.free_size = p.free_count = 0;
    }
    seq.pending.push_back(p);
  }
}

void HeapprofdParser::CommitDump(Sequence& seq) {
  TraceStorage* s = ctx_->storage.get();
  for (const Sample& p : seq.pending) {
    auto callsite = stacks_->ResolveCallstack(seq, &seq, p.callstack_iid);
    if (!callsite) continue;
    AddAllocation(seq, p, *callsite);
    s->UpdateBounds(p.ts);
  }
  seq.pending.clear();
  // The packet's own tables end with the dump (ids resolved from InternedData
  // stay valid, but are cheap to resolve again).
  if (seq.has_tables) {
    stacks_->ClearCache(&seq);
    for (auto& table : seq.tables) table.clear();
    seq.has_tables = false;
  }
  seq.dump_ended = true;
}

// Counters are cumulative per process and callsite on the sequence, so a row
// is the change since the last dump. A (process, heap, callstack iid) seen
// for the first time starts from what its callsite already held (e.g. from
// another heap): that is added to its counters, so only its own growth shows.
void HeapprofdParser::AddAllocation(Sequence& seq, const Sample& p, uint32_t callsite) {
  TraceStorage* s = ctx_->storage.get();
  auto prev_it = seq.prev.try_emplace(static_cast<uint64_t>(p.upid) << 32 | callsite).first;
  const Totals before = prev_it->second;  // zero when first
  std::vector<uint32_t>& seen = seq.seen[SeenKey{p.upid, p.heap_name, p.callstack_iid}];
  Totals& correction = seq.correction[p.callstack_iid];
  if (std::find(seen.begin(), seen.end(), callsite) == seen.end()) {
    seen.push_back(callsite);
    correction = before;
  }
  Totals now{{p.alloc_count + correction.alloc.count, p.alloc_size + correction.alloc.size},
             {correction.freed.count - p.free_count, correction.freed.size - p.free_size}};
  const Counts alloc_delta{now.alloc.count - before.alloc.count,
                           now.alloc.size - before.alloc.size};
  const Counts free_delta{now.freed.count - before.freed.count, now.freed.size - before.freed.size};
  if (alloc_delta.count < 0 || alloc_delta.size < 0 || free_delta.count > 0 ||
      free_delta.size > 0) {
    s->stats.IncrementIndexed(Stat::kHeapprofdMalformedPacket, p.upid);
    return;  // a new entry stays zero: the same as none
  }
  auto& table = s->profile.heap_profile_allocation;
  if (alloc_delta.count || alloc_delta.size)
    table.Insert(p.ts, p.upid, p.heap_name, callsite, alloc_delta.count, alloc_delta.size);
  // As upstream, the ART heap's frees are not rows (they still count above).
  if ((free_delta.count || free_delta.size) && p.heap_name != art_heap_)
    table.Insert(p.ts, p.upid, p.heap_name, callsite, free_delta.count, free_delta.size);
  prev_it->second = now;
}

void HeapprofdParser::OnImportFinished() {
  // As upstream, a dump whose last packet never came has no rows (and
  // heapprofd_non_finalized_profile stays 0).
  for (Sequence* seq : order_) seq->pending.clear();
}

}  // namespace fathom
