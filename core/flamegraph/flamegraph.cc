#include "core/flamegraph/flamegraph.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <regex>

namespace fathom {

int64_t FlamegraphNode::self(Metric m) const {
  switch (m) {
    case Metric::kSize:
      return size;
    case Metric::kCount:
      return count;
    case Metric::kAllocSize:
      return alloc_size;
    case Metric::kAllocCount:
      return alloc_count;
  }
  return 0;
}

int64_t FlamegraphNode::cumulative(Metric m) const {
  switch (m) {
    case Metric::kSize:
      return cumulative_size;
    case Metric::kCount:
      return cumulative_count;
    case Metric::kAllocSize:
      return cumulative_alloc_size;
    case Metric::kAllocCount:
      return cumulative_alloc_count;
  }
  return 0;
}

namespace {

// dst.self += sign * src.self for every metric.
void AddSelf(FlamegraphNode& dst, const FlamegraphNode& src, int64_t sign = 1) {
  dst.count += sign * src.count;
  dst.size += sign * src.size;
  dst.alloc_count += sign * src.alloc_count;
  dst.alloc_size += sign * src.alloc_size;
}
// dst.self += src.cumulative for every metric (pruned subtrees).
void AddCumulativeToSelf(FlamegraphNode& dst, const FlamegraphNode& src) {
  dst.count += src.cumulative_count;
  dst.size += src.cumulative_size;
  dst.alloc_count += src.cumulative_alloc_count;
  dst.alloc_size += src.cumulative_alloc_size;
}

Result<std::regex> CompileRegex(std::string_view pattern) {
  try {
    return std::regex(std::string(pattern),
                      std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
  } catch (const std::regex_error& e) {
    return ErrorStatus("bad regular expression '" + std::string(pattern) + "': " + e.what());
  }
}

}  // namespace

Flamegraph::Flamegraph() {
  strings_.emplace_back();  // kFgNoString
}

FgStringId Flamegraph::Intern(std::string_view s) {
  auto it = string_index_.find(s);
  if (it != string_index_.end()) return it->second;
  FgStringId id = static_cast<FgStringId>(strings_.size());
  strings_.emplace_back(s);
  string_index_.emplace(strings_.back(), id);
  return id;
}

namespace {
constexpr uint32_t kEmptySlot = ~0u;
inline size_t SlotHash(uint32_t parent_plus_one, uint32_t name, uint32_t map) {
  uint64_t h = (uint64_t{parent_plus_one} << 32 | name) * 0x9E3779B97F4A7C15ull;
  h ^= (h >> 32) ^ (uint64_t{map} * 0xC2B2AE3D27D4EB4Full);
  return static_cast<size_t>(h ^ (h >> 29));
}
}  // namespace

void Flamegraph::GrowIndex() {
  size_t size = std::max<size_t>(1024, slots_.size() * 2);
  while (size < nodes_.size() * 2) size *= 2;
  slots_.assign(size, kEmptySlot);
  const size_t mask = size - 1;
  for (uint32_t id = 0; id < nodes_.size(); ++id) {
    const FlamegraphNode& n = nodes_[id];
    size_t i = SlotHash(n.parent ? *n.parent + 1 : 0, n.name, n.map_name) & mask;
    while (slots_[i] != kEmptySlot) i = (i + 1) & mask;
    slots_[i] = id;
  }
}

void Flamegraph::Reserve(size_t nodes) {
  nodes_.reserve(nodes);
  size_t want = 1024;
  while (want * 7 <= nodes * 10) want *= 2;
  if (want > slots_.size()) {
    slots_.resize(want / 2);  // GrowIndex doubles it and reinserts the nodes
    GrowIndex();
  }
}

uint32_t Flamegraph::Child(std::optional<uint32_t> parent, FgStringId name, FgStringId map_name) {
  // Keep the load factor under 0.7 (this also builds the index on first use,
  // including for a finalized tree).
  if ((nodes_.size() + 1) * 10 >= slots_.size() * 7) GrowIndex();
  const size_t mask = slots_.size() - 1;
  size_t i = SlotHash(parent ? *parent + 1 : 0, name, map_name) & mask;
  for (; slots_[i] != kEmptySlot; i = (i + 1) & mask) {
    const FlamegraphNode& n = nodes_[slots_[i]];
    if (n.name == name && n.map_name == map_name && n.parent == parent) return slots_[i];
  }
  uint32_t id = static_cast<uint32_t>(nodes_.size());
  slots_[i] = id;
  FlamegraphNode n;
  n.parent = parent;
  n.depth = parent ? nodes_[*parent].depth + 1 : 0;
  n.name = name;
  n.map_name = map_name;
  nodes_.push_back(n);
  return id;
}

void Flamegraph::AppendNodes(std::vector<FlamegraphNode> nodes) {
  if (nodes_.empty())
    nodes_ = std::move(nodes);
  else
    nodes_.insert(nodes_.end(), nodes.begin(), nodes.end());
  slots_ = {};  // Child rebuilds the index (with the new nodes) on next use
}

void Flamegraph::RebuildChildren() {
  const uint32_t n = static_cast<uint32_t>(nodes_.size());
  child_off_.assign(n + 1, 0);
  roots_.clear();
  for (uint32_t i = 0; i < n; ++i) {
    if (nodes_[i].parent)
      child_off_[*nodes_[i].parent + 1]++;
    else
      roots_.push_back(i);
  }
  for (uint32_t i = 0; i < n; ++i) child_off_[i + 1] += child_off_[i];
  child_list_.resize(child_off_[n]);
  std::vector<uint32_t> fill(child_off_.begin(), child_off_.end() - 1);
  for (uint32_t i = 0; i < n; ++i)
    if (nodes_[i].parent) child_list_[fill[*nodes_[i].parent]++] = i;
}

void Flamegraph::Finalize(std::optional<Metric> order_by) {
  order_by_ = order_by;
  slots_ = {};
  const uint32_t count = static_cast<uint32_t>(nodes_.size());
  for (FlamegraphNode& n : nodes_) {
    n.cumulative_count = n.count;
    n.cumulative_size = n.size;
    n.cumulative_alloc_count = n.alloc_count;
    n.cumulative_alloc_size = n.alloc_size;
  }
  // Every node was created after its parent (and Finalize keeps that true),
  // so a reverse index walk visits children before parents.
  for (size_t i = count; i-- > 0;) {
    const FlamegraphNode& n = nodes_[i];
    if (!n.parent) continue;
    FlamegraphNode& p = nodes_[*n.parent];
    p.cumulative_count += n.cumulative_count;
    p.cumulative_size += n.cumulative_size;
    p.cumulative_alloc_count += n.cumulative_alloc_count;
    p.cumulative_alloc_size += n.cumulative_alloc_size;
  }
  // Children in creation order, then (optionally) heaviest first.
  RebuildChildren();
  if (order_by) {
    Metric m = *order_by;
    auto heavier = [&](uint32_t a, uint32_t b) {
      int64_t va = nodes_[a].cumulative(m), vb = nodes_[b].cumulative(m);
      if (va != vb) return va > vb;
      std::string_view na = strings_[nodes_[a].name], nb = strings_[nodes_[b].name];
      if (na != nb) return na < nb;
      return a < b;
    };
    std::sort(roots_.begin(), roots_.end(), heavier);
    for (uint32_t i = 0; i < count; ++i)
      std::sort(child_list_.begin() + child_off_[i], child_list_.begin() + child_off_[i + 1],
                heavier);
  }
  // Pre-order numbering.
  std::vector<uint32_t> new_id(count);
  {
    uint32_t next = 0;
    std::vector<uint32_t> stack(roots_.rbegin(), roots_.rend());
    while (!stack.empty()) {
      uint32_t v = stack.back();
      stack.pop_back();
      new_id[v] = next++;
      for (uint32_t k = child_off_[v + 1]; k-- > child_off_[v];) stack.push_back(child_list_[k]);
    }
  }
  for (FlamegraphNode& n : nodes_)
    if (n.parent) n.parent = new_id[*n.parent];
  // Permute in place by following cycles (no second copy of the nodes).
  std::vector<bool> done(count, false);
  for (uint32_t start = 0; start < count; ++start) {
    if (done[start]) continue;
    uint32_t i = start;
    FlamegraphNode carried = nodes_[i];
    std::array<int64_t, kNumMetrics> carried_base{};
    if (!base_cumulative_.empty()) carried_base = base_cumulative_[i];
    while (!done[i]) {
      done[i] = true;
      uint32_t target = new_id[i];
      std::swap(carried, nodes_[target]);
      if (!base_cumulative_.empty()) std::swap(carried_base, base_cumulative_[target]);
      i = target;
    }
  }
  // Pre-order lists siblings in order, so CSR from parents keeps it.
  RebuildChildren();
}

int64_t Flamegraph::Total(Metric m) const {
  int64_t total = 0;
  for (uint32_t r : roots_) total += nodes_[r].cumulative(m);
  return total;
}

std::vector<uint32_t> Flamegraph::PathTo(uint32_t node) const {
  std::vector<uint32_t> path;
  for (std::optional<uint32_t> n = node; n; n = nodes_[*n].parent) path.push_back(*n);
  std::reverse(path.begin(), path.end());
  return path;
}

int64_t Flamegraph::BaseCumulative(uint32_t node, Metric m) const {
  if (base_cumulative_.empty()) return 0;
  return base_cumulative_[node][static_cast<int>(m)];
}

Flamegraph Flamegraph::Inverted() const {
  Flamegraph out;
  std::vector<FgStringId> names(strings_.size());
  for (size_t i = 0; i < strings_.size(); ++i) names[i] = i ? out.Intern(strings_[i]) : 0;
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const FlamegraphNode& n = nodes_[i];
    if (!n.count && !n.size && !n.alloc_count && !n.alloc_size) continue;
    std::optional<uint32_t> parent;
    for (std::optional<uint32_t> f = i; f; f = nodes_[*f].parent)
      parent = out.Child(parent, names[nodes_[*f].name], names[nodes_[*f].map_name]);
    AddSelf(out.nodes_[*parent], n);
  }
  out.Finalize(order_by_);
  return out;
}

Result<std::vector<int8_t>> Flamegraph::MatchNames(std::string_view regex, Flamegraph* out,
                                                   std::vector<FgStringId>* names) const {
  Result<std::regex> re = CompileRegex(regex);
  if (!re.ok()) return re.status();
  std::vector<int8_t> match(strings_.size(), 0);
  names->assign(strings_.size(), FgStringId{});
  for (size_t i = 1; i < strings_.size(); ++i) {
    match[i] = std::regex_search(strings_[i], *re);
    (*names)[i] = out->Intern(strings_[i]);
  }
  return match;
}

Result<Flamegraph> Flamegraph::Focus(std::string_view regex) const {
  Flamegraph out;
  std::vector<FgStringId> names;
  Result<std::vector<int8_t>> matched = MatchNames(regex, &out, &names);
  if (!matched.ok()) return matched.status();
  const std::vector<int8_t>& match = *matched;
  // new_id[i]: the copy of node i, for nodes at or under an outermost match.
  std::vector<std::optional<uint32_t>> new_id(nodes_.size());
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const FlamegraphNode& n = nodes_[i];
    std::optional<uint32_t> parent_copy = n.parent ? new_id[*n.parent] : std::nullopt;
    if (!parent_copy && !match[n.name]) continue;  // outside every match
    new_id[i] = out.Child(parent_copy, names[n.name], names[n.map_name]);
    AddSelf(out.nodes_[*new_id[i]], n);
  }
  out.Finalize(order_by_);
  return out;
}

