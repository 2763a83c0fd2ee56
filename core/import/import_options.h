// What a load imports beyond the defaults: the behaviours upstream's
// trace_processor_shell puts behind its flags of the same names (both off
// by default there too). Upstream's diff-test runner loads with both on, so
// the conformance harnesses do as well.
#pragma once

namespace fathom {

struct ImportOptions {
  // --crop-track-events: TrackEvents stamped before the start of the trace's
  // range of interest (the last TrackEventRangeOfInterest packet in file
  // order) are dropped. (Upstream also counts them in the stat
  // track_event_dropped_packets_outside_of_range_of_interest; Fathom does not
  // have that stat yet.)
  bool crop_track_events = false;
  // --analyze-trace-proto-content: every TrackEvent packet is annotated with
  // an arg set {event.category, event.name} (one set per distinct pair).
  // Upstream also fills its experimental_proto_path/_content size tables
  // under this flag; Fathom does not build those.
  bool analyze_trace_proto_content = false;
};

}  // namespace fathom
