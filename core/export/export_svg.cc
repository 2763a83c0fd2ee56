// Standalone interactive SVG: the tree travels as JSON inside the file and a
// small inline script lays it out, so zooming re-lays the frames instead of
// shipping one <rect> per node per zoom level. No external resources.
#include <algorithm>
#include <cstdlib>
#include <unordered_map>

#include "core/export/flamegraph_export.h"
#include "core/export/json_escape.h"

namespace fathom {
namespace {

// Frames narrower than this share of the total are left out of the file
// (as flamegraph.pl does with its minimum width): they cannot be seen
// unless zoomed in more than 100 000x and would bloat huge profiles.
constexpr double kMinShare = 1e-5;

constexpr const char* kScript = R"JS(
var svgNS = "http://www.w3.org/2000/svg";
var W = DATA.width, ROW = 17, TOP = 40;
var N = DATA.nodes, S = DATA.strings;
var frames = document.getElementById("frames");
var details = document.getElementById("details");
var matchedText = document.getElementById("matched");
var focusNode = -1, searchRe = null;
var children = N.map(function () { return []; }), roots = [];
N.forEach(function (n, i) { if (n[0] < 0) roots.push(i); else children[n[0]].push(i); });
function total() { var t = 0; roots.forEach(function (r) { t += Math.abs(N[r][3]); }); return t; }
function fmt(v) {
  var s = String(v);
  return s.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
function color(i) {
  var n = N[i];
  if (DATA.diff) {
    var d = n[5], b = Math.max(1, Math.abs(n[3]));
    var k = Math.min(1, Math.abs(d) / b);
    var c = Math.round(255 - 180 * k);
    return d > 0 ? "rgb(255," + c + "," + c + ")" : d < 0 ? "rgb(" + c + "," + c + ",255)" : "rgb(220,220,220)";
  }
  var key = S[n[2]] || S[n[1]], h = 0;
  for (var j = 0; j < key.length; j++) h = (h * 31 + key.charCodeAt(j)) >>> 0;
  if (S[n[2]] === "JAVA") return "hsl(" + (90 + h % 60) + ",55%," + (55 + h % 15) + "%)";
  return "hsl(" + (h % 55) + ",80%," + (55 + (h >> 8) % 15) + "%)";
}
function isMatch(i) { return searchRe && searchRe.test(S[N[i][1]]); }
function tooltip(i) {
  var n = N[i], t = total();
  var pct = t ? (100 * Math.abs(n[3]) / t).toFixed(2) : "0";
  var s = S[n[1]] + (S[n[2]] ? " (" + S[n[2]] + ")" : "") + "\n" + DATA.unit + ": " + fmt(n[3]) +
      " (" + pct + "%), self " + fmt(n[4]);
  if (DATA.diff) s += "\nchange vs base: " + (n[5] > 0 ? "+" : "") + fmt(n[5]);
  return s;
}
function draw() {
  while (frames.firstChild) frames.removeChild(frames.firstChild);
  var t = total();
  var base = focusNode >= 0 ? Math.abs(N[focusNode][3]) : t;
  if (!base) return;
  var scale = (W - 20) / base, depth0 = 0;
  function rect(i, x, w, depth, dim) {
    var g = document.createElementNS(svgNS, "g");
    g.setAttribute("class", "f");
    var title = document.createElementNS(svgNS, "title");
    title.textContent = tooltip(i);
    g.appendChild(title);
    var r = document.createElementNS(svgNS, "rect");
    r.setAttribute("x", x); r.setAttribute("y", TOP + depth * ROW);
    r.setAttribute("width", Math.max(0.5, w - 0.5)); r.setAttribute("height", ROW - 1);
    r.setAttribute("rx", 2);
    r.setAttribute("fill", isMatch(i) ? "rgb(230,0,230)" : color(i));
    if (dim) r.setAttribute("fill-opacity", "0.5");
    g.appendChild(r);
    if (w > 30) {
      var tx = document.createElementNS(svgNS, "text");
      tx.setAttribute("x", x + 3); tx.setAttribute("y", TOP + depth * ROW + 12);
      var label = S[N[i][1]], fit = Math.floor((w - 6) / 7);
      tx.textContent = label.length > fit ? label.substring(0, Math.max(0, fit - 2)) + ".." : label;
      g.appendChild(tx);
    }
    g.onclick = function () { focusNode = i; draw(); };
    g.onmouseover = function () { details.textContent = tooltip(i).replace(/\n/g, " | "); };
    frames.appendChild(g);
  }
  if (focusNode >= 0) {
    var chain = [], p = N[focusNode][0];
    while (p >= 0) { chain.unshift(p); p = N[p][0]; }
    chain.forEach(function (a, d) { rect(a, 10, W - 20, d, true); });
    depth0 = chain.length;
  }
  function layout(i, x, depth) {
    var w = Math.abs(N[i][3]) * scale;
    if (w < 0.1) return;
    rect(i, x, w, depth, false);
    var cx = x;
    children[i].forEach(function (c) { layout(c, cx, depth + 1); cx += Math.abs(N[c][3]) * scale; });
  }
  if (focusNode >= 0) layout(focusNode, 10, depth0);
  else { var x = 10; roots.forEach(function (r) { layout(r, x, 0); x += Math.abs(N[r][3]) * scale; }); }
  updateMatched();
}
function updateMatched() {
  if (!searchRe) { matchedText.textContent = ""; return; }
  var m = 0, t = total(), under = new Array(N.length);
  for (var i = 0; i < N.length; i++) {
    var above = N[i][0] >= 0 && under[N[i][0]], hit = isMatch(i);
    if (hit && !above) m += Math.abs(N[i][3]);
    under[i] = above || hit;
  }
  matchedText.textContent = "Matched: " + (t ? (100 * m / t).toFixed(2) : "0") + "%";
}
function search(pattern) {
  if (!pattern) { searchRe = null; draw(); return; }
  try { searchRe = new RegExp(pattern, "i"); } catch (e) { searchRe = null; }
  draw();
}
document.getElementById("search").onclick = function () {
  search(prompt("Search (regular expression):", searchRe ? searchRe.source : ""));
};
document.getElementById("reset").onclick = function () { focusNode = -1; draw(); };
document.addEventListener("keydown", function (e) {
  if ((e.ctrlKey || e.metaKey) && e.key === "f") { e.preventDefault(); document.getElementById("search").onclick(); }
  if (e.key === "Escape") { focusNode = -1; draw(); }
});
var q = (typeof location !== "undefined" && location.hash) ? decodeURIComponent(location.hash.substring(1)) : "";
if (q) search(q); else draw();
)JS";

}  // namespace

std::string ExportSvg(const Flamegraph& fg, const ExportOptions& opt) {
  Metric m = MetricOf(opt.view);
  const bool diff = fg.is_diff();
  // Width of a node: its value (for diffs: B's value, i.e. delta + base).
  auto width_of = [&](uint32_t i) {
    int64_t v = fg.node(i).cumulative(m);
    return diff ? v + fg.BaseCumulative(i, m) : v;
  };
  auto self_of = [&](uint32_t i) {
    int64_t v = fg.node(i).self(m);
    if (!diff) return v;
    int64_t child_base = 0;
    for (uint32_t c : fg.children(i)) child_base += fg.BaseCumulative(c, m);
    return v + fg.BaseCumulative(i, m) - child_base;
  };
  int64_t total = 0;
  for (uint32_t r : fg.roots()) total += std::llabs(width_of(r));
  const double min_value = static_cast<double>(total) * kMinShare;

  std::unordered_map<std::string_view, int> string_ids;
  std::string strings = "[\"\"";
  auto sid = [&](std::string_view s) {
    if (s.empty()) return 0;
    auto [it, inserted] = string_ids.emplace(s, static_cast<int>(string_ids.size()) + 1);
    if (inserted) {
      strings += ',';
      strings += JsonString(s);
    }
    return it->second;
  };
  std::string nodes = "[";
  std::vector<int> out_id(fg.size(), -1);
  int next = 0;
  int max_depth = 0;
  for (uint32_t i = 0; i < fg.size(); ++i) {
    const FlamegraphNode& n = fg.node(i);
    int parent = n.parent ? out_id[*n.parent] : -1;
    if (n.parent && parent < 0) continue;  // under a dropped node
    if (std::abs(static_cast<double>(width_of(i))) < min_value) continue;
    out_id[i] = next++;
    max_depth = std::max(max_depth, static_cast<int>(n.depth));
    if (out_id[i]) nodes += ",";
    // Appended piece by piece: the string ids are handed out name first, then mapping.
    int name_id = sid(fg.name(i));
    int map_id = sid(fg.map_name(i));
    nodes += '[';
    nodes += std::to_string(parent);
    nodes += ',';
    nodes += std::to_string(name_id);
    nodes += ',';
    nodes += std::to_string(map_id);
    nodes += ',';
    nodes += std::to_string(width_of(i));
    nodes += ',';
    nodes += std::to_string(self_of(i));
    if (diff) {
      nodes += ',';
      nodes += std::to_string(n.cumulative(m));
    }
    nodes += "]";
  }
  nodes += "]";
  strings += "]";

  const int width = opt.svg_width;
  const int height = 40 + (max_depth + 1) * 17 + 40;
  std::string title = opt.title.empty() ? "Flame graph" : opt.title;
  std::string unit = std::string(ViewName(opt.view));
  // The title is XML text: escape it.
  std::string xml_title;
  for (char c : title) {
    if (c == '<')
      xml_title += "&lt;";
    else if (c == '>')
      xml_title += "&gt;";
    else if (c == '&')
      xml_title += "&amp;";
    else
      xml_title.push_back(c);
  }
  std::string out;
  out += "<?xml version=\"1.0\" standalone=\"no\"?>\n";
  out += "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
         std::to_string(width) + "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " +
         std::to_string(width) + " " + std::to_string(height) + "\">\n";
  out +=
      "<style type=\"text/css\">text { font-family: monospace; font-size: 12px; fill: #000; }"
      " .f:hover rect { stroke: #000; stroke-width: 0.5; } .btn { cursor: pointer; fill: #336; }"
      " .f { cursor: pointer; }</style>\n";
  out += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"#f8f8f8\"/>\n";
  out += "<text x=\"" + std::to_string(width / 2) +
         "\" y=\"20\" text-anchor=\"middle\" style=\"font-size:16px\">" + xml_title + "</text>\n";
  out += "<text id=\"reset\" class=\"btn\" x=\"10\" y=\"20\">Reset Zoom</text>\n";
  out += "<text id=\"search\" class=\"btn\" x=\"" + std::to_string(width - 120) +
         "\" y=\"20\">Search</text>\n";
  out += "<text id=\"matched\" x=\"" + std::to_string(width - 200) + "\" y=\"" +
         std::to_string(height - 10) + "\"></text>\n";
  out += "<text id=\"details\" x=\"10\" y=\"" + std::to_string(height - 10) + "\"></text>\n";
  out += "<g id=\"frames\"></g>\n";
  out += "<script type=\"text/ecmascript\"><![CDATA[\n";
  out += "var DATA = {\"width\":" + std::to_string(width) + ",\"unit\":" + JsonString(unit) +
         ",\"diff\":" + (diff ? "true" : "false") + ",\"strings\":" + strings +
         ",\"nodes\":" + nodes + "};\n";
  out += kScript;
  out += "]]></script>\n</svg>\n";
  return out;
}

}  // namespace fathom