Result<Flamegraph> Flamegraph::Hide(std::string_view regex) const {
  Flamegraph out;
  std::vector<FgStringId> names;
  Result<std::vector<int8_t>> matched = MatchNames(regex, &out, &names);
  if (!matched.ok()) return matched.status();
  const std::vector<int8_t>& match = *matched;
  // new_id[i]: the node that receives node i's values (its nearest kept
  // ancestor for hidden nodes; nullopt = above the roots).
  std::vector<std::optional<uint32_t>> new_id(nodes_.size());
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const FlamegraphNode& n = nodes_[i];
    std::optional<uint32_t> parent_copy = n.parent ? new_id[*n.parent] : std::nullopt;
    if (match[n.name]) {
      new_id[i] = parent_copy;
    } else {
      new_id[i] = out.Child(parent_copy, names[n.name], names[n.map_name]);
    }
    if (new_id[i]) AddSelf(out.nodes_[*new_id[i]], n);
  }
  out.Finalize(order_by_);
  return out;
}

Flamegraph Flamegraph::CollapseRecursion() const {
  Flamegraph out;
  std::vector<FgStringId> names(strings_.size());
  for (size_t i = 1; i < strings_.size(); ++i) names[i] = out.Intern(strings_[i]);
  std::vector<uint32_t> new_id(nodes_.size());
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const FlamegraphNode& n = nodes_[i];
    if (n.parent && nodes_[*n.parent].name == n.name && nodes_[*n.parent].map_name == n.map_name) {
      new_id[i] = new_id[*n.parent];
    } else {
      std::optional<uint32_t> parent_copy;
      if (n.parent) parent_copy = new_id[*n.parent];
      new_id[i] = out.Child(parent_copy, names[n.name], names[n.map_name]);
    }
    AddSelf(out.nodes_[new_id[i]], n);
  }
  out.Finalize(order_by_);
  return out;
}

