// Tokenization of TrackEvent-related packets (track_event, track_descriptor,
// legacy thread/process descriptors): resolves their timestamps (including
// legacy delta timestamps and incremental clocks) and pushes them to the
// sorter through the ProtoTokenizer.
#pragma once

#include "core/import/trace_context.h"

namespace fathom {

class ProtoTokenizer;
struct PacketView;

class TrackEventTokenizer {
 public:
  TrackEventTokenizer(TraceContext* ctx, ProtoTokenizer* tokenizer);
  void TokenizePacket(const PacketView& packet);

 private:
  TraceContext* ctx_;
  ProtoTokenizer* tokenizer_;
};

}  // namespace fathom
