// Flamegraph model shared by SQL (experimental_flamegraph), the GUI, the CLI
// and the exporters: a tree of named frames with self and cumulative values
// for four metrics. A finished Flamegraph is immutable and owns its strings
// (no StringIds into TraceStorage), so any number of threads may read it and
// it outlives the trace it came from. Every operation returns a new tree.
//
// Builders for each profile kind live in profiles.h.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"

namespace fathom {

// Index into a Flamegraph's own string table; 0 = no string (SQL NULL).
using FgStringId = uint32_t;
inline constexpr FgStringId kFgNoString = 0;

// What a node's value counts. Per kind (see profiles.h):
//   native:       kSize/kCount = unreleased bytes/allocations at the dump,
//                 kAllocSize/kAllocCount = total allocated (frees ignored);
//   java graph:   kSize = object bytes, kCount = objects (shortest-path tree)
//                 or, in the dominator tree, cumulative kSize = retained bytes;
//   java samples: kSize/kCount = kAllocSize/kAllocCount = sampled bytes/allocs;
//   cpu:          kCount = kAllocCount = samples, sizes 0.
enum class Metric : uint8_t { kSize = 0, kCount = 1, kAllocSize = 2, kAllocCount = 3 };
inline constexpr int kNumMetrics = 4;

struct FlamegraphNode {
  std::optional<uint32_t> parent;           // nullopt = a root
  uint32_t depth = 0;                       // roots are 0
  FgStringId name = kFgNoString;            // demangled frame / class name
  FgStringId map_name = kFgNoString;        // library (mapping) or "JAVA"; colour key
  int64_t count = 0, size = 0;              // self
  int64_t alloc_count = 0, alloc_size = 0;  // self
  int64_t cumulative_count = 0, cumulative_size = 0;
  int64_t cumulative_alloc_count = 0, cumulative_alloc_size = 0;

  int64_t self(Metric m) const;
  int64_t cumulative(Metric m) const;
};

// Result of Flamegraph::Search.
struct SearchResult {
  std::vector<uint32_t> matched_nodes;  // nodes whose name matches (pre-order)
  // Value of the matched frames without double counting nested matches
  // (sum of cumulative values of matches that have no matching ancestor).
  int64_t matched_value = 0;
  int64_t total_value = 0;
  double share() const { return total_value ? double(matched_value) / double(total_value) : 0; }
};

// One row of a callers/callees table for a frame name.
struct FrameNeighbour {
  std::string name;
  std::string map_name;
  int64_t value = 0;  // cumulative value of the frame reached through this neighbour
};

class Flamegraph {
 public:
  Flamegraph();

  // ---- reading --------------------------------------------------------------
  // Nodes in depth-first pre-order: parents precede children. Siblings are in
  // descending cumulative value of the metric given to Finalize (then name),
  // or in creation order (upstream's experimental_flamegraph order) without
  // one. BuildFlamegraph orders by the view's metric.
  const std::vector<FlamegraphNode>& nodes() const { return nodes_; }
  size_t size() const { return nodes_.size(); }
  bool empty() const { return nodes_.empty(); }
  const FlamegraphNode& node(uint32_t i) const { return nodes_[i]; }
  const std::vector<uint32_t>& roots() const { return roots_; }
  std::span<const uint32_t> children(uint32_t i) const {
    return {child_list_.data() + child_off_[i], child_off_[i + 1] - child_off_[i]};
  }
  std::string_view str(FgStringId id) const { return strings_[id]; }
  std::string_view name(uint32_t node) const { return strings_[nodes_[node].name]; }
  std::string_view map_name(uint32_t node) const { return strings_[nodes_[node].map_name]; }
  bool has_map_name(uint32_t node) const { return nodes_[node].map_name != kFgNoString; }
  // Sum over roots of the cumulative value.
  int64_t Total(Metric m) const;
  // Frames root-first for a node (for folded stacks, tooltips, pprof).
  std::vector<uint32_t> PathTo(uint32_t node) const;