Flamegraph Flamegraph::Prune(Metric m, int64_t min_value) const {
  Flamegraph out;
  std::vector<FgStringId> names(strings_.size());
  for (size_t i = 1; i < strings_.size(); ++i) names[i] = out.Intern(strings_[i]);
  std::vector<std::optional<uint32_t>> new_id(nodes_.size());
  std::vector<int8_t> dropped(nodes_.size(), 0);
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const FlamegraphNode& n = nodes_[i];
    if (n.parent && dropped[*n.parent]) {
      dropped[i] = 1;
      continue;
    }
    if (std::llabs(n.cumulative(m)) < min_value) {
      dropped[i] = 1;
      if (n.parent) AddCumulativeToSelf(out.nodes_[*new_id[*n.parent]], n);
      continue;
    }
    std::optional<uint32_t> parent_copy;
    if (n.parent) parent_copy = new_id[*n.parent];
    new_id[i] = out.Child(parent_copy, names[n.name], names[n.map_name]);
    AddSelf(out.nodes_[*new_id[i]], n);
  }
  out.Finalize(order_by_);
  return out;
}

Result<SearchResult> Flamegraph::Search(std::string_view regex, Metric m) const {
  Result<std::regex> re = CompileRegex(regex);
  if (!re.ok()) return re.status();
  std::vector<int8_t> match(strings_.size(), 0);
  for (size_t i = 1; i < strings_.size(); ++i) match[i] = std::regex_search(strings_[i], *re);
  SearchResult r;
  r.total_value = Total(m);
  std::vector<int8_t> under_match(nodes_.size(), 0);
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const FlamegraphNode& n = nodes_[i];
    bool above = n.parent && under_match[*n.parent];
    if (match[n.name]) {
      r.matched_nodes.push_back(i);
      if (!above) r.matched_value += n.cumulative(m);
    }
    under_match[i] = above || match[n.name];
  }
  return r;
}

