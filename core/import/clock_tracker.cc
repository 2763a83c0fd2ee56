#include "core/import/clock_tracker.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <iterator>
#include <limits>

namespace fathom {

void ClockTracker::AddSnapshot(const std::vector<std::pair<uint64_t, int64_t>>& clocks) {
  std::map<uint64_t, int64_t> snap(clocks.begin(), clocks.end());
  snapshots_.push_back(std::move(snap));
  edges_.clear();
  paths_.clear();
}

const ClockTracker::Edge* ClockTracker::GetEdge(uint64_t from, uint64_t to) {
  auto key = std::make_pair(from, to);
  auto it = edges_.find(key);
  if (it != edges_.end()) return &it->second;
  Edge edge;
  for (const auto& snap : snapshots_) {
    auto f = snap.find(from), t = snap.find(to);
    if (f != snap.end() && t != snap.end()) edge.emplace_back(f->second, t->second);
  }
  std::sort(edge.begin(), edge.end());
  return &edges_.emplace(key, std::move(edge)).first->second;
}

std::optional<std::vector<uint64_t>> ClockTracker::FindPath(uint64_t from, uint64_t to) {
  auto key = std::make_pair(from, to);
  auto it = paths_.find(key);
  if (it != paths_.end()) {
    if (it->second.empty()) return std::nullopt;
    return it->second;
  }
  // Breadth-first search over clocks that appear together in a snapshot.
  std::map<uint64_t, uint64_t> prev;
  std::deque<uint64_t> queue{from};
  prev[from] = from;
  while (!queue.empty()) {
    uint64_t c = queue.front();
    queue.pop_front();
    if (c == to) break;
    for (const auto& snap : snapshots_) {
      if (!snap.count(c)) continue;
      for (const auto& [other, _] : snap) {
        if (prev.count(other)) continue;
        prev[other] = c;
        queue.push_back(other);
      }
    }
  }
  std::vector<uint64_t> path;
  if (prev.count(to)) {
    for (uint64_t c = to; c != from; c = prev[c]) path.push_back(c);
    path.push_back(from);
    std::reverse(path.begin(), path.end());
  }
  paths_[key] = path;
  if (path.empty()) return std::nullopt;
  return path;
}

std::optional<int64_t> ClockTracker::Convert(uint64_t from, uint64_t to, int64_t ts) {
  if (from == to) return ts;
  auto path = FindPath(from, to);
  if (!path) return std::nullopt;
  int64_t value = ts;
  for (size_t i = 0; i + 1 < path->size(); ++i) {
    const Edge* edge = GetEdge((*path)[i], (*path)[i + 1]);
    if (edge->empty()) return std::nullopt;
    // Use the latest snapshot at or before `value`, else the first one.
    auto it = std::upper_bound(edge->begin(), edge->end(),
                               std::make_pair(value, std::numeric_limits<int64_t>::max()));
    const auto& ref = (it == edge->begin()) ? *it : *std::prev(it);
    value = value - ref.first + ref.second;
  }
  return value;
}

}  // namespace fathom
