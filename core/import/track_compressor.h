// A group of interchangeable slice tracks, as upstream "compresses" tracks:
// the slices of one group (e.g. every android_fs read, or the command batches
// of one GPU context) are spread over the fewest tracks that keep unrelated
// slices from overlapping. Each track of the group carries its index in the
// group as the dimension arg `track_compressor_idx` (the caller's factory
// creates it).
//
// Two ways of placing slices (a group uses one of them):
//  - begin/end slices owned by a cookie (e.g. the reading thread): a cookie
//    with open slices keeps its track, so its slices nest; any other begin
//    takes the lowest-index track with no open slice, else a new one;
//  - complete slices: the lowest-index track whose slices all end by the new
//    slice's start, else a new one.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace fathom {

class TrackCompressor {
 public:
  // Creates the group's track number `idx` (0, 1, ... in order of need).
  using Factory = std::function<uint32_t(uint32_t idx)>;

  // The track for a new begin of `cookie`.
  uint32_t BeginTrack(int64_t cookie, const Factory& create);
  // The track holding `cookie`'s open slices, one of which ends now;
  // nullopt when the cookie has none open.
  std::optional<uint32_t> EndTrack(int64_t cookie);
  // Unnestable begin/end (atrace async slices), as pinned on the reference:
  // a slot remembers the last cookie that used it. A begin takes the slot of
  // its cookie (open or not), else the lowest free one, else a new one; a
  // begin of an open cookie does not count as another open slice. An end
  // closes its cookie's open slot; with none open it still names a slot the
  // same way (its cookie's, the lowest free, or a new one) and marks it as
  // that cookie's, opening nothing.
  uint32_t BeginUnnestable(int64_t cookie, const Factory& create);
  uint32_t EndUnnestable(int64_t cookie, const Factory& create);
  // Nestable begin/end (legacy JSON async slices): the slot is found as for
  // unnestable ones (the cookie's own, else the lowest free, else a new
  // one), but each begin opens one more slice and an end closes one (none
  // when the slot has none open), so a slot frees only when its cookie's
  // slices have all ended.
  uint32_t BeginNestable(int64_t cookie, const Factory& create);
  uint32_t EndNestable(int64_t cookie, const Factory& create);
  // The track for a complete slice [ts, ts + dur).
  uint32_t CompleteTrack(int64_t ts, int64_t dur, const Factory& create);

  // The group's track_group_id: the tracks of a group share one, numbered
  // (by `next`, called once) when the group's first track is made.
  template <typename Next>
  uint32_t GroupId(Next next) {
    if (!group_id_) group_id_ = next();
    return *group_id_;
  }

 private:
  struct Slot {
    uint32_t track;
    int64_t cookie = 0;
    uint32_t open = 0;        // begin/end: open slices of `cookie`
    int64_t end = INT64_MIN;  // complete: end of the latest slice
  };
  uint32_t NewSlot(const Factory& create);
  // The slot of `cookie`, else the lowest free one, else a new one; it is
  // `cookie`'s now.
  Slot& UnnestableSlot(int64_t cookie, const Factory& create);
  std::vector<Slot> slots_;
  std::optional<uint32_t> group_id_;
};

}  // namespace fathom
