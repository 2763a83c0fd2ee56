#include "core/flamegraph/flamegraph.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>

namespace fathom {

uint32_t Flamegraph::Child(std::optional<uint32_t> parent, StringId name, StringId map_name) {
  auto key = std::make_tuple(parent ? static_cast<int64_t>(*parent) : -1, name, map_name);
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  uint32_t id = static_cast<uint32_t>(nodes_.size());
  FlamegraphNode n;
  n.parent = parent;
  n.depth = parent ? nodes_[*parent].depth + 1 : 0;
  n.name = name;
  n.map_name = map_name;
  nodes_.push_back(n);
  children_.emplace_back();
  if (parent)
    children_[*parent].push_back(id);
  else
    roots_.push_back(id);
  index_.emplace(key, id);
  return id;
}

namespace {
bool ContainsIgnoreCase(std::string_view haystack, std::string_view needle) {
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(),
                        [](char a, char b) { return std::tolower(a) == std::tolower(b); });
  return it != haystack.end();
}
}  // namespace

void Flamegraph::Focus(const TraceStorage& storage, std::string_view focus) {
  std::vector<bool> keep(nodes_.size(), false);
  // Nodes are created parent-first, so one forward pass marks descendants of
  // matches and one backward pass marks ancestors.
  std::vector<bool> under_match(nodes_.size(), false);
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    bool match = ContainsIgnoreCase(storage.GetString(nodes_[i].name), focus);
    under_match[i] = match || (nodes_[i].parent && under_match[*nodes_[i].parent]);
    keep[i] = under_match[i];
  }
  for (uint32_t i = static_cast<uint32_t>(nodes_.size()); i-- > 0;)
    if (keep[i] && nodes_[i].parent) keep[*nodes_[i].parent] = true;

  Flamegraph out;
  std::vector<uint32_t> new_id(nodes_.size());
  for (uint32_t i = 0; i < nodes_.size(); ++i) {
    if (!keep[i]) continue;
    const FlamegraphNode& n = nodes_[i];
    std::optional<uint32_t> parent;
    if (n.parent) parent = new_id[*n.parent];
    new_id[i] = out.Child(parent, n.name, n.map_name);
    FlamegraphNode& m = out.nodes_[new_id[i]];
    m.count = n.count;
    m.size = n.size;
    m.alloc_count = n.alloc_count;
    m.alloc_size = n.alloc_size;
  }
  *this = std::move(out);
}

void Flamegraph::Finalize() {
  // Pre-order numbering.
  std::vector<uint32_t> order;
  order.reserve(nodes_.size());
  std::vector<uint32_t> stack(roots_.rbegin(), roots_.rend());
  while (!stack.empty()) {
    uint32_t n = stack.back();
    stack.pop_back();
    order.push_back(n);
    for (auto it = children_[n].rbegin(); it != children_[n].rend(); ++it) stack.push_back(*it);
  }
  // Cumulative values: children come after parents in `order`.
  for (FlamegraphNode& n : nodes_) {
    n.cumulative_count = n.count;
    n.cumulative_size = n.size;
    n.cumulative_alloc_count = n.alloc_count;
    n.cumulative_alloc_size = n.alloc_size;
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const FlamegraphNode& n = nodes_[*it];
    if (!n.parent) continue;
    FlamegraphNode& p = nodes_[*n.parent];
    p.cumulative_count += n.cumulative_count;
    p.cumulative_size += n.cumulative_size;
    p.cumulative_alloc_count += n.cumulative_alloc_count;
    p.cumulative_alloc_size += n.cumulative_alloc_size;
  }
  std::vector<uint32_t> new_id(nodes_.size());
  for (uint32_t i = 0; i < order.size(); ++i) new_id[order[i]] = i;
  std::vector<FlamegraphNode> renumbered(nodes_.size());
  std::vector<std::vector<uint32_t>> children(nodes_.size());
  for (uint32_t old = 0; old < nodes_.size(); ++old) {
    FlamegraphNode n = nodes_[old];
    if (n.parent) n.parent = new_id[*n.parent];
    renumbered[new_id[old]] = n;
    for (uint32_t c : children_[old]) children[new_id[old]].push_back(new_id[c]);
  }
  for (uint32_t& r : roots_) r = new_id[r];
  nodes_ = std::move(renumbered);
  children_ = std::move(children);
  index_.clear();
  for (uint32_t i = 0; i < nodes_.size(); ++i)
    index_.emplace(std::make_tuple(nodes_[i].parent ? static_cast<int64_t>(*nodes_[i].parent) : -1,
                                   nodes_[i].name, nodes_[i].map_name),
                   i);
}

