// The layout behind upstream Perfetto's experimental_slice_layout table
// function: the slices of a set of tracks drawn in one shared lane stack, as
// compactly as a greedy packer can. Each root slice with its descendants is a
// block as tall as its deepest descendant and as long as it lasts; blocks are
// placed tallest first (then by start, then by id), each at the lowest row
// where it overlaps no placed block in both rows and time. Time overlap is
// strict (a block ending at t and one starting at t do not overlap, nor do
// instants at the same t); dur -1 lasts forever.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

struct SliceLayoutRow {
  uint32_t slice_id;
  int64_t layout_depth;
};

// The track ids of a comma-separated list: each item is a decimal id, after
// optional leading whitespace; malformed items are ignored, as upstream does.
std::unordered_set<uint32_t> ParseTrackIdList(std::string_view list);

// One row per slice on `tracks`, by id.
std::vector<SliceLayoutRow> ComputeSliceLayout(const TraceStorage& storage,
                                               const std::unordered_set<uint32_t>& tracks);

}  // namespace fathom
