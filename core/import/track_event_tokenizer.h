// Tokenization of TrackEvent-related packets (track_event, track_descriptor,
// legacy thread/process descriptors): resolves their timestamps (including
// legacy delta timestamps), reserves descriptor tracks eagerly (events may
// be sorted before the descriptor of their track), keeps the per-sequence
// state later events depend on (legacy pid/tid, incremental counters) and
// pushes the packets to the sorter through the ProtoTokenizer.
#pragma once

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

class ProtoTokenizer;
class TrackEventTracker;
struct PacketView;
struct SequenceGeneration;

class TrackEventTokenizer {
 public:
  TrackEventTokenizer(TraceContext* ctx, ProtoTokenizer* tokenizer);
  void TokenizePacket(const PacketView& packet);

 private:
  void TokenizeTrackDescriptor(const PacketView& p, SequenceGeneration& gen);
  void TokenizeThreadDescriptor(proto::Bytes thread, SequenceGeneration& gen);
  // Returns false when the event must be dropped.
  bool TokenizeTrackEvent(const PacketView& p, SequenceGeneration& gen, int64_t* ts);
  TrackEventTracker* tracker();

  TraceContext* ctx_;
  ProtoTokenizer* tokenizer_;
};

}  // namespace fathom
