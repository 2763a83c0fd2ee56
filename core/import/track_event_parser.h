// Parses sorted TrackEvent packets and track descriptors into tracks, slices,
// instants, counters, flows and args.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/import/flow_tracker.h"
#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"
#include "core/import/track_event_annotations.h"
#include "core/import/track_event_callstacks.h"

namespace fathom {

struct SequenceGeneration;
class TrackEventTracker;
struct TrackEventView;

class TrackEventParser {
 public:
  explicit TrackEventParser(TraceContext* ctx);
  ~TrackEventParser();

  // `field_id` is the TracePacket payload field (track_event,
  // track_descriptor, thread_descriptor, process_descriptor).
  void ParsePacket(int64_t ts, uint32_t field_id, proto::Bytes payload, proto::Bytes packet,
                   const SequenceGeneration& gen);
  void OnImportFinished();

  TrackEventTracker* tracker() { return tracker_.get(); }

 private:
  void ParseTrackDescriptor(proto::Bytes payload, const SequenceGeneration& gen);
  void ParseThreadDescriptor(proto::Bytes thread);
  void ParseProcessDescriptor(proto::Bytes process, std::optional<uint32_t> upid);
  // False when the event was rejected (counted in track_event_parser_errors).
  // Sets the event's category and name as soon as they are decoded.
  bool ParseTrackEvent(int64_t ts, proto::Bytes event, proto::Bytes packet,
                       const SequenceGeneration& gen, StringId* category_out, StringId* name_out);
  // Connects `slice` to earlier slices of the same flows.
  void AddFlows(const TrackEventView& ev, uint32_t slice);
  // Legacy flow events (phases s, t, f) on `track`.
  void AddLegacyFlowEvent(const TrackEventView& ev, uint32_t track);

  TraceContext* ctx_;
  std::unique_ptr<TrackEventTracker> tracker_;
  // A TYPE_STATE event: ends the track's current state, starts a new one.
  void AddStateEvent(int64_t ts, const TrackEventView& ev, uint32_t track);

  FlowTracker flows_;
  TrackEventAnnotations annotations_;                         // --analyze-trace-proto-content
  std::unordered_map<uint32_t, uint32_t> current_state_;      // state track -> state row
  std::unordered_set<uint32_t> chrome_process_args_written_;  // upids
  std::unique_ptr<TrackEventCallstacks> callstacks_;          // made at first use
};

}  // namespace fathom
