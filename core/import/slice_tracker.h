// Nested slices per track: begin/end pairs, complete slices and instants,
// with depth and parent computed from the open-slice stack of each track.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

class SliceTracker {
 public:
  explicit SliceTracker(TraceStorage* storage) : storage_(storage) {}

  // Opens a slice (dur -1 until End). Returns its id.
  std::optional<uint32_t> Begin(int64_t ts, uint32_t track, StringId category, StringId name,
                                std::optional<uint32_t> arg_set_id = std::nullopt);
  // Closes the innermost open slice of `track`. When `name` is given it must
  // match (else misplaced_end_event). Returns the closed slice id.
  std::optional<uint32_t> End(int64_t ts, uint32_t track, StringId category = kNullStringId,
                              StringId name = kNullStringId);
  // A slice with a known duration (0 = instant).
  std::optional<uint32_t> Scoped(int64_t ts, uint32_t track, StringId category, StringId name,
                                 int64_t dur, std::optional<uint32_t> arg_set_id = std::nullopt);

  // Innermost open slice of the track, if any.
  std::optional<uint32_t> GetTopmostOpen(uint32_t track) const;

  // Slices still open keep dur = -1 (as upstream); this only clears state.
  void FlushPendingSlices() { stacks_.clear(); }

 private:
  struct OpenSlice {
    uint32_t id;
    int64_t end_ts;  // for scoped slices: when they close implicitly; -1 if open-ended
  };
  void PopEnded(uint32_t track, int64_t ts);

  TraceStorage* storage_;
  std::unordered_map<uint32_t, std::vector<OpenSlice>> stacks_;
};

}  // namespace fathom
