// Standalone SVG: the whole graph is drawn as static frames, so any renderer
// shows it (browsers, librsvg, ImageMagick, image viewers). The tree also
// travels as JSON for the inline script, which re-lays the frames on a click
// (zoom) or a search in a browser. No external resources.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include "core/export/flamegraph_export.h"
#include "core/export/json_escape.h"
#include "core/export/svg_script.h"
#include "core/export/svg_text.h"

namespace fathom {
namespace {

// Frames narrower than this share of the total are left out of the file
// (as flamegraph.pl does with its minimum width): they cannot be seen
// unless zoomed in more than 100 000x and would bloat huge profiles.
constexpr double kMinShare = 1e-5;

// The nodes that go into the file, in pre-order (a parent before its
// children), with their strings interned; shared by the static frames and
// the script's JSON.
struct SvgNode {
  int parent;  // -1 for a root
  int name, map;
  int64_t value, self, delta;
};
struct SvgTree {
  std::vector<SvgNode> nodes;
  std::vector<std::string_view> strings{""};
  std::vector<uint32_t> hashes{0};  // per string: picks the frame's hue
  std::vector<std::vector<int>> children;
  std::vector<int> roots;
  int max_depth = 0;
  bool diff = false;
  int64_t total = 0;
};

uint32_t NameHash(std::string_view s) {
  uint32_t h = 0;
  for (unsigned char c : s) h = h * 31 + c;
  return h;
}

SvgTree CollectTree(const Flamegraph& fg, Metric m) {
  SvgTree t;
  t.diff = fg.is_diff();
  // Width of a node: its value (for diffs: B's value, i.e. delta + base).
  auto width_of = [&](uint32_t i) {
    int64_t v = fg.node(i).cumulative(m);
    return t.diff ? v + fg.BaseCumulative(i, m) : v;
  };
  auto self_of = [&](uint32_t i) {
    int64_t v = fg.node(i).self(m);
    if (!t.diff) return v;
    int64_t child_base = 0;
    for (uint32_t c : fg.children(i)) child_base += fg.BaseCumulative(c, m);
    return v + fg.BaseCumulative(i, m) - child_base;
  };
  for (uint32_t r : fg.roots()) t.total += std::llabs(width_of(r));
  const double min_value = static_cast<double>(t.total) * kMinShare;
  std::unordered_map<std::string_view, int> ids;
  auto sid = [&](std::string_view s) {
    if (s.empty()) return 0;
    auto [it, inserted] = ids.emplace(s, static_cast<int>(t.strings.size()));
    if (inserted) {
      t.strings.push_back(s);
      t.hashes.push_back(NameHash(s));
    }
    return it->second;
  };
  std::vector<int> out_id(fg.size(), -1);
  for (uint32_t i = 0; i < fg.size(); ++i) {
    const FlamegraphNode& n = fg.node(i);
    const int parent = n.parent ? out_id[*n.parent] : -1;
    if (n.parent && parent < 0) continue;  // under a dropped node
    if (std::abs(static_cast<double>(width_of(i))) < min_value) continue;
    out_id[i] = static_cast<int>(t.nodes.size());
    t.max_depth = std::max(t.max_depth, static_cast<int>(n.depth));
    const int name = sid(fg.name(i));  // name first, then mapping: the ids' order
    const int map = sid(fg.map_name(i));
    t.nodes.push_back({parent, name, map, width_of(i), self_of(i), n.cumulative(m)});
    t.children.emplace_back();
    if (parent < 0)
      t.roots.push_back(out_id[i]);
    else
      t.children[parent].push_back(out_id[i]);
  }
  return t;
}

std::string DataJson(const SvgTree& t, int width, std::string_view unit) {
  std::string out = "{\"width\":" + std::to_string(width) + ",\"unit\":" + JsonString(unit) +
                    ",\"diff\":" + (t.diff ? "true" : "false") + ",\"strings\":[";
  for (size_t i = 0; i < t.strings.size(); ++i) {
    if (i) out += ',';
    out += JsonString(t.strings[i]);
  }
  out += "],\"hashes\":[";
  for (size_t i = 0; i < t.hashes.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(t.hashes[i]);
  }
  out += "],\"nodes\":[";
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const SvgNode& n = t.nodes[i];
    if (i) out += ',';
    out += '[' + std::to_string(n.parent) + ',' + std::to_string(n.name) + ',' +
           std::to_string(n.map) + ',' + std::to_string(n.value) + ',' + std::to_string(n.self);
    if (t.diff) out += ',' + std::to_string(n.delta);
    out += ']';
  }
  return out + "]}";
}

// The same colours as the script's color(), as rgb().
std::string FrameColor(const SvgTree& t, const SvgNode& n) {
  if (t.diff) {
    const double b = std::max<double>(1, std::llabs(n.value));
    const double k = std::min(1.0, std::fabs(static_cast<double>(n.delta)) / b);
    const int c = static_cast<int>(std::lround(255 - 180 * k));
    const std::string cs = std::to_string(c);
    return n.delta > 0   ? "rgb(255," + cs + "," + cs + ")"
           : n.delta < 0 ? "rgb(" + cs + "," + cs + ",255)"
                         : "rgb(220,220,220)";
  }
  const uint32_t h = n.map ? t.hashes[n.map] : t.hashes[n.name];
  if (t.strings[n.map] == "JAVA") return HslToRgb(90 + h % 60, 55, 55 + h % 15);
  return HslToRgb(h % 55, 80, 55 + (h >> 8) % 15);
}

std::string Tooltip(const SvgTree& t, const SvgNode& n, std::string_view unit) {
  char pct[32] = "0";
  if (t.total)
    snprintf(pct, sizeof(pct), "%.2f",
             100.0 * std::fabs(static_cast<double>(n.value)) / static_cast<double>(t.total));
  std::string s(t.strings[n.name]);
  if (n.map) s += " (" + std::string(t.strings[n.map]) + ")";
  s += "\n" + std::string(unit) + ": " + WithThousands(n.value) + " (" + pct + "%), self " +
       WithThousands(n.self);
  if (t.diff)
    s += "\nchange vs base: " + std::string(n.delta > 0 ? "+" : "") + WithThousands(n.delta);
  return XmlText(s);
}

// Every frame at least a tenth of a pixel wide, laid out as the script lays
// out the unzoomed graph.
std::string StaticFrames(const SvgTree& t, int width, std::string_view unit) {
  constexpr int kRow = 17, kTop = 40;
  std::string out;
  if (t.total == 0) return out;
  const double scale = (width - 20) / static_cast<double>(t.total);
  char buf[160];
  struct Item {
    int node;
    double x;
    int depth;
  };
  std::vector<Item> stack;
  double x0 = 10;
  for (int r : t.roots) {
    stack.push_back({r, x0, 0});
    x0 += std::fabs(static_cast<double>(t.nodes[r].value)) * scale;
  }
  std::reverse(stack.begin(), stack.end());
  while (!stack.empty()) {
    const Item it = stack.back();
    stack.pop_back();
    const SvgNode& n = t.nodes[it.node];
    const double w = std::fabs(static_cast<double>(n.value)) * scale;
    if (w < 0.1) continue;
    const int y = kTop + it.depth * kRow;
    snprintf(buf, sizeof(buf), "<g class=\"f\" data-i=\"%d\"><title>", it.node);
    out += buf;
    out += Tooltip(t, n, unit);
    snprintf(buf, sizeof(buf),
             "</title><rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" rx=\"2\" fill=\"",
             it.x, y, std::max(0.5, w - 0.5), kRow - 1);
    out += buf;
    out += FrameColor(t, n) + "\"/>";
    if (w > 30) {
      const std::string_view label = t.strings[n.name];
      const size_t fit = static_cast<size_t>(std::floor((w - 6) / 7));
      snprintf(buf, sizeof(buf), "<text x=\"%.2f\" y=\"%d\">", it.x + 3, y + 12);
      out += buf;
      out += Utf8Length(label) > fit ? XmlText(Utf8Prefix(label, fit >= 2 ? fit - 2 : 0)) + ".."
                                     : XmlText(label);
      out += "</text>";
    }
    out += "</g>\n";
    double cx = it.x;
    const std::vector<int>& kids = t.children[it.node];
    std::vector<Item> next;
    for (int c : kids) {
      next.push_back({c, cx, it.depth + 1});
      cx += std::fabs(static_cast<double>(t.nodes[c].value)) * scale;
    }
    stack.insert(stack.end(), next.rbegin(), next.rend());
  }
  return out;
}

}  // namespace

