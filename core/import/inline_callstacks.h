// Callstacks written out frame by frame in the event itself (no binary, no
// pc): StackSample.callstack and TrackEvent.callstack. Both messages list
// frames root first as {function_name = 1, source_file = 2, line_number = 3}.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>

#include "core/import/proto_decoder.h"
#include "core/storage/trace_storage.h"

namespace fathom {

class StackProfileTracker;

class InlineCallstackInterner {
 public:
  // `mapping_name` names the synthetic mapping all these frames share (upstream
  // uses one per source: "stack_sample_inline", "track_event_inline").
  InlineCallstackInterner(TraceStorage* storage, StackProfileTracker* stacks,
                          std::string_view mapping_name)
      : storage_(storage), stacks_(stacks), mapping_name_(mapping_name) {}

  // Callsite of the leaf frame; nullopt for a callstack without frames.
  std::optional<uint32_t> Intern(proto::Bytes callstack);

 private:
  uint32_t Frame(StringId name, StringId file, std::optional<uint32_t> line);

  TraceStorage* storage_;
  StackProfileTracker* stacks_;
  std::string_view mapping_name_;
  std::optional<uint32_t> mapping_;
  // Frames are told apart by function name and source location, which are
  // also kept as the frame's one symbol. Line -1 = none.
  std::map<std::tuple<StringId, StringId, int64_t>, uint32_t> frames_;
};

}  // namespace fathom