Flamegraph BuildNativeFlamegraph(TraceStorage* storage, const std::vector<uint32_t>& upids,
                                 const TsFilter& ts) {
  const auto& allocs = storage->profile.heap_profile_allocation;
  const auto& callsites = storage->profile.stack_profile_callsite;
  const auto& frames = storage->profile.stack_profile_frame;
  const auto& mappings = storage->profile.stack_profile_mapping;
  Flamegraph fg;
  std::vector<std::optional<uint32_t>> node_of_callsite(callsites.row_count());
  std::vector<uint32_t> path;
  for (uint32_t row = 0; row < allocs.row_count(); ++row) {
    if (std::find(upids.begin(), upids.end(), allocs.upid[row]) == upids.end()) continue;
    if (!ts.Matches(allocs.ts[row])) continue;
    uint32_t leaf = allocs.callsite_id[row];
    if (!node_of_callsite[leaf]) {
      // Walk up to the first callsite that already has a node.
      path.clear();
      std::optional<uint32_t> cs = leaf;
      while (cs && !node_of_callsite[*cs]) {
        path.push_back(*cs);
        cs = callsites.parent_id.Get(*cs);
      }
      std::optional<uint32_t> parent_node;
      if (cs) parent_node = node_of_callsite[*cs];
      for (auto it = path.rbegin(); it != path.rend(); ++it) {
        uint32_t frame = callsites.frame_id[*it];
        StringId name = frames.deobfuscated_name[frame] != kNullStringId
                            ? frames.deobfuscated_name[frame]
                            : frames.name[frame];
        parent_node = fg.Child(parent_node, name, mappings.name[frames.mapping[frame]]);
        node_of_callsite[*it] = parent_node;
      }
    }
    FlamegraphNode& n = fg.node(*node_of_callsite[leaf]);
    int64_t count = allocs.count[row], size = allocs.size[row];
    n.count += count;
    n.size += size;
    if (count > 0) {
      n.alloc_count += count;
      n.alloc_size += size;
    }
  }
  return fg;
}

Flamegraph BuildHeapGraphFlamegraph(TraceStorage* storage, uint32_t upid, int64_t ts) {
  const auto& objects = storage->profile.heap_graph_object;
  const auto& classes = storage->profile.heap_graph_class;
  const auto& refs = storage->profile.heap_graph_reference;
  Flamegraph fg;
  StringId java = storage->Intern("JAVA");

  auto class_name = [&](uint32_t obj) -> std::string {
    uint32_t cls = objects.type_id[obj];
    StringId n = classes.deobfuscated_name[cls] != kNullStringId ? classes.deobfuscated_name[cls]
                                                                 : classes.name[cls];
    return std::string(storage->GetString(n));
  };
  // Distinct referenced objects, ascending.
  auto children_of = [&](uint32_t obj) {
    std::set<uint32_t> out;
    auto set = objects.reference_set_id.Get(obj);
    if (!set) return out;
    for (uint32_t r = *set; r < refs.row_count() && refs.reference_set_id[r] == *set; ++r)
      if (auto owned = refs.owned_id.Get(r)) out.insert(*owned);
    return out;
  };

  std::vector<uint32_t> roots;
  for (uint32_t i = 0; i < objects.row_count(); ++i)
    if (objects.upid[i] == upid && objects.graph_sample_ts[i] == ts &&
        objects.root_type[i] != kNullStringId)
      roots.push_back(i);

  // Depth-first walk of the shortest-path tree: an object is expanded under
  // the first parent found one step closer to a root.
  std::unordered_set<uint32_t> visited;
  struct Frame {
    uint32_t obj;
    uint32_t node;
    std::vector<uint32_t> children;
    size_t next = 0;
  };
  for (uint32_t root : roots) {
    if (!visited.insert(root).second) continue;
    std::string name =
        class_name(root) + " [" + std::string(storage->GetString(objects.root_type[root])) + "]";
    std::vector<Frame> stack;
    auto enter = [&](uint32_t obj, std::optional<uint32_t> parent_node, StringId n) {
      uint32_t node = fg.Child(parent_node, n, java);
      fg.node(node).count += 1;
      fg.node(node).size += objects.self_size[obj];
      std::set<uint32_t> c = children_of(obj);
      stack.push_back(Frame{obj, node, std::vector<uint32_t>(c.begin(), c.end())});
    };
    enter(root, std::nullopt, storage->Intern(name));
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.next == f.children.size()) {
        stack.pop_back();
        continue;
      }
      uint32_t child = f.children[f.next++];
      if (objects.root_distance[child] != objects.root_distance[f.obj] + 1) continue;
      if (!visited.insert(child).second) continue;
      uint32_t parent_node = f.node;
      enter(child, parent_node, storage->Intern(class_name(child)));
    }
  }
  return fg;
}

}  // namespace fathom
