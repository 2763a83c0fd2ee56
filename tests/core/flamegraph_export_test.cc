// Exports checked by independent means: folded sums against SQL, pprof
// decoded by `protoc --decode` against the public profile.proto, SVG by
// xmllint (and headless Chromium where installed), JSON by Python.
#include "core/export/flamegraph_export.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>

#include "core/flamegraph/profiles.h"
#include "core/trace_processor.h"
#include "trace_test_util.h"

namespace fathom {
namespace {

namespace fs = std::filesystem;

int64_t QueryInt(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  EXPECT_TRUE(it->NextResultSet() && it->NextRow()) << sql << ": " << it->status().message();
  return it->Get(0).i;
}

// Runs a shell command; returns (exit code, stdout).
std::pair<int, std::string> RunShell(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {-1, out};
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

bool HaveTool(const std::string& name) {
  return RunShell("command -v " + name + " >/dev/null 2>&1").first == 0;
}

int64_t SumFolded(const std::string& folded, size_t* lines = nullptr) {
  std::istringstream in(folded);
  std::string line;
  int64_t sum = 0;
  size_t n = 0;
  while (std::getline(in, line)) {
    size_t sp = line.rfind(' ');
    EXPECT_NE(sp, std::string::npos) << line;
    sum += std::stoll(line.substr(sp + 1));
    ++n;
  }
  if (lines) *lines = n;
  return sum;
}

struct Loaded {
  std::unique_ptr<TraceProcessor> tp = std::make_unique<TraceProcessor>();
  std::vector<ProfileDump> dumps;
};
Loaded Load(const std::string& name) {
  Loaded l;
  Status st = l.tp->LoadFile(testing::TestData(name).string());
  EXPECT_TRUE(st.ok()) << st.message();
  l.dumps = ListProfiles(l.tp->storage());
  return l;
}

TEST(FlamegraphExport, FoldedTotalsEqualSqlSums) {
  Loaded l = Load("heapprofd_continuous_legacy.pb");
  for (const ProfileDump& d : l.dumps) {
    std::string where = " from heap_profile_allocation where upid = " + std::to_string(d.upid) +
                        " and ts <= " + std::to_string(d.ts);
    struct Case {
      FlamegraphView view;
      std::string sql;
    } cases[] = {{FlamegraphView::kUnreleasedSize, "select sum(size)" + where},
                 {FlamegraphView::kUnreleasedCount, "select sum(count)" + where},
                 {FlamegraphView::kTotalSize, "select sum(size)" + where + " and size > 0"},
                 {FlamegraphView::kTotalCount, "select sum(count)" + where + " and count > 0"}};
    for (const Case& c : cases) {
      Result<Flamegraph> fg = BuildFlamegraph(l.tp->storage(), RequestFor(d, c.view));
      ASSERT_TRUE(fg.ok());
      ExportOptions opt;
      opt.view = c.view;
      EXPECT_EQ(SumFolded(ExportFolded(*fg, opt)), QueryInt(*l.tp, c.sql)) << c.sql;
    }
  }
}

TEST(FlamegraphExport, FoldedCpuSamples) {
  Loaded l = Load("linux_compact_sched_perf_samples.pftrace");
  auto all = PickLargestProfile(l.dumps, ProfileKind::kCpu, std::nullopt);
  ASSERT_TRUE(all);
  Result<Flamegraph> fg = BuildFlamegraph(l.tp->storage(), RequestFor(*all, std::nullopt));
  ASSERT_TRUE(fg.ok());
  ExportOptions opt;
  opt.kind = ProfileKind::kCpu;
  opt.view = FlamegraphView::kSamples;
  size_t lines = 0;
  std::string folded = ExportFolded(*fg, opt);
  EXPECT_EQ(SumFolded(folded, &lines), QueryInt(*l.tp, "select count(*) from perf_sample"));
  EXPECT_GT(lines, 1u);
  EXPECT_NE(folded.find("ret_from_fork"), std::string::npos);
}

TEST(FlamegraphExport, PprofDecodesWithProtocAndTotalsMatch) {
  if (!HaveTool("protoc") || !HaveTool("gzip")) GTEST_SKIP() << "protoc or gzip not installed";
  Loaded l = Load("heapprofd_continuous_legacy.pb");
  auto d = PickLargestProfile(l.dumps, ProfileKind::kNative, std::nullopt);
  ASSERT_TRUE(d);
  Result<Flamegraph> fg = BuildFlamegraph(l.tp->storage(), RequestFor(*d, std::nullopt));
  ASSERT_TRUE(fg.ok());
  ExportOptions opt;
  opt.kind = ProfileKind::kNative;
  opt.view = FlamegraphView::kUnreleasedSize;
  Result<std::string> gz = ExportPprof(*fg, opt);
  ASSERT_TRUE(gz.ok());
  ASSERT_GE(gz->size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>((*gz)[0]), 0x1f);  // gzip magic
  testing::TempDir tmp;
  fs::path file = tmp.path() / "profile.pb.gz";
  testing::WriteFileBytes(file, *gz);
  fs::path protos = fs::path(FATHOM_TEST_SOURCE_DIR) / ".." / ".." / "protos";
  auto [rc, text] =
      RunShell("gzip -dc '" + file.string() + "' | protoc --decode=perftools.profiles.Profile" +
               " --proto_path='" + protos.string() + "' third_party/pprof/profile.proto");
  ASSERT_EQ(rc, 0) << text;
  // Sample values come in sample_type order: alloc_objects, alloc_space,
  // inuse_objects, inuse_space.
  std::regex sample_re(R"(sample \{[^}]*\})");
  std::regex value_re(R"(value: (-?\d+))");
  int64_t sums[4] = {0, 0, 0, 0};
  int samples = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), sample_re);
       it != std::sregex_iterator(); ++it) {
    std::string block = it->str();
    int k = 0;
    for (auto v = std::sregex_iterator(block.begin(), block.end(), value_re);
         v != std::sregex_iterator() && k < 4; ++v, ++k)
      sums[k] += std::stoll((*v)[1]);
    EXPECT_EQ(k, 4);
    ++samples;
  }
  EXPECT_GT(samples, 0);
  std::string where = " from heap_profile_allocation where upid = " + std::to_string(d->upid) +
                      " and ts <= " + std::to_string(d->ts);
  EXPECT_EQ(sums[0], QueryInt(*l.tp, "select sum(count)" + where + " and count > 0"));
  EXPECT_EQ(sums[1], QueryInt(*l.tp, "select sum(size)" + where + " and size > 0"));
  EXPECT_EQ(sums[2], QueryInt(*l.tp, "select sum(count)" + where));
  EXPECT_EQ(sums[3], QueryInt(*l.tp, "select sum(size)" + where));
  for (const char* s : {"\"alloc_objects\"", "\"alloc_space\"", "\"inuse_objects\"",
                        "\"inuse_space\"", "mapping {", "function {", "location {"})
    EXPECT_NE(text.find(s), std::string::npos) << s;
}

