// The tree the flamegraph canvas paints: the core's Flamegraph (after every
// operation) reduced to one metric, names as QString, a synthetic root "all"
// above the core's roots. Node i + 1 here is node i of the core tree, so
// results of core operations (search matches) map back by index.
#pragma once

#include <QString>
#include <QStringList>
#include <vector>

#include "core/flamegraph/flamegraph.h"

namespace fathom::gui {

struct FlameNode {
  int parent = -1;  // -1 for the root
  int depth = 0;    // root = 0
  QString name;
  QString library;  // mapping path, "JAVA", or empty
  double self = 0;
  double total = 0;
  double baseTotal = 0;       // diff trees: the baseline's total of this path
  std::vector<int> children;  // in the core's order (heaviest first)
};

class FlameTree {
 public:
  enum class Unit { kBytes, kCount, kSamples };

  // A tree with only the root ("all").
  FlameTree();
  // The core tree `fg` for `metric`. Diff trees (Flamegraph::Diff) show the
  // newer dump's values as widths and keep the baseline in baseTotal.
  static FlameTree fromCore(const Flamegraph& fg, Metric metric, Unit unit);

  const FlameNode& node(int i) const { return nodes_[size_t(i)]; }
  int size() const { return int(nodes_.size()); }
  double total() const { return nodes_[0].total; }
  int maxDepth() const { return max_depth_; }
  Unit unit = Unit::kBytes;
  bool isDiff = false;

  // Frames from the root's child down to `i` (root excluded).
  std::vector<int> pathTo(int i) const;
  // The node reached by following `names` from the root, or -1.
  int find(const QStringList& names) const;

 private:
  std::vector<FlameNode> nodes_;
  int max_depth_ = 0;
};

// One row of the callers / callees table of a selected function.
struct CallerRow {
  QString name;
  QString library;
  double value = 0;  // total through this caller / into this callee
};

}  // namespace fathom::gui
