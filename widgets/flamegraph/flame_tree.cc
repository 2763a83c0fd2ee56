#include "widgets/flamegraph/flame_tree.h"

#include <algorithm>
#include <cmath>

namespace fathom::gui {
namespace {

QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

}  // namespace

FlameTree::FlameTree() {
  FlameNode root;
  root.name = QStringLiteral("all");
  nodes_.push_back(root);
}

FlameTree FlameTree::fromCore(const Flamegraph& fg, Metric metric, Unit unit) {
  FlameTree t;
  t.unit = unit;
  t.isDiff = fg.is_diff();
  t.nodes_.reserve(fg.size() + 1);
  for (uint32_t i = 0; i < fg.size(); ++i) {
    const FlamegraphNode& c = fg.node(i);
    FlameNode n;
    n.parent = c.parent ? int(*c.parent) + 1 : 0;
    n.depth = int(c.depth) + 1;
    n.name = qstr(fg.name(i));
    if (fg.has_map_name(i)) n.library = qstr(fg.map_name(i));
    n.self = double(c.self(metric));
    n.total = double(c.cumulative(metric));
    if (t.isDiff) {
      // Core diff values are B - A; widths show B = (B - A) + A.
      n.baseTotal = double(fg.BaseCumulative(i, metric));
      n.total += n.baseTotal;
    }
    t.max_depth_ = std::max(t.max_depth_, n.depth);
    t.nodes_.push_back(std::move(n));
    t.nodes_[size_t(t.nodes_.back().parent)].children.push_back(int(i) + 1);
  }
  for (size_t i = 1; i < t.nodes_.size(); ++i) {
    if (t.nodes_[i].parent != 0) continue;
    t.nodes_[0].total += t.nodes_[i].total;
    t.nodes_[0].baseTotal += t.nodes_[i].baseTotal;
  }
  if (t.isDiff) {
    // Self of B: what the children do not cover.
    for (FlameNode& n : t.nodes_) {
      double kids = 0;
      for (int c : n.children) kids += t.nodes_[size_t(c)].total;
      n.self = n.total - kids;
    }
  }
  return t;
}

std::vector<int> FlameTree::pathTo(int i) const {
  std::vector<int> path;
  for (int at = i; at > 0; at = nodes_[size_t(at)].parent) path.push_back(at);
  std::reverse(path.begin(), path.end());
  return path;
}

int FlameTree::find(const QStringList& names) const {
  int at = 0;
  for (const QString& name : names) {
    int next = -1;
    for (int c : nodes_[size_t(at)].children)
      if (nodes_[size_t(c)].name == name) {
        next = c;
        break;
      }
    if (next < 0) return -1;
    at = next;
  }
  return at;
}

}  // namespace fathom::gui
