#include "core/import/clock_tracker.h"

#include <algorithm>
#include <deque>
#include <iterator>
#include <limits>

namespace fathom {
namespace {

// The value of `clock` in a snapshot (sorted by clock id).
template <typename Snapshot>
std::optional<int64_t> ValueOf(const Snapshot& snap, uint64_t clock) {
  auto it = std::lower_bound(snap.begin(), snap.end(), clock,
                             [](const auto& entry, uint64_t c) { return entry.first < c; });
  if (it == snap.end() || it->first != clock) return std::nullopt;
  return it->second;
}

// a - b and a + b, wrapping instead of overflowing (UB) on hostile values.
int64_t Minus(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t Plus(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

}  // namespace

void ClockTracker::AddSnapshot(const std::vector<std::pair<uint64_t, int64_t>>& clocks) {
  // A clock listed twice keeps its first value.
  std::map<uint64_t, int64_t> unique(clocks.begin(), clocks.end());
  Snapshot snap(unique.begin(), unique.end());
  std::vector<uint64_t> shape;
  shape.reserve(snap.size());
  for (const auto& [clock, value] : snap) shape.push_back(clock);
  auto [it, inserted] = shape_ids_.emplace(shape, static_cast<uint32_t>(shapes_.size()));
  if (inserted) {
    for (uint64_t clock : shape) shapes_of_clock_[clock].push_back(it->second);
    shapes_.push_back(std::move(shape));
    paths_.clear();  // new links may make shorter paths (or the first one)
  }
  ExtendEdges(snap);
  cache_.fill({});
  for (const auto& [clock, value] : snap)
    snapshots_of_clock_[clock].push_back(static_cast<uint32_t>(snapshots_.size()));
  snapshots_.push_back(std::move(snap));
}

// Adds the snapshot's values to the edges already built.
void ClockTracker::ExtendEdges(const Snapshot& snap) {
  for (const auto& [from, from_value] : snap) {
    auto targets = edges_from_.find(from);
    if (targets == edges_from_.end()) continue;
    for (uint64_t to : targets->second)
      if (auto to_value = ValueOf(snap, to)) edges_[{from, to}].emplace(from_value, *to_value);
  }
}

const ClockTracker::Edge* ClockTracker::GetEdge(uint64_t from, uint64_t to) {
  auto key = std::make_pair(from, to);
  auto it = edges_.find(key);
  if (it != edges_.end()) return &it->second;
  // First use of this pair: read it from the snapshots so far that hold the
  // rarer of the two clocks; later snapshots extend it as they arrive.
  Edge edge;
  const std::vector<uint32_t>& with_from = snapshots_of_clock_[from];
  const std::vector<uint32_t>& with_to = snapshots_of_clock_[to];
  for (uint32_t i : with_from.size() <= with_to.size() ? with_from : with_to) {
    std::optional<int64_t> f = ValueOf(snapshots_[i], from), t = ValueOf(snapshots_[i], to);
    if (f && t) edge.emplace(*f, *t);
  }
  edges_from_[from].push_back(to);
  return &edges_.emplace(key, std::move(edge)).first->second;
}

std::optional<std::vector<uint64_t>> ClockTracker::FindPath(uint64_t from, uint64_t to) {
  auto key = std::make_pair(from, to);
  auto it = paths_.find(key);
  if (it != paths_.end()) {
    if (it->second.empty()) return std::nullopt;
    return it->second;
  }
  // Breadth-first search over linked clocks, at most kMaxHops deep. Neighbours
  // are met in snapshot order, then clock id order: among equally short
  // paths, the one through the earliest snapshot wins.
  std::unordered_map<uint64_t, uint64_t> prev{{from, from}};
  std::deque<std::pair<uint64_t, int>> queue{{from, 0}};
  bool found = from == to;
  while (!queue.empty() && !found) {
    auto [c, hops] = queue.front();
    queue.pop_front();
    if (hops == kMaxHops) continue;
    auto shapes = shapes_of_clock_.find(c);
    if (shapes == shapes_of_clock_.end()) continue;
    for (uint32_t s : shapes->second) {
      for (uint64_t other : shapes_[s]) {
        if (!prev.emplace(other, c).second) continue;
        if (other == to) found = true;
        queue.emplace_back(other, hops + 1);
      }
      if (found) break;
    }
  }
  std::vector<uint64_t> path;
  if (found) {
    for (uint64_t c = to; c != from; c = prev[c]) path.push_back(c);
    path.push_back(from);
    std::reverse(path.begin(), path.end());
  }
  paths_[key] = path;
  if (path.empty()) return std::nullopt;
  return path;
}

std::optional<int64_t> ClockTracker::CachedOffset(uint64_t from, uint64_t to, int64_t ts) const {
  for (const CachedConversion& c : cache_)
    if (c.used && c.from == from && c.to == to && ts >= c.min && ts < c.max) return c.offset;
  return std::nullopt;
}

void ClockTracker::StoreMiss(uint64_t from, uint64_t to, int64_t min, int64_t max, int64_t offset) {
  ++cache_misses_;
  cache_[cache_slot_rng_() % cache_.size()] = {from, to, min, max, offset, true};
}

std::optional<int64_t> ClockTracker::Convert(uint64_t from, uint64_t to, int64_t ts) {
  if (from == to) return ts;
  if (std::optional<int64_t> offset = CachedOffset(from, to, ts)) return Plus(ts, *offset);
  ++cache_misses_;
  return ConvertUncached(from, to, ts);
}

std::optional<int64_t> ClockTracker::ConvertUncached(uint64_t from, uint64_t to, int64_t ts) {
  auto path = FindPath(from, to);
  if (!path) return std::nullopt;
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  // The range of `from` values that take the same snapshot on every hop: on
  // a hop, from the snapshot used (unbounded below if it is the first) to
  // the next one (unbounded above if none), moved back to `from`'s values.
  CachedConversion entry{from, to, kMin, kMax, 0, true};
  int64_t value = ts;
  for (size_t i = 0; i + 1 < path->size(); ++i) {
    const Edge* edge = GetEdge((*path)[i], (*path)[i + 1]);
    if (edge->empty()) return std::nullopt;
    // Use the latest snapshot at or before `value`, else the first one.
    auto next = edge->upper_bound(std::make_pair(value, kMax));
    auto ref = next == edge->begin() ? next++ : std::prev(next);
    if (ref != edge->begin()) entry.min = std::max(entry.min, Minus(ref->first, entry.offset));
    if (next != edge->end()) entry.max = std::min(entry.max, Minus(next->first, entry.offset));
    const int64_t hop = Minus(ref->second, ref->first);
    value = Plus(value, hop);
    entry.offset = Plus(entry.offset, hop);
  }
  cache_[cache_slot_rng_() % cache_.size()] = entry;
  return value;
}

}  // namespace fathom
