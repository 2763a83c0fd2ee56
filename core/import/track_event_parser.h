// Parses sorted TrackEvent packets and track descriptors into tracks, slices,
// instants, counters, flows and args.
#pragma once

#include <cstdint>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

struct SequenceGeneration;

class TrackEventParser {
 public:
  explicit TrackEventParser(TraceContext* ctx);
  ~TrackEventParser();

  // `field_id` is the TracePacket payload field (track_event,
  // track_descriptor, thread_descriptor, process_descriptor).
  void ParsePacket(int64_t ts, uint32_t field_id, proto::Bytes payload, proto::Bytes packet,
                   const SequenceGeneration& gen);
  void OnImportFinished();

 private:
  TraceContext* ctx_;
};

}  // namespace fathom
