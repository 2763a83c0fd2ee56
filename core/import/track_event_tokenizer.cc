#include "core/import/track_event_tokenizer.h"

#include "core/import/proto_tokenizer.h"

namespace fathom {

TrackEventTokenizer::TrackEventTokenizer(TraceContext* ctx, ProtoTokenizer* tokenizer)
    : ctx_(ctx), tokenizer_(tokenizer) {}

void TrackEventTokenizer::TokenizePacket(const PacketView& p) {
  int64_t ts = tokenizer_->latest_timestamp();
  if (p.has_timestamp) {
    const auto& gen = tokenizer_->generation(p.generation);
    uint32_t clock = p.clock_id ? p.clock_id : gen.default_clock_id;
    auto converted =
        tokenizer_->ToTraceTime(p.sequence_id, clock, static_cast<int64_t>(p.timestamp));
    if (!converted) return;
    ts = *converted;
  }
  tokenizer_->PushPacket(p, ts);
}

}  // namespace fathom