namespace {
std::vector<FrameNeighbour> SortedNeighbours(
    std::map<std::pair<std::string, std::string>, int64_t>& acc) {
  std::vector<FrameNeighbour> out;
  for (auto& [k, v] : acc) out.push_back(FrameNeighbour{k.first, k.second, v});
  std::stable_sort(out.begin(), out.end(), [](const FrameNeighbour& a, const FrameNeighbour& b) {
    return a.value > b.value;
  });
  return out;
}
}  // namespace

std::vector<FrameNeighbour> Flamegraph::Callers(std::string_view name, Metric m) const {
  std::map<std::pair<std::string, std::string>, int64_t> acc;
  std::vector<int8_t> under(nodes_.size(), 0);
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const FlamegraphNode& n = nodes_[i];
    bool above = n.parent && under[*n.parent];
    bool is = strings_[n.name] == name;
    under[i] = above || is;
    if (!is || above) continue;  // recursion: count the outermost frame once
    if (n.parent)
      acc[{std::string(strings_[nodes_[*n.parent].name]),
           std::string(strings_[nodes_[*n.parent].map_name])}] += n.cumulative(m);
    else
      acc[{"<root>", ""}] += n.cumulative(m);
  }
  return SortedNeighbours(acc);
}

std::vector<FrameNeighbour> Flamegraph::Callees(std::string_view name, Metric m) const {
  std::map<std::pair<std::string, std::string>, int64_t> acc;
  std::vector<int8_t> under(nodes_.size(), 0);
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    const FlamegraphNode& n = nodes_[i];
    bool above = n.parent && under[*n.parent];
    bool is = strings_[n.name] == name;
    under[i] = above || is;
    if (!is || above) continue;
    for (uint32_t c : children(i))
      acc[{std::string(strings_[nodes_[c].name]), std::string(strings_[nodes_[c].map_name])}] +=
          nodes_[c].cumulative(m);
  }
  return SortedNeighbours(acc);
}