  // Diff trees (Diff below) only: the baseline (A) cumulative value of a node,
  // 0 where A had no such path. The node's own values are B - A.
  bool is_diff() const { return !base_cumulative_.empty(); }
  int64_t BaseCumulative(uint32_t node, Metric m) const;

  // ---- operations (each returns a new, finalized tree) ----------------------
  // Bottom-up: leaves become roots; each stack is reversed. Self values sit
  // on the deepest node of each reversed path.
  Flamegraph Inverted() const;
  // Keeps the stacks through a frame matching `regex` (ECMAScript, case
  // insensitive), re-rooted at the first (outermost) match.
  Result<Flamegraph> Focus(std::string_view regex) const;
  // Removes frames matching `regex`; their values and children merge into
  // the parent (a hidden root's children become roots).
  Result<Flamegraph> Hide(std::string_view regex) const;
  // Directly recursive frames (a frame whose parent has the same name) fold
  // into one node.
  Flamegraph CollapseRecursion() const;
  // Drops subtrees whose |cumulative value| is below `min_value`; their value
  // stays in the parent's self value, so totals are unchanged.
  Flamegraph Prune(Metric m, int64_t min_value) const;
  // Frames matching `regex` and the share of the total they cover.
  Result<SearchResult> Search(std::string_view regex, Metric m) const;
  // Who calls / what is called by every frame named `name` (exact match),
  // merged by neighbour name, descending value. Callers of a root are "<root>".
  std::vector<FrameNeighbour> Callers(std::string_view name, Metric m) const;
  std::vector<FrameNeighbour> Callees(std::string_view name, Metric m) const;
  // B minus A per node (paths matched by frame and library names).
  static Flamegraph Diff(const Flamegraph& a, const Flamegraph& b);

  // ---- building (used by the builders in profiles.cc and by tests) ----------
  FgStringId Intern(std::string_view s);
  // The child of `parent` (nullopt = root) named (name, map_name), created
  // on first use. Returns its index (stable until Finalize).
  uint32_t Child(std::optional<uint32_t> parent, FgStringId name, FgStringId map_name);
  FlamegraphNode& mutable_node(uint32_t i) { return nodes_[i]; }
  // Bulk alternative to Child for builders that merge paths themselves (heap
  // graphs: millions of nodes, where Child's lookup dominates): appends
  // `nodes` as they are. Parent indices count from the start of the whole
  // tree, parents come before children and no two siblings share (name,
  // map_name). Child still works afterwards.
  void AppendNodes(std::vector<FlamegraphNode> nodes);
  // Capacity for about `nodes` nodes, so a large build does not regrow
  // (and rehash) as it goes.
  void Reserve(size_t nodes);
  // Fills cumulative values, sorts siblings by `order_by` (heaviest first)
  // and renumbers in pre-order. Call once after adding self values.
  void Finalize(std::optional<Metric> order_by = std::nullopt);

 private:
  // For Focus/Hide: per interned name, whether it matches `regex`, and the
  // name's id in `out` (filled with every name, in order).
  Result<std::vector<int8_t>> MatchNames(std::string_view regex, Flamegraph* out,
                                         std::vector<FgStringId>* names) const;
  struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  void GrowIndex();
  void RebuildChildren();  // CSR children/roots from the parent links

  std::vector<FlamegraphNode> nodes_;
  // Children of node i: child_list_[child_off_[i] .. child_off_[i + 1]).
  // Valid after Finalize (Child only records parent links).
  std::vector<uint32_t> child_off_{0}, child_list_;
  std::vector<uint32_t> roots_;
  std::vector<std::string> strings_;
  std::unordered_map<std::string, FgStringId, StringHash, std::equal_to<>> string_index_;
  // Open-addressing index of (parent, name, map_name) -> node while
  // building; slots hold node indices (the key is read from the node), so
  // it costs 4-8 bytes per node.
  std::vector<uint32_t> slots_;
  std::vector<std::array<int64_t, kNumMetrics>> base_cumulative_;  // diff trees only
  std::optional<Metric> order_by_;                                 // kept by the operations
};

}  // namespace fathom