std::string ExportSvg(const Flamegraph& fg, const ExportOptions& opt) {
  const SvgTree tree = CollectTree(fg, MetricOf(opt.view));
  const int width = opt.svg_width;
  const int height = 40 + (tree.max_depth + 1) * 17 + 40;
  const std::string unit(ViewName(opt.view));
  const std::string title = XmlText(opt.title.empty() ? "Flame graph" : opt.title);
  // What the frames' widths are: the heading says so, whatever the title.
  const std::string subtitle = XmlText(unit + ", total " + WithThousands(tree.total));
  const std::string w = std::to_string(width), h = std::to_string(height);
  std::string out;
  out += "<?xml version=\"1.0\" standalone=\"no\"?>\n";
  out += "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + w + "\" height=\"" +
         h + "\" viewBox=\"0 0 " + w + " " + h + "\">\n";
  out +=
      "<style type=\"text/css\">text { font-family: monospace; font-size: 12px; fill: #000; }"
      " .f:hover rect { stroke: #000; stroke-width: 0.5; } .btn { cursor: pointer; fill: #336; }"
      " .f { cursor: pointer; }</style>\n";
  out += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#f8f8f8\"/>\n";
  out += "<text x=\"" + std::to_string(width / 2) +
         "\" y=\"18\" text-anchor=\"middle\" style=\"font-size:16px\">" + title + "</text>\n";
  out += "<text id=\"subtitle\" x=\"" + std::to_string(width / 2) +
         "\" y=\"34\" text-anchor=\"middle\" style=\"font-size:11px\">" + subtitle + "</text>\n";
  out += "<text id=\"reset\" class=\"btn\" x=\"10\" y=\"20\">Reset Zoom</text>\n";
  out += "<text id=\"search\" class=\"btn\" x=\"" + std::to_string(width - 120) +
         "\" y=\"20\">Search</text>\n";
  out += "<text id=\"matched\" x=\"" + std::to_string(width - 200) + "\" y=\"" +
         std::to_string(height - 10) + "\"></text>\n";
  out += "<text id=\"details\" x=\"10\" y=\"" + std::to_string(height - 10) + "\"></text>\n";
  out += "<g id=\"frames\">\n" + StaticFrames(tree, width, unit) + "</g>\n";
  out += "<script type=\"text/ecmascript\"><![CDATA[\n";
  out += "var DATA = " + DataJson(tree, width, unit) + ";\n";
  out += kSvgFlamegraphScript;
  out += "]]></script>\n</svg>\n";
  return out;
}

}  // namespace fathom
