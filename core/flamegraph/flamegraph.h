// Flamegraph model shared by SQL (experimental_flamegraph), the GUI and the
// exporters: a tree of named nodes with self and cumulative counts/sizes.
// Builders turn heapprofd allocations (callsite paths) or a Java heap graph
// (shortest-path tree from the GC roots) into one.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/storage/trace_storage.h"

namespace fathom {

struct FlamegraphNode {
  std::optional<uint32_t> parent;
  uint32_t depth = 0;
  StringId name = kNullStringId;
  StringId map_name = kNullStringId;
  int64_t count = 0, size = 0;              // self
  int64_t alloc_count = 0, alloc_size = 0;  // self, allocations only (no frees)
  int64_t cumulative_count = 0, cumulative_size = 0;
  int64_t cumulative_alloc_count = 0, cumulative_alloc_size = 0;
};

class Flamegraph {
 public:
  // The child of `parent` (nullopt = a root) named (name, map_name), created
  // on first use. Returns its index.
  uint32_t Child(std::optional<uint32_t> parent, StringId name, StringId map_name);
  FlamegraphNode& node(uint32_t i) { return nodes_[i]; }
  const std::vector<FlamegraphNode>& nodes() const { return nodes_; }

  // Keeps only the nodes whose name contains `focus` (case-insensitively),
  // their ancestors and their descendants.
  void Focus(const TraceStorage& storage, std::string_view focus);
  // Fills the cumulative values and renumbers nodes in depth-first pre-order
  // (children in creation order), so parents always precede children.
  void Finalize();

 private:
  std::vector<FlamegraphNode> nodes_;
  std::vector<std::vector<uint32_t>> children_;
  std::vector<uint32_t> roots_;
  std::map<std::tuple<int64_t, StringId, StringId>, uint32_t> index_;
};

// Which dumps a flamegraph covers: timestamps compared with each bound.
struct TsFilter {
  std::optional<int64_t> eq, lt, le, gt, ge;
  bool Matches(int64_t ts) const {
    return (!eq || ts == *eq) && (!lt || ts < *lt) && (!le || ts <= *le) && (!gt || ts > *gt) &&
           (!ge || ts >= *ge);
  }
};

// heapprofd: every heap_profile_allocation of `upids` passing `ts`.
Flamegraph BuildNativeFlamegraph(TraceStorage* storage, const std::vector<uint32_t>& upids,
                                 const TsFilter& ts);
// Java heap graph of (upid, ts): objects hang under the object that first
// reaches them on a shortest path from a GC root, merged by class name.
Flamegraph BuildHeapGraphFlamegraph(TraceStorage* storage, uint32_t upid, int64_t ts);

}  // namespace fathom
