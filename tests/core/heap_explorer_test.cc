// The heap explorer's core (core/heap/): dominators against their dataflow
// definition on random graphs, and on a real JDK 17 heap dump the per-object
// dominator tree (retained size, dominated count, depth, the idom's class)
// against the oracle's android.memory.heap_graph.dominator_tree module, the
// class histogram against the oracle's sums, and paths from GC roots.
#include <map>
#include <random>
#include <set>

#include "core/heap/dominators.h"
#include "core/heap/heap_bitmaps.h"
#include "core/heap/heap_diff.h"
#include "core/heap/heap_duplicates.h"
#include "core/heap/heap_queries.h"
#include "core/import/hprof/hprof_contents.h"
#include "core/storage/trace_storage.h"
#include "tests/core/art_bitmap_dump.h"
#include "tests/core/hprof_test_util.h"
#include "tests/core/naive_dominators.h"

namespace fathom {
namespace {

using fathom::testing::Rows;
using fathom::testing::TempDir;

TEST(HeapDominatorsTest, MatchTheDataflowDefinitionOnRandomGraphs) {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    const int n = 1 + static_cast<int>(rng() % 30);
    std::vector<std::vector<int>> succ(n);
    const int edges = static_cast<int>(rng() % (3 * n + 1));
    for (int e = 0; e < edges; ++e) succ[rng() % n].push_back(static_cast<int>(rng() % n));
    std::vector<int> roots;
    for (int k = 0, r = 1 + static_cast<int>(rng() % 3); k < r; ++k)
      roots.push_back(static_cast<int>(rng() % n));
    std::vector<uint32_t> off{0}, targets, uroots(roots.begin(), roots.end());
    for (int v = 0; v < n; ++v) {
      for (int w : succ[v]) targets.push_back(static_cast<uint32_t>(w));
      off.push_back(static_cast<uint32_t>(targets.size()));
    }
    auto dom = heap::ComputeDominators(heap::CsrView{off, targets, uroots}, nullptr);
    ASSERT_TRUE(dom.ok());
    auto naive = testing::ComputeNaiveDominators(n, succ, roots);
    for (int v = 0; v < n; ++v) {
      ASSERT_EQ(dom->idom[v] != heap::kNoObject, bool(naive.reach[v])) << round << " " << v;
      if (!naive.reach[v]) continue;
      // The idom is the strict dominator that every other strict dominator dominates.
      const uint32_t id = dom->idom[v];
      const int d = id == heap::kVirtualRoot ? n : static_cast<int>(id);
      ASSERT_TRUE(naive.dom[v][d] && d != v) << round << " " << v;
      for (int k = 0; k <= n; ++k) {
        if (k != v && naive.dom[v][k]) {
          ASSERT_TRUE(naive.dom[d][k]) << round << " " << v;
        }
      }
    }
  }
}

// A Perfetto (proto) heap graph of the shared test data: the same per-object
// dominator tree as the oracle's module, unreachable objects left out.
TEST(HeapExplorerProtoTest, LegacyHeapGraphDominatorsMatchOracle) {
  const auto trace = testing::TestData("java_heap_graph_legacy.pb");
  if (!std::filesystem::exists(testing::Oracle()) || !std::filesystem::exists(trace))
    GTEST_SKIP() << "no oracle or test data";
  TempDir dir;
  Rows want =
      testing::OracleRows(trace,
                          "INCLUDE PERFETTO MODULE android.memory.heap_graph.dominator_tree;\n"
                          "SELECT c.name, d.dominated_size_bytes, d.dominated_obj_count, d.depth "
                          "FROM heap_graph_dominator_tree d JOIN heap_graph_object o USING (id) "
                          "JOIN heap_graph_class c ON c.id = o.type_id ORDER BY 1, 2, 3, 4",
                          dir);
  ASSERT_FALSE(want.empty());
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(trace.string()).ok());
  auto a = heap::AnalyzeHeapDump(tp.storage(), heap::ListHeapDumps(tp.storage()).at(0), nullptr);
  ASSERT_TRUE(a.ok());
  Rows got;
  for (uint32_t v = 0; v < (*a)->size(); ++v)
    if ((*a)->reachable(v))
      got.push_back({std::string(tp.storage().GetString(
                         tp.storage().profile.heap_graph_class.name[(*a)->cls[v]])),
                     std::to_string((*a)->retained_size[v]),
                     std::to_string((*a)->retained_count[v]), std::to_string((*a)->depth[v])});
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

// Two dumps of one process, made by hand: Foo grows from 2 to 3 instances
// (each 10 bytes, under one root that dominates them), Bar appears.
TEST(HeapExplorerDiffTest, HistogramDeltasBetweenTwoDumps) {
  TraceStorage s;
  auto& classes = s.profile.heap_graph_class;
  auto& objects = s.profile.heap_graph_object;
  auto& refs = s.profile.heap_graph_reference;
  const StringId kind = s.Intern("KIND_NORMAL");
  const uint32_t holder = classes.Insert(s.Intern("com.a.Holder"), kNullStringId, kind);
  const uint32_t foo = classes.Insert(s.Intern("com.a.Foo"), kNullStringId, kind);
  const uint32_t bar = classes.Insert(s.Intern("com.b.Bar"), kNullStringId, kind);
  auto dump = [&](int64_t ts, std::vector<uint32_t> types) {
    const uint32_t root = objects.Insert(1, ts);
    objects.type_id.Set(root, holder);
    objects.self_size.Set(root, 100);
    objects.root_type.Set(root, s.Intern("ROOT_JAVA_FRAME"));
    uint32_t set = refs.row_count();
    for (uint32_t t : types) {
      const uint32_t o = objects.Insert(1, ts);
      objects.type_id.Set(o, t);
      objects.self_size.Set(o, t == foo ? 10 : 7);
      objects.reachable.Set(o, 1);
      refs.Insert(set, root, o, s.Intern("x"), kNullStringId);
    }
    objects.reachable.Set(root, 1);
    objects.reference_set_id.Set(root, set);
  };
  dump(1, {foo, foo});
  dump(2, {foo, foo, foo, bar});
  auto dumps = heap::ListHeapDumps(s);
  ASSERT_EQ(dumps.size(), 2u);
  auto a = heap::AnalyzeHeapDump(s, dumps[0], nullptr);
  auto b = heap::AnalyzeHeapDump(s, dumps[1], nullptr);
  ASSERT_TRUE(a.ok() && b.ok());
  auto rows = heap::CompareHistograms(s, **a, **b, heap::Grouping::kClass);
  ASSERT_EQ(rows.size(), 3u);
  // Holder retains everything: 120 -> 137.
  EXPECT_EQ(rows[0].name, "com.a.Holder");
  EXPECT_EQ(rows[0].retained_size[0], 120);
  EXPECT_EQ(rows[0].retained_size[1], 137);
  EXPECT_EQ(rows[1].name, "com.a.Foo");
  EXPECT_EQ(rows[1].count_delta(), 1);
  EXPECT_EQ(rows[1].retained_delta(), 10);
  EXPECT_EQ(rows[2].name, "com.b.Bar");
  EXPECT_EQ(rows[2].count[0], 0);
  EXPECT_EQ(rows[2].count[1], 1);
  auto packages = heap::CompareHistograms(s, **a, **b, heap::Grouping::kPackage);
  ASSERT_EQ(packages.size(), 2u);
  EXPECT_EQ(packages[0].name, "com.a");
  EXPECT_EQ(packages[0].retained_delta(), 17);  // Holder dominates Bar too
  EXPECT_EQ(packages[1].name, "com.b");
  EXPECT_EQ(packages[1].shallow_delta(), 7);
}

// One dump of HeapFixture for the suite (a JVM start and a dump each take seconds).
class HeapExplorerJvmTest : public ::testing::Test {
 protected:
  struct Shared {
    TempDir dir;
    std::filesystem::path dump;
    TraceProcessor tp;
    std::shared_ptr<const heap::HeapAnalysis> a;
  };
  static void SetUpTestSuite() {
    if (!std::filesystem::exists(testing::Oracle())) return;
    auto sh = std::make_unique<Shared>();
    if (!testing::CompileFixture(sh->dir)) return;  // no JDK
    jdk_ = true;
    if (!testing::DumpFixtureHeap(sh->dir, "live.hprof")) return;
    sh->dump = sh->dir.path() / "live.hprof";
    if (!sh->tp.LoadFile(sh->dump.string()).ok()) return;
    auto dumps = heap::ListHeapDumps(sh->tp.storage());
    if (dumps.size() != 1) return;
    auto a = heap::AnalyzeHeapDump(sh->tp.storage(), dumps[0], nullptr);
    if (!a.ok()) return;
    sh->a = *a;
    shared_ = sh.release();
  }
  static void TearDownTestSuite() {
    delete shared_;
    shared_ = nullptr;
  }
  void SetUp() override {
    if (!shared_ && !jdk_) GTEST_SKIP() << "no oracle or no JDK (javac, java, jcmd)";
    ASSERT_NE(shared_, nullptr) << "dumping, loading or analysing HeapFixture's heap failed";
    a_ = shared_->a;
  }
  Rows Oracle(const std::string& sql) {
    return testing::OracleRows(
        shared_->dump, "INCLUDE PERFETTO MODULE android.memory.heap_graph.dominator_tree;\n" + sql,
        shared_->dir);
  }
  TraceProcessor& tp() { return shared_->tp; }
  inline static Shared* shared_ = nullptr;
  inline static bool jdk_ = false;
  std::shared_ptr<const heap::HeapAnalysis> a_;
};

TEST_F(HeapExplorerJvmTest, DominatorTreeMatchesOracle) {
  Rows want = Oracle(
      "SELECT c.name, d.dominated_size_bytes, d.dominated_obj_count, d.depth, "
      "ifnull(ic.name, '[root]'), count(*) FROM heap_graph_dominator_tree d "
      "JOIN heap_graph_object o USING (id) JOIN heap_graph_class c ON c.id = o.type_id "
      "LEFT JOIN heap_graph_object io ON io.id = d.idom_id "
      "LEFT JOIN heap_graph_class ic ON ic.id = io.type_id GROUP BY 1, 2, 3, 4, 5");
  ASSERT_GT(want.size(), 100u);
  const TraceStorage& s = tp().storage();
  std::map<std::vector<std::string>, int64_t> counts;
  for (uint32_t v = 0; v < a_->size(); ++v) {
    if (!a_->reachable(v)) continue;
    const uint32_t d = a_->idom[v];
    counts[{heap::ClassName(s, a_->cls[v]), std::to_string(a_->retained_size[v]),
            std::to_string(a_->retained_count[v]), std::to_string(a_->depth[v]),
            d == heap::kVirtualRoot ? "[root]" : heap::ClassName(s, a_->cls[d])}]++;
  }
  Rows got;
  for (auto& [k, n] : counts) {
    got.push_back(k);
    got.back().push_back(std::to_string(n));
  }
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

TEST_F(HeapExplorerJvmTest, HistogramMatchesOracleSums) {
  Rows want = Oracle(
      "SELECT c.name, count(*), sum(o.self_size), max(d.dominated_size_bytes) "
      "FROM heap_graph_dominator_tree d JOIN heap_graph_object o USING (id) "
      "JOIN heap_graph_class c ON c.id = o.type_id WHERE c.name LIKE 'HeapFixture$%' "
      "GROUP BY 1 ORDER BY 1");
  ASSERT_EQ(want.size(), 3u);  // Holder, Leaf, Node
  auto rows = heap::ClassHistogram(tp().storage(), *a_, heap::Grouping::kClass);
  for (const auto& w : want) {
    auto it = std::find_if(rows.begin(), rows.end(), [&](auto& r) { return r.name == w[0]; });
    ASSERT_NE(it, rows.end()) << w[0];
    EXPECT_EQ(std::to_string(it->count), w[1]) << w[0];
    EXPECT_EQ(std::to_string(it->shallow_size), w[2]) << w[0];
    // Holder is one object, Nodes a chain whose head dominates the rest.
    if (w[0] != "HeapFixture$Leaf") {
      EXPECT_EQ(std::to_string(it->retained_size), w[3]) << w[0];
    }
  }
  // By package: every reachable object counted once; retained at most the total.
  auto packages = heap::ClassHistogram(tp().storage(), *a_, heap::Grouping::kPackage);
  int64_t count = 0;
  for (const auto& p : packages) {
    count += p.count;
    EXPECT_LE(p.retained_size, a_->total_reachable_size) << p.name;
    EXPECT_GE(p.retained_size, p.shallow_size) << p.name;
  }
  EXPECT_EQ(count, a_->reachable_count);
  EXPECT_EQ(std::to_string(a_->reachable_count),
            Oracle("SELECT count(*) FROM heap_graph_dominator_tree")[0][0]);
  EXPECT_EQ(heap::PackageOf("java.lang.Class<java.util.HashMap$Node[]>"), "java.util");
}

TEST_F(HeapExplorerJvmTest, InstancesFieldsReferrersAndPathToRoot) {
  const TraceStorage& s = tp().storage();
  auto rows = heap::ClassHistogram(s, *a_, heap::Grouping::kClass);
  auto leaf =
      std::find_if(rows.begin(), rows.end(), [](auto& r) { return r.name == "HeapFixture$Leaf"; });
  ASSERT_NE(leaf, rows.end());
  auto instances = heap::Instances(*a_, leaf->classes);
  ASSERT_EQ(instances.size(), 17u);
  const auto& objects = s.profile.heap_graph_object;
  for (uint32_t v : instances) {
    heap::ObjectDetails d = heap::DescribeObject(s, *a_, v);
    ASSERT_FALSE(d.path.empty());
    EXPECT_EQ(d.path.back().other, v);
    EXPECT_FALSE(heap::DescribeObject(s, *a_, d.path.front().other).root_type.empty());
    // The path is a shortest one: as long as the importer's root distance.
    EXPECT_EQ(static_cast<int32_t>(d.path.size()) - 1, objects.root_distance[a_->rows[v]]);
    // Each step is a field of the previous object.
    for (size_t k = 1; k < d.path.size(); ++k) {
      auto prev = heap::DescribeObject(s, *a_, d.path[k - 1].other);
      bool found = false;
      for (const auto& f : prev.fields)
        found |= f.field == d.path[k].field && f.other == d.path[k].other;
      EXPECT_TRUE(found) << k;
    }
    bool has_data = false;
    for (const auto& f : d.fields) has_data |= f.field == "HeapFixture$Leaf.data";
    EXPECT_TRUE(has_data);
    // Referenced from the ArrayList's element array.
    ASSERT_FALSE(d.referrers.empty());
    EXPECT_EQ(heap::ClassName(s, a_->cls[d.referrers[0].other]), "java.lang.Object[]");
  }
}

// ExplorerFixture has 4 equal int[9], 3 equal bitmaps and one other, two
// finished Activities and one detached Fragment. The importer keeps no
// contents yet, so duplicates and Activity leaks are checked with contents
// made here from what the fixture holds; the Fragment needs none.
TEST(HeapExplorerFixtureTest, DuplicatesAndLeaks) {
  TempDir dir;
  if (!std::filesystem::exists(testing::Oracle())) GTEST_SKIP() << "no oracle";
  if (!testing::CompileExplorerFixture(dir)) GTEST_SKIP() << "no JDK (javac, java, jcmd) on PATH";
  ASSERT_TRUE(testing::DumpFixtureHeap(dir, "ex.hprof", "ExplorerFixture"));
  const auto dump = dir.path() / "ex.hprof";
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(dump.string()).ok());
  const TraceStorage& s = tp.storage();
  auto analysed = heap::AnalyzeHeapDump(s, heap::ListHeapDumps(s).at(0), nullptr);
  ASSERT_TRUE(analysed.ok());
  const heap::HeapAnalysis& a = **analysed;
  auto oracle_int = [&](const std::string& sql) {
    return std::stoll(testing::OracleRows(dump, sql, dir).at(0).at(0));
  };
  const char* kInt9 =
      "FROM heap_graph_object o JOIN heap_graph_class c ON c.id = o.type_id "
      "WHERE c.name = 'int[]' AND o.self_size = 9 * 4 AND o.reachable";
  const int64_t int9_count = oracle_int(std::string("SELECT count(*) ") + kInt9);
  ASSERT_GE(int9_count, 4);
  const int64_t bitmap = oracle_int(
      "SELECT max(self_size) FROM heap_graph_object o JOIN heap_graph_class c "
      "ON c.id = o.type_id WHERE c.name = 'android.graphics.Bitmap'");
  const int64_t pixels = oracle_int(
      "SELECT max(self_size) FROM heap_graph_object o JOIN heap_graph_class c "
      "ON c.id = o.type_id WHERE c.name = 'byte[]' AND self_size BETWEEN 16384 AND 16400");

  EXPECT_TRUE(heap::FindDuplicates(s, a, nullptr).empty());
  auto alone = heap::FindLeaks(s, a, nullptr);
  ASSERT_EQ(alone.size(), 1u);
  EXPECT_EQ(heap::ClassName(s, a.cls[alone[0].object]), "ExplorerFixture$DetailFragment");
  EXPECT_EQ(alone[0].reason, "Fragment without FragmentManager");

  // Contents: every int[9] equal, every bitmap's pixels equal, every
  // MainActivity finished.
  heap::HeapContents contents;
  for (uint32_t v = 0; v < a.size(); ++v) {
    const std::string name = heap::ClassName(s, a.cls[v]);
    if (name == "int[]" && a.self_size[v] == 9 * 4) {
      contents.hashed_rows.push_back(a.rows[v]);
      contents.hashes.push_back(42);
    } else if (name == "byte[]" && a.self_size[v] == pixels) {
      contents.hashed_rows.push_back(a.rows[v]);
      contents.hashes.push_back(7);
    } else if (name == "ExplorerFixture$MainActivity") {
      contents.finished_activity_rows.push_back(a.rows[v]);
    }
  }
  auto groups = heap::FindDuplicates(s, a, &contents);
  ASSERT_EQ(groups.size(), 2u);
  // Largest waste first: 4 bitmaps (with their pixels), then the arrays;
  // the pixel arrays count with their bitmaps, not again as arrays.
  EXPECT_EQ(groups[0].kind, heap::DuplicateKind::kBitmap);
  EXPECT_EQ(groups[0].objects.size(), 4u);
  EXPECT_EQ(groups[0].bytes_each, bitmap + pixels);
  EXPECT_EQ(groups[0].wasted, 3 * (bitmap + pixels));
  EXPECT_EQ(groups[1].kind, heap::DuplicateKind::kPrimitiveArray);
  EXPECT_EQ(int64_t(groups[1].objects.size()), int9_count);
  EXPECT_EQ(groups[1].wasted, (int9_count - 1) * (9 * 4));
  auto leaks = heap::FindLeaks(s, a, &contents);
  std::multiset<std::string> got;
  for (const auto& l : leaks) got.insert(heap::ClassName(s, a.cls[l.object]) + ": " + l.reason);
  EXPECT_EQ(got, (std::multiset<std::string>{
                     "ExplorerFixture$MainActivity: Activity destroyed or finished",
                     "ExplorerFixture$MainActivity: Activity destroyed or finished",
                     "ExplorerFixture$MainActivity: Activity destroyed or finished",
                     "ExplorerFixture$DetailFragment: Fragment without FragmentManager"}));
}

// The contents pass on the same kind of dump: the contents read back from the
// file find what ExplorerFixture made: 5 equal strings ("duplicate me,
// please", 20 Latin-1 bytes), 4 equal int[9] {1..9}, 3 equal bitmaps (a
// fourth has other pixels), 2 finished Activities and the detached Fragment.
TEST(HeapExplorerFixtureTest, ContentsReadBackFromTheFile) {
  TempDir dir;
  if (!std::filesystem::exists(testing::Oracle())) GTEST_SKIP() << "no oracle";
  if (!testing::CompileExplorerFixture(dir)) GTEST_SKIP() << "no JDK (javac, java, jcmd) on PATH";
  ASSERT_TRUE(testing::DumpFixtureHeap(dir, "ex.hprof", "ExplorerFixture"));
  const auto dump = dir.path() / "ex.hprof";
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(dump.string()).ok());
  const TraceStorage& s = tp.storage();
  auto analysed = heap::AnalyzeHeapDump(s, heap::ListHeapDumps(s).at(0), nullptr);
  ASSERT_TRUE(analysed.ok());
  const heap::HeapAnalysis& a = **analysed;
  auto contents = hprof::ReadHprofContents(dump.string(), a.rows, nullptr);
  ASSERT_TRUE(contents.ok()) << contents.status().message();
  auto size_of = [&](const std::string& where) {
    return std::stoll(testing::OracleRows(dump,
                                          "SELECT max(o.self_size) FROM heap_graph_object o JOIN "
                                          "heap_graph_class c ON c.id = o.type_id WHERE " +
                                              where,
                                          dir)
                          .at(0)
                          .at(0));
  };
  const int64_t string_size = size_of("c.name = 'java.lang.String'");
  const int64_t bitmap = size_of("c.name = 'android.graphics.Bitmap'");
  const int64_t pixels = size_of("c.name = 'byte[]' AND self_size BETWEEN 16384 AND 16400");
  auto groups = heap::FindDuplicates(s, a, &*contents);
  auto find = [&](heap::DuplicateKind kind, const std::string& cls,
                  size_t n) -> const heap::DuplicateGroup* {
    for (const auto& g : groups)
      if (g.kind == kind && heap::ClassName(s, g.cls) == cls && g.objects.size() >= n) return &g;
    return nullptr;
  };
  const heap::DuplicateGroup* str = find(heap::DuplicateKind::kString, "java.lang.String", 5);
  ASSERT_NE(str, nullptr);
  EXPECT_EQ(str->text, "duplicate me, please");
  EXPECT_EQ(str->bytes_each, string_size + 20);
  // The UTF-16 one (coder 1): 3 made, plus the literal; 9 chars, 18 bytes.
  const heap::DuplicateGroup* wide = nullptr;
  for (const auto& g : groups)
    if (g.kind == heap::DuplicateKind::kString && g.bytes_each == string_size + 18 &&
        g.objects.size() == 4)
      wide = &g;
  ASSERT_NE(wide, nullptr);
  EXPECT_EQ(wide->text, "\u017C\u00F3\u0142w \u2713 \u65E5\u672C");
  // 5 made by the program, and the literal they were made from (interned).
  EXPECT_EQ(str->objects.size(), 6u);
  EXPECT_EQ(str->wasted, 5 * str->bytes_each);
  // Of the int[9] groups (the JDK has equal all-zero arrays too), {1..9}:
  // exactly four copies.
  int int9_groups_of_four = 0;
  for (const auto& g : groups)
    int9_groups_of_four += g.kind == heap::DuplicateKind::kPrimitiveArray &&
                           heap::ClassName(s, g.cls) == "int[]" && g.bytes_each == 9 * 4 &&
                           g.objects.size() == 4 && g.wasted == 3 * 9 * 4;
  EXPECT_GE(int9_groups_of_four, 1);
  const heap::DuplicateGroup* bitmaps =
      find(heap::DuplicateKind::kBitmap, "android.graphics.Bitmap", 3);
  ASSERT_NE(bitmaps, nullptr);
  EXPECT_EQ(bitmaps->objects.size(), 3u);
  EXPECT_EQ(bitmaps->wasted, 2 * (bitmap + pixels));
  EXPECT_EQ(bitmaps->text, "64 x 64 px");
  // Every bitmap's pixels are in its mBuffer: 4 of 64 x 64 and the picture.
  auto rows = heap::FindBitmaps(s, a, &*contents);
  ASSERT_EQ(rows.size(), 5u);
  int pattern = 0;
  for (const auto& b : rows) {
    EXPECT_EQ(b.source, heap::BitmapRow::Source::kBuffer);
    EXPECT_EQ(b.format, "ARGB_8888");
    auto px = heap::ReadBitmapPixels(a, *contents, b);
    ASSERT_TRUE(px.ok()) << px.status().message();
    ASSERT_EQ(int64_t(px->bytes.size()), int64_t(b.width) * b.height * 4);
    pattern += px->bytes[1] == 7 && px->bytes[100] == uint8_t(700);  // (byte) (i * 7)
  }
  EXPECT_EQ(pattern, 3);
  auto leaks = heap::FindLeaks(s, a, &*contents);
  std::multiset<std::string> got;
  for (const auto& l : leaks) got.insert(heap::ClassName(s, a.cls[l.object]) + ": " + l.reason);
  EXPECT_EQ(got, (std::multiset<std::string>{
                     "ExplorerFixture$MainActivity: Activity destroyed or finished",
                     "ExplorerFixture$MainActivity: Activity destroyed or finished",
                     "ExplorerFixture$DetailFragment: Fragment without FragmentManager"}));
  // A file that is not the loaded dump is refused, not misread.
  std::vector<uint32_t> fewer(a.rows.begin(), a.rows.end() - 1);
  EXPECT_FALSE(hprof::ReadHprofContents(dump.string(), fewer, nullptr).ok());
  EXPECT_FALSE(hprof::ReadHprofContents((dir.path() / "missing").string(), a.rows, nullptr).ok());
}

