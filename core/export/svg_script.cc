#include "core/export/svg_script.h"

namespace fathom {

// Layout and colours match the static frames ExportSvg writes, so the first
// re-layout (a click or a search) changes nothing but what was asked for.
const char kSvgFlamegraphScript[] = R"JS(
var svgNS = "http://www.w3.org/2000/svg";
var W = DATA.width, ROW = 17, TOP = 40;
var N = DATA.nodes, S = DATA.strings, H = DATA.hashes;
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
  var h = n[2] ? H[n[2]] : H[n[1]];
  if (S[n[2]] === "JAVA") return "hsl(" + (90 + h % 60) + ",55%," + (55 + h % 15) + "%)";
  return "hsl(" + (h % 55) + ",80%," + (55 + (h >>> 8) % 15) + "%)";
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
    g.setAttribute("data-i", String(i));
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
// One listener for the static frames and the redrawn ones alike.
function frameOf(e) {
  for (var el = e.target; el && el !== frames; el = el.parentNode) {
    var i = el.getAttribute ? el.getAttribute("data-i") : null;
    if (i !== null && i !== undefined) return Number(i);
  }
  return -1;
}
frames.addEventListener("click", function (e) {
  var i = frameOf(e);
  if (i >= 0) { focusNode = i; draw(); }
});
frames.addEventListener("mouseover", function (e) {
  var i = frameOf(e);
  if (i >= 0) details.textContent = tooltip(i).replace(/\n/g, " | ");
});
document.getElementById("search").onclick = function () {
  search(prompt("Search (regular expression):", searchRe ? searchRe.source : ""));
};
document.getElementById("reset").onclick = function () { focusNode = -1; draw(); };
document.addEventListener("keydown", function (e) {
  if ((e.ctrlKey || e.metaKey) && e.key === "f") { e.preventDefault(); document.getElementById("search").onclick(); }
  if (e.key === "Escape") { focusNode = -1; draw(); }
});
var q = (typeof location !== "undefined" && location.hash) ? decodeURIComponent(location.hash.substring(1)) : "";
if (q) search(q);
)JS";

}  // namespace fathom