Flamegraph Flamegraph::Diff(const Flamegraph& a, const Flamegraph& b) {
  Flamegraph out;
  std::vector<std::array<int64_t, kNumMetrics>> base_self;
  auto copy = [&](const Flamegraph& src, int64_t sign) {
    std::vector<FgStringId> names(src.strings_.size());
    for (size_t i = 1; i < src.strings_.size(); ++i) names[i] = out.Intern(src.strings_[i]);
    std::vector<uint32_t> new_id(src.nodes_.size());
    for (uint32_t i = 0; i < src.nodes_.size(); ++i) {
      const FlamegraphNode& n = src.nodes_[i];
      std::optional<uint32_t> parent_copy;
      if (n.parent) parent_copy = new_id[*n.parent];
      new_id[i] = out.Child(parent_copy, names[n.name], names[n.map_name]);
      AddSelf(out.nodes_[new_id[i]], n, sign);
      base_self.resize(out.nodes_.size(), {0, 0, 0, 0});
      if (sign < 0) {
        auto& bs = base_self[new_id[i]];
        bs[0] += n.size;
        bs[1] += n.count;
        bs[2] += n.alloc_size;
        bs[3] += n.alloc_count;
      }
    }
  };
  copy(b, 1);
  copy(a, -1);
  base_self.resize(out.nodes_.size(), {0, 0, 0, 0});
  // Cumulate the baseline like the values (children follow parents here).
  for (size_t i = out.nodes_.size(); i-- > 0;) {
    const FlamegraphNode& n = out.nodes_[i];
    if (!n.parent) continue;
    for (int k = 0; k < kNumMetrics; ++k) base_self[*n.parent][k] += base_self[i][k];
  }
  out.base_cumulative_ = std::move(base_self);
  out.Finalize(b.order_by_);
  return out;
}

}  // namespace fathom