// Bitmaps of an ART-style dump made here (art_bitmap_dump.h): a PNG in
// Bitmap$DumpData matched by mNativePtr, native-only pixels, raw RGB_565
// mBuffers (two equal: a duplicate); then the file moved away.
TEST(HeapExplorerBitmapsTest, ArtDumpPixelsAndAMovedFile) {
  TempDir dir;
  const auto path = dir.Write("bitmaps.hprof", testing::ArtBitmapDump());
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(path.string()).ok());
  const TraceStorage& s = tp.storage();
  auto analysed = heap::AnalyzeHeapDump(s, heap::ListHeapDumps(s).at(0), nullptr);
  ASSERT_TRUE(analysed.ok()) << analysed.status().message();
  const heap::HeapAnalysis& a = **analysed;
  auto contents = hprof::ReadHprofContents(path.string(), a.rows, nullptr);
  ASSERT_TRUE(contents.ok()) << contents.status().message();
  auto rows = heap::FindBitmaps(s, a, &*contents);
  ASSERT_EQ(rows.size(), 4u);
  std::map<std::pair<int, int>, std::vector<const heap::BitmapRow*>> by_size;
  for (const auto& b : rows) by_size[{b.width, b.height}].push_back(&b);
  ASSERT_EQ(by_size[std::make_pair(32, 32)].size(), 1u);
  const heap::BitmapRow& png = *by_size[std::make_pair(32, 32)][0];
  EXPECT_EQ(png.source, heap::BitmapRow::Source::kEncoded);
  EXPECT_EQ(png.format, "encoded (PNG)");
  auto png_px = heap::ReadBitmapPixels(a, *contents, png);
  ASSERT_TRUE(png_px.ok()) << png_px.status().message();
  EXPECT_EQ(std::string(png_px->bytes.begin(), png_px->bytes.end()), testing::ArtBitmapPng());
  ASSERT_EQ(by_size[std::make_pair(40, 30)].size(), 1u);
  const heap::BitmapRow& native = *by_size[std::make_pair(40, 30)][0];
  EXPECT_EQ(native.source, heap::BitmapRow::Source::kNone);
  EXPECT_NE(native.note.find("native memory"), std::string::npos) << native.note;
  EXPECT_FALSE(heap::ReadBitmapPixels(a, *contents, native).ok());
  ASSERT_EQ(by_size[std::make_pair(3, 2)].size(), 2u);
  for (const heap::BitmapRow* raw : by_size[std::make_pair(3, 2)]) {
    EXPECT_EQ(raw->source, heap::BitmapRow::Source::kBuffer);
    EXPECT_EQ(raw->format, "RGB_565");
    auto px = heap::ReadBitmapPixels(a, *contents, *raw);
    ASSERT_TRUE(px.ok());
    EXPECT_EQ(px->format, heap::BitmapPixels::Format::kRgb565);
    EXPECT_EQ(std::string(px->bytes.begin(), px->bytes.end()), testing::ArtBitmapRgb565());
  }
  auto groups = heap::FindDuplicates(s, a, &*contents);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].kind, heap::DuplicateKind::kBitmap);
  EXPECT_EQ(groups[0].objects.size(), 2u);
  EXPECT_EQ(groups[0].text, "3 x 2 px");
  // Moved: reading pixels again, or the contents pass, says so plainly.
  std::filesystem::rename(path, dir.path() / "elsewhere.hprof");
  auto gone = heap::ReadBitmapPixels(a, *contents, png);
  ASSERT_FALSE(gone.ok());
  EXPECT_NE(gone.status().message().find("moved or deleted"), std::string::npos)
      << gone.status().message();
  auto again = hprof::ReadHprofContents(path.string(), a.rows, nullptr);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("moved or deleted"), std::string::npos);
}

}  // namespace
}  // namespace fathom
