// TrackEvent callstacks: a begin, instant or end event may carry the stack it
// was emitted from, written out inline (TrackEvent.callstack) or interned
// (callstack_iid), with an optional weight. Each one becomes a row of
// __intrinsic_track_event_callstacks tied to the event's slice.
#pragma once

#include <cstdint>
#include <optional>

#include "core/import/inline_callstacks.h"
#include "core/import/proto_decoder.h"
#include "core/storage/trace_storage.h"

namespace fathom {

struct SequenceGeneration;
class StackProfileTracker;

struct TrackEventCallstack {
  std::optional<proto::Bytes> inline_frames;  // TrackEvent.callstack
  std::optional<uint64_t> iid;                // TrackEvent.callstack_iid
  std::optional<double> weight;               // TrackEvent.callstack_weight
  bool present() const { return inline_frames || iid; }
};

class TrackEventCallstacks {
 public:
  TrackEventCallstacks(TraceStorage* storage, StackProfileTracker* stacks)
      : storage_(storage), stacks_(stacks), inline_(storage, stacks, "track_event_inline") {}

  // Records the callstack of the event that began (or, `is_end`, ended)
  // `slice` on `track`. A stack that resolves to no frames, or an iid the
  // sequence never interned, adds nothing (as upstream, without a stat).
  void Record(const TrackEventCallstack& cs, const SequenceGeneration& gen, bool is_end,
              uint32_t slice, uint32_t track);

 private:
  TraceStorage* storage_;
  StackProfileTracker* stacks_;
  InlineCallstackInterner inline_;
};

}  // namespace fathom
