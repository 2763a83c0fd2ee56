#include "core/import/track_event_callstacks.h"

#include "core/import/profile_stack_tracker.h"
#include "core/import/sequence_state.h"

namespace fathom {

void TrackEventCallstacks::Record(const TrackEventCallstack& cs, const SequenceGeneration& gen,
                                  bool is_end, uint32_t slice, uint32_t track) {
  std::optional<uint32_t> callsite;
  if (cs.inline_frames)
    callsite = inline_.Intern(*cs.inline_frames);
  else if (cs.iid)
    callsite = stacks_->ResolveCallstack(InternedProfileIds(gen), &gen, *cs.iid);
  if (!callsite) return;
  auto& table = storage_->profile.track_event_callstacks;
  if (is_end)
    table.Insert(slice, track, std::nullopt, callsite, cs.weight);
  else
    table.Insert(slice, track, callsite, std::nullopt, cs.weight);
}

}  // namespace fathom