TEST(FlamegraphExport, SvgIsWellFormedAndOpensInABrowser) {
  Loaded l = Load("linux_compact_sched_perf_samples.pftrace");
  auto all = PickLargestProfile(l.dumps, ProfileKind::kCpu, std::nullopt);
  ASSERT_TRUE(all);
  Result<Flamegraph> fg = BuildFlamegraph(l.tp->storage(), RequestFor(*all, std::nullopt));
  ASSERT_TRUE(fg.ok());
  ExportOptions opt;
  opt.kind = ProfileKind::kCpu;
  opt.view = FlamegraphView::kSamples;
  opt.title = "cpu <all> & more";
  std::string svg = ExportSvg(*fg, opt);
  EXPECT_NE(svg.find("<script"), std::string::npos);
  EXPECT_NE(svg.find("Matched: "), std::string::npos);
  // Standalone: nothing is fetched (no links, external scripts or styles).
  for (const char* ref : {"href", "src=", "url(", "@import", "fetch(", "XMLHttpRequest"})
    EXPECT_EQ(svg.find(ref), std::string::npos) << ref;
  testing::TempDir tmp;
  fs::path file = tmp.path() / "fg.svg";
  testing::WriteFileBytes(file, svg);
  if (!HaveTool("xmllint")) GTEST_SKIP() << "xmllint not installed";
  auto [rc, out] = RunShell("xmllint --noout '" + file.string() + "' 2>&1");
  EXPECT_EQ(rc, 0) << out;

  // Without scripts the frames are there: static rects, one per frame at
  // least a tenth of a pixel wide.
  size_t static_frames = 0;
  for (size_t p = svg.find("<g class=\"f\""); p != std::string::npos;
       p = svg.find("<g class=\"f\"", p + 1))
    ++static_frames;
  EXPECT_GT(static_frames, 10u);

  // The inline script, run by Node.js against a minimal DOM stand-in: its
  // layout draws the same frames as the static ones, it reports the same
  // matched share as Flamegraph::Search and it zooms on click.
  if (HaveTool("node")) {
    fs::path harness = tmp.Write("harness.js", R"JS(
const fs = require('fs'), vm = require('vm');
const svg = fs.readFileSync(process.argv[2], 'utf8');
const script = svg.match(/<!\[CDATA\[([\s\S]*?)\]\]>/)[1];
function El(tag) { this.tag = tag; this.children = []; this.attrs = {}; this.textContent = ''; this.on = {}; }
El.prototype.setAttribute = function (k, v) { this.attrs[k] = v; };
El.prototype.getAttribute = function (k) { return k in this.attrs ? this.attrs[k] : null; };
El.prototype.appendChild = function (c) { c.parentNode = this; this.children.push(c); return c; };
El.prototype.removeChild = function (c) { this.children.splice(this.children.indexOf(c), 1); };
El.prototype.addEventListener = function (t, f) { this.on[t] = f; };
Object.defineProperty(El.prototype, 'firstChild', { get() { return this.children[0] || null; } });
const els = {};
global.document = { createElementNS: (ns, t) => new El(t),
  getElementById: id => els[id] || (els[id] = new El('g')), addEventListener: () => {} };
let answer = '';
global.prompt = () => answer;
vm.runInThisContext(script);
els.search.onclick();  // an empty search draws the whole graph
const drawn = els.frames.children.length;
answer = process.argv[3];
els.search.onclick();
const matched = els.matched.textContent;
els.frames.on.click({ target: els.frames.children[1].children[1] });  // a click on a frame's rect
const zoomed = els.frames.children.length;
const width = els.frames.children[0].children[1].attrs.width;
console.log(JSON.stringify({drawn, matched, zoomed, width}));
)JS");
    auto [nrc, nout] = RunShell("node '" + harness.string() + "' '" + file.string() + "' sched");
    ASSERT_EQ(nrc, 0) << nout;
    Result<SearchResult> sr = fg->Search("sched", Metric::kCount);
    char expected[64];
    snprintf(expected, sizeof(expected), "\"matched\":\"Matched: %.2f%%\"", 100 * sr->share());
    EXPECT_NE(nout.find(expected), std::string::npos) << nout << " vs " << expected;
    EXPECT_NE(nout.find("\"drawn\":" + std::to_string(static_frames) + ","), std::string::npos)
        << nout << " vs " << static_frames << " static frames";
    EXPECT_NE(nout.find("\"width\":1179.5"), std::string::npos) << nout;  // zoomed: full width
  }

  const char* chromium = "/usr/bin/chromium";
  if (!fs::exists(chromium)) {
    GTEST_SKIP() << "skipping the browser check: " << chromium << " is not installed";
  }
  fs::path png = tmp.path() / "fg.png";
  auto [crc, cout] = RunShell(std::string(chromium) +
                              " --headless --no-sandbox --disable-gpu --window-size=1200,800"
                              " --screenshot='" +
                              png.string() + "' 'file://" + file.string() + "' 2>&1");
  EXPECT_EQ(crc, 0) << cout;
  ASSERT_TRUE(fs::exists(png));
  EXPECT_GT(fs::file_size(png), 1000u);
}

