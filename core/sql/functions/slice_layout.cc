#include "core/sql/functions/slice_layout.h"

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <utility>

namespace fathom {
namespace {

constexpr int64_t kForever = std::numeric_limits<int64_t>::max();

// A root slice and its descendants, drawn as one block.
struct Block {
  uint32_t root;  // slice id
  int64_t start;
  int64_t end;  // exclusive; kForever for slices that never ended
  int64_t height;
  int64_t base_row = 0;
};

bool OverlapInTime(const Block& a, const Block& b) { return a.start < b.end && b.start < a.end; }

// Groups the tracks' slices into blocks; `block_of` gets each slice's block.
std::vector<Block> BuildBlocks(const TraceStorage& storage, const std::vector<uint32_t>& rows,
                               std::unordered_map<uint32_t, uint32_t>* block_of) {
  const SliceTable& slices = storage.slice;
  std::vector<Block> blocks;
  for (uint32_t row : rows) {  // by id: a parent comes before its children
    const int64_t ts = slices.ts[row];
    const int64_t dur = slices.dur[row];
    const int64_t end = dur < 0 ? kForever : ts + dur;
    auto parent = slices.parent_id.Get(row);
    auto parent_block = parent ? block_of->find(*parent) : block_of->end();
    if (parent_block == block_of->end()) {
      block_of->emplace(row, static_cast<uint32_t>(blocks.size()));
      blocks.push_back({row, ts, end, 1});
      continue;
    }
    block_of->emplace(row, parent_block->second);
    Block& b = blocks[parent_block->second];
    const int64_t rel_depth =
        static_cast<int64_t>(slices.depth[row]) - static_cast<int64_t>(slices.depth[b.root]);
    b.height = std::max(b.height, rel_depth + 1);
    b.end = std::max(b.end, end);
  }
  return blocks;
}

// The lowest row at which `b` fits among the placed blocks that overlap it
// in time.
int64_t LowestFreeRow(const Block& b, std::vector<std::pair<int64_t, int64_t>>* taken) {
  std::sort(taken->begin(), taken->end());
  int64_t row = 0;
  for (const auto& [first, last] : *taken) {
    if (first >= row + b.height) break;
    row = std::max(row, last);
  }
  return row;
}

void PlaceBlocks(std::vector<Block>* blocks) {
  std::vector<uint32_t> order(blocks->size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    const Block& a = (*blocks)[x];
    const Block& b = (*blocks)[y];
    if (a.height != b.height) return a.height > b.height;
    if (a.start != b.start) return a.start < b.start;
    return a.root < b.root;
  });
  // Placed finite blocks by start, so only those starting within the
  // longest placed block's length before `b` need a look; endless ones are
  // few and always checked.
  std::vector<uint32_t> placed_by_start;
  std::vector<uint32_t> placed_endless;
  int64_t longest = 0;
  std::vector<std::pair<int64_t, int64_t>> taken;
  for (uint32_t index : order) {
    Block& b = (*blocks)[index];
    taken.clear();
    auto start_of = [&](uint32_t i) { return (*blocks)[i].start; };
    const int64_t from = b.start - longest;
    auto it = std::lower_bound(placed_by_start.begin(), placed_by_start.end(), from,
                               [&](uint32_t i, int64_t v) { return start_of(i) < v; });
    for (; it != placed_by_start.end() && start_of(*it) < b.end; ++it) {
      const Block& o = (*blocks)[*it];
      if (OverlapInTime(b, o)) taken.emplace_back(o.base_row, o.base_row + o.height);
    }
    for (uint32_t i : placed_endless) {
      const Block& o = (*blocks)[i];
      if (OverlapInTime(b, o)) taken.emplace_back(o.base_row, o.base_row + o.height);
    }
    b.base_row = LowestFreeRow(b, &taken);
    if (b.end == kForever) {
      placed_endless.push_back(index);
    } else {
      longest = std::max(longest, b.end - b.start);
      auto pos = std::upper_bound(placed_by_start.begin(), placed_by_start.end(), b.start,
                                  [&](int64_t v, uint32_t i) { return v < start_of(i); });
      placed_by_start.insert(pos, index);
    }
  }
}

}  // namespace

std::unordered_set<uint32_t> ParseTrackIdList(std::string_view list) {
  std::unordered_set<uint32_t> ids;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view item = list.substr(pos, comma - pos);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t' || item.front() == '\n'))
      item.remove_prefix(1);
    uint64_t id = 0;
    bool ok = !item.empty() && item.size() <= 10;
    for (size_t i = 0; ok && i < item.size(); ++i) {
      ok = item[i] >= '0' && item[i] <= '9';
      id = id * 10 + static_cast<uint64_t>(item[i] - '0');
    }
    if (ok && id <= std::numeric_limits<uint32_t>::max()) ids.insert(static_cast<uint32_t>(id));
    pos = comma + 1;
  }
  return ids;
}

std::vector<SliceLayoutRow> ComputeSliceLayout(const TraceStorage& storage,
                                               const std::unordered_set<uint32_t>& tracks) {
  const SliceTable& slices = storage.slice;
  std::vector<uint32_t> rows;
  for (uint32_t row = 0; row < slices.row_count(); ++row)
    if (tracks.count(slices.track_id[row])) rows.push_back(row);
  std::unordered_map<uint32_t, uint32_t> block_of;
  std::vector<Block> blocks = BuildBlocks(storage, rows, &block_of);
  PlaceBlocks(&blocks);
  std::vector<SliceLayoutRow> out;
  out.reserve(rows.size());
  for (uint32_t row : rows) {
    const Block& b = blocks[block_of[row]];
    const int64_t rel_depth =
        static_cast<int64_t>(slices.depth[row]) - static_cast<int64_t>(slices.depth[b.root]);
    out.push_back({row, b.base_row + rel_depth});
  }
  return out;
}

}  // namespace fathom
