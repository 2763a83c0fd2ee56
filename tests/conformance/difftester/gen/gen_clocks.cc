// Time domains and delivery: the clock snapshot, packets stamped on other
// clocks (converted back by the reader through the snapshot), data-loss
// flags, and the final interleaving of sequences, out of timestamp order
// across sequences but never within one.
#include <algorithm>
#include <map>

#include "tests/conformance/difftester/gen/generators.h"

namespace fathom::difftester {

void EmitClockSnapshot(GenContext* ctx) {
  const int snapshots = ctx->Chance(50) ? 1 : 2;
  for (int i = 0; i < snapshots; ++i) {
    const int64_t boot = i == 0 ? ctx->start_ts - 1'000 : ctx->end_ts;
    TracePacket* p = ctx->Emit(boot, GenContext::kSeqClock);
    auto* cs = p->mutable_clock_snapshot();
    // All the builtin clocks, as the service snapshots them; the coarse
    // and raw variants read the same here.
    const int64_t mono = boot - ctx->monotonic_offset, real = boot + ctx->realtime_offset;
    const std::pair<uint32_t, int64_t> clocks[] = {
        {kClockBoottime, boot},     {kClockMonotonic, mono}, {kClockMonotonicCoarse, mono},
        {kClockMonotonicRaw, mono}, {kClockRealtime, real},  {kClockRealtimeCoarse, real}};
    for (auto [id, ts] : clocks) {
      auto* c = cs->add_clocks();
      c->set_clock_id(id);
      c->set_timestamp(static_cast<uint64_t>(ts));
    }
    if (ctx->Chance(30)) cs->set_primary_trace_clock(perfetto::protos::BUILTIN_CLOCK_BOOTTIME);
  }
}

// Whole sequences move to MONOTONIC or REALTIME (a producer uses one clock).
void MoveToOtherClocks(GenContext* ctx) {
  std::map<uint32_t, uint32_t> clock_of;
  for (EmittedPacket& e : ctx->packets) {
    if (e.sequence == GenContext::kSeqClock || !e.packet.has_timestamp()) continue;
    auto it = clock_of.find(e.sequence);
    if (it == clock_of.end()) {
      const int r = static_cast<int>(ctx->Rand(100));
      it = clock_of
               .emplace(e.sequence, r < 60   ? kClockBoottime
                                    : r < 85 ? kClockMonotonic
                                             : kClockRealtime)
               .first;
    }
    if (it->second == kClockBoottime) continue;
    e.packet.set_timestamp_clock_id(it->second);
    const int64_t offset =
        it->second == kClockMonotonic ? -ctx->monotonic_offset : ctx->realtime_offset;
    e.packet.set_timestamp(static_cast<uint64_t>(e.boot_ts + offset));
  }
}

// A few packets say data was lost before them on their sequence (as the
// service writes after a chunk was dropped).
void MarkDataLoss(GenContext* ctx) {
  std::map<uint32_t, int> seen;
  for (EmittedPacket& e : ctx->packets) {
    if (e.sequence == GenContext::kSeqClock) continue;
    if (seen[e.sequence]++ > 0 && ctx->Chance(3)) e.packet.set_previous_packet_dropped(1);
  }
}

std::vector<TracePacket*> InterleaveSequences(GenContext* ctx) {
  std::map<uint32_t, std::vector<EmittedPacket*>> by_seq;
  for (EmittedPacket& e : ctx->packets) by_seq[e.sequence].push_back(&e);
  // Each packet's delivery key: its time plus a delay, so sequences arrive
  // interleaved out of order (within a few ms, as the service's buffers do).
  std::vector<std::pair<int64_t, EmittedPacket*>> heads;
  std::map<uint32_t, size_t> next;
  std::vector<TracePacket*> out;
  const int64_t max_delay = ctx->features.reorder ? 3'000'000 : 0;
  std::map<EmittedPacket*, int64_t> key;
  for (auto& [seq, list] : by_seq)
    for (EmittedPacket* e : list) key[e] = e->boot_ts + ctx->RandRange(0, max_delay);
  // The first clock snapshot goes first, as the service writes it first.
  if (auto it = by_seq.find(GenContext::kSeqClock); it != by_seq.end()) {
    out.push_back(&it->second.front()->packet);
    next[GenContext::kSeqClock] = 1;
  }
  for (;;) {
    EmittedPacket* best = nullptr;
    uint32_t best_seq = 0;
    for (auto& [seq, list] : by_seq) {
      const size_t i = next[seq];
      if (i < list.size() && (!best || key[list[i]] < key[best])) {
        best = list[i];
        best_seq = seq;
      }
    }
    if (!best) break;
    ++next[best_seq];
    out.push_back(&best->packet);
  }
  return out;
}

}  // namespace fathom::difftester