// Renderers without scripts (librsvg, which GNOME's viewers and ImageMagick
// use) draw the whole graph: the picture has many colours, not just the
// background and the heading.
TEST(FlamegraphExport, SvgRendersWithoutScripts) {
  if (!HaveTool("rsvg-convert")) GTEST_SKIP() << "rsvg-convert (librsvg2-bin) not installed";
  Loaded l = Load("heapprofd_continuous_legacy.pb");
  auto d = PickLargestProfile(l.dumps, ProfileKind::kNative, std::nullopt);
  ASSERT_TRUE(d);
  Result<Flamegraph> fg =
      BuildFlamegraph(l.tp->storage(), RequestFor(*d, FlamegraphView::kTotalSize));
  ASSERT_TRUE(fg.ok());
  ExportOptions opt;
  opt.view = FlamegraphView::kTotalSize;
  opt.title = "heap <&> \x01 \xff";  // markup, a control byte and bad UTF-8 stay well-formed
  const std::string svg = ExportSvg(*fg, opt);
  // The heading names the view the widths show, with the tree's own total.
  EXPECT_NE(svg.find("total-size, total "), std::string::npos);
  testing::TempDir tmp;
  const fs::path file = tmp.path() / "fg.svg", png = tmp.path() / "fg.png";
  testing::WriteFileBytes(file, svg);
  auto [rc, out] = RunShell("rsvg-convert -o '" + png.string() + "' '" + file.string() + "' 2>&1");
  ASSERT_EQ(rc, 0) << out;
  // Distinct pixel colours of the rendering, decoded with Python's zlib (no
  // image library in the core tests).
  fs::path py = tmp.Write("colours.py", R"PY(
import sys, zlib, struct
data = open(sys.argv[1], 'rb').read()
pos, idat, w, h, ct = 8, b'', 0, 0, 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR': w, h, bd, ct = struct.unpack('>IIBB', body[:10])
    if kind == b'IDAT': idat += body
    pos += 12 + n
raw, bpp = zlib.decompress(idat), (4 if ct == 6 else 3)
stride, prev, colours, i = w * bpp, bytearray(w * bpp), set(), 0
for y in range(h):
    f, row = raw[i], bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
    for x in range(stride):
        a = row[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: row[x] = (row[x] + a) & 255
        elif f == 2: row[x] = (row[x] + b) & 255
        elif f == 3: row[x] = (row[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[x] = (row[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp): colours.add(bytes(row[x:x + 3]))
    prev = row
print(len(colours))
)PY");
  auto [prc, pout] = RunShell("python3 '" + py.string() + "' '" + png.string() + "'");
  ASSERT_EQ(prc, 0) << pout;
  EXPECT_GT(std::stoi(pout), 20) << "the rendering has only " << pout << " colours";
}

TEST(FlamegraphExport, SpeedscopeAndJsonParse) {
  Loaded l = Load("heapprofd_continuous_legacy.pb");
  auto d = PickLargestProfile(l.dumps, ProfileKind::kNative, std::nullopt);
  ASSERT_TRUE(d);
  Result<Flamegraph> fg = BuildFlamegraph(l.tp->storage(), RequestFor(*d, std::nullopt));
  ASSERT_TRUE(fg.ok());
  ExportOptions opt;
  std::string speedscope = ExportSpeedscope(*fg, opt);
  std::string json = ExportJson(*fg, opt);
  EXPECT_NE(speedscope.find("\"weights\":[200]"), std::string::npos) << speedscope;
  if (!HaveTool("python3")) GTEST_SKIP() << "python3 not installed";
  testing::TempDir tmp;
  fs::path s = tmp.path() / "s.json", j = tmp.path() / "j.json";
  testing::WriteFileBytes(s, speedscope);
  testing::WriteFileBytes(j, json);
  auto [rc, out] = RunShell(
      "python3 -c \"import json,sys; p=json.load(open(sys.argv[1]));"
      " print(sum(p['profiles'][0]['weights']))\" '" +
      s.string() + "'");
  ASSERT_EQ(rc, 0);
  EXPECT_EQ(std::stoll(out), fg->Total(Metric::kSize));
  auto [rc2, out2] = RunShell(
      "python3 -c \"import json,sys; p=json.load(open(sys.argv[1]));"
      " print(sum(r['size'] for r in p['roots']))\" '" +
      j.string() + "'");
  ASSERT_EQ(rc2, 0);
  EXPECT_EQ(std::stoll(out2), fg->Total(Metric::kSize));
}

}  // namespace
}  // namespace fathom
