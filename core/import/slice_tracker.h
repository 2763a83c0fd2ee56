// Nested slices per track: begin/end pairs, complete slices and instants,
// with depth and parent computed from the open-slice stack of each track.
//
// Semantics follow upstream Perfetto's SliceTracker:
//  * A track's stack holds open slices and complete (scoped) slices until an
//    event at or after their end arrives; intervals are closed on the left and
//    open on the right, except that instants at the same timestamp stack.
//  * End() closes the innermost *open* slice whose category and name match
//    (a null category/name matches anything); slices above it stay open
//    until a later event finds them inside a finished parent, at which point
//    they are truncated to the parent's end (counted as misplaced_end_event).
//  * A complete slice that would straddle the end of an enclosing complete
//    slice is dropped; stacks deeper than kMaxDepth drop new slices (counted
//    as slice_max_depth_exceeded, as upstream, and reported once per track).
//  * Args given at begin and end (as ArgsTracker builders) are merged into one
//    arg set, written when the slice leaves the stack (or at the end of the
//    import).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/import/args_tracker.h"
#include "core/import/load_problems.h"
#include "core/storage/trace_storage.h"

namespace fathom {

class SliceTracker {
 public:
  static constexpr size_t kMaxDepth = 512;

  // `problems` (optional) gets a line for each track that drops too-deep slices.
  explicit SliceTracker(TraceStorage* storage, LoadProblems* problems = nullptr)
      : storage_(storage), problems_(problems) {}

  // Opens a slice (dur -1 until End). Returns its id (nullopt if dropped).
  std::optional<uint32_t> Begin(int64_t ts, uint32_t track, StringId category, StringId name,
                                std::optional<uint32_t> arg_set_id = std::nullopt);
  std::optional<uint32_t> Begin(int64_t ts, uint32_t track, StringId category, StringId name,
                                ArgsTracker::Builder args);
  // Closes the innermost open slice of `track` matching `category` and `name`
  // (kNullStringId matches any); an end that matches nothing is ignored without
  // a stat, as upstream does. Returns the closed slice id.
  std::optional<uint32_t> End(int64_t ts, uint32_t track, StringId category = kNullStringId,
                              StringId name = kNullStringId);
  std::optional<uint32_t> End(int64_t ts, uint32_t track, StringId category, StringId name,
                              ArgsTracker::Builder args);
  // A slice with a known duration (0 = instant).
  std::optional<uint32_t> Scoped(int64_t ts, uint32_t track, StringId category, StringId name,
                                 int64_t dur, std::optional<uint32_t> arg_set_id = std::nullopt);
  std::optional<uint32_t> Scoped(int64_t ts, uint32_t track, StringId category, StringId name,
                                 int64_t dur, ArgsTracker::Builder args);

  // Whether the last Begin/Scoped was refused because the new slice would
  // partially overlap one on the track's stack (its caller may then place
  // it on an overflow track).
  bool last_start_overlapped() const { return last_start_overlapped_; }
  // The slice the last refused start would have straddled the end of.
  uint32_t last_overlap_conflict() const { return overlap_conflict_; }

  // Adds args to slice `id` while it is still on `track`'s stack (they join
  // its pending set, after the ones it already has). False once it left.
  bool AddArgs(uint32_t track, uint32_t id, ArgsTracker::Builder args);

  // Innermost slice of the track still on its stack, if any.
  std::optional<uint32_t> GetTopmostOpen(uint32_t track) const;

  // Writes pending args. Slices still open keep dur = -1 (as upstream).
  void FlushPendingSlices();

 private:
  struct StackEntry {
    uint32_t id;
    // Copies of the slice's ts/dur: the stack walks run per event and would
    // otherwise miss the cache on the slice table.
    int64_t ts;
    int64_t dur;
    std::optional<ArgsTracker::Builder> args;  // pending, written on pop
  };
  using Stack = std::vector<StackEntry>;

  std::optional<uint32_t> StartSlice(int64_t ts, int64_t dur, uint32_t track, StringId category,
                                     StringId name, std::optional<uint32_t> arg_set_id,
                                     std::optional<ArgsTracker::Builder> args);
  std::optional<uint32_t> EndSlice(int64_t ts, uint32_t track, StringId category, StringId name,
                                   std::optional<ArgsTracker::Builder> args);
  // Pops slices that ended before `ts`; returns false when a complete slice
  // [ts, ts + dur) would partially overlap an enclosing one (drop it).
  bool MaybeCloseStack(Stack& stack, int64_t ts, int64_t dur);
  std::optional<size_t> MatchingOpenSlice(const Stack& stack, StringId category,
                                          StringId name) const;
  void Pop(Stack& stack);
  void CommitArgs(StackEntry& entry);
  void DropTooDeep(int64_t ts, uint32_t track);

  TraceStorage* storage_;
  LoadProblems* problems_;
  std::unordered_map<uint32_t, Stack> stacks_;
  std::vector<uint32_t> stack_tracks_;            // the keys of stacks_, in insertion order
  std::unordered_set<uint32_t> too_deep_tracks_;  // reported already
  bool last_start_overlapped_ = false;
  uint32_t overlap_conflict_ = 0;
};

}  // namespace fathom
