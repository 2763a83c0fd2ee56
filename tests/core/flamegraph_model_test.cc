// The flamegraph model: tree operations on hand-built trees, the heap graph
// trees on a hand-built graph, and every builder on the shared real traces
// (totals compared with SQL over the same tables).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <sstream>

#include "core/flamegraph/demangle.h"
#include "core/flamegraph/flamegraph.h"
#include "core/flamegraph/profiles.h"
#include "core/trace_processor.h"
#include "tests/core/naive_dominators.h"
#include "trace_test_util.h"

namespace fathom {
namespace {

// "a;b;c 5" lines -> a finalized tree with size = count = alloc_* = value.
Flamegraph FromFolded(const std::vector<std::string>& lines) {
  Flamegraph fg;
  for (const std::string& line : lines) {
    size_t sp = line.rfind(' ');
    int64_t v = std::stoll(line.substr(sp + 1));
    std::stringstream ss(line.substr(0, sp));
    std::string frame;
    std::optional<uint32_t> node;
    while (std::getline(ss, frame, ';'))
      node = fg.Child(node, fg.Intern(frame), fg.Intern("lib.so"));
    FlamegraphNode& n = fg.mutable_node(*node);
    n.size += v;
    n.count += v;
    n.alloc_size += v;
    n.alloc_count += v;
  }
  fg.Finalize(Metric::kSize);
  return fg;
}

// Tree -> sorted "a;b VALUE" lines of self sizes (independent of node order).
std::vector<std::string> ToFolded(const Flamegraph& fg, Metric m = Metric::kSize) {
  std::vector<std::string> out;
  for (uint32_t i = 0; i < fg.size(); ++i) {
    if (fg.node(i).self(m) == 0) continue;
    std::string s;
    for (uint32_t p : fg.PathTo(i)) s.append(s.empty() ? "" : ";").append(fg.name(p));
    out.push_back(s + " " + std::to_string(fg.node(i).self(m)));
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<uint32_t> Find(const Flamegraph& fg, const std::string& path) {
  for (uint32_t i = 0; i < fg.size(); ++i) {
    std::string s;
    for (uint32_t p : fg.PathTo(i)) s.append(s.empty() ? "" : ";").append(fg.name(p));
    if (s == path) return i;
  }
  return std::nullopt;
}

TEST(FlamegraphModel, CumulativeValuesAndPreOrder) {
  Flamegraph fg = FromFolded({"a;b 3", "a;c 2", "d 1", "a 4"});
  EXPECT_EQ(fg.Total(Metric::kSize), 10);
  ASSERT_EQ(fg.size(), 4u);
  // Heaviest first: a (9) then d (1); under a: b (3) then c (2).
  EXPECT_EQ(fg.name(0), "a");
  EXPECT_EQ(fg.node(0).cumulative_size, 9);
  EXPECT_EQ(fg.node(0).size, 4);
  EXPECT_EQ(fg.name(1), "b");
  EXPECT_EQ(fg.name(2), "c");
  EXPECT_EQ(fg.name(3), "d");
  EXPECT_EQ(fg.map_name(1), "lib.so");
  for (uint32_t i = 0; i < fg.size(); ++i)
    if (fg.node(i).parent) {
      EXPECT_LT(*fg.node(i).parent, i);
    }
}

TEST(FlamegraphModel, InvertedPutsLeavesAtTheRoot) {
  Flamegraph inv = FromFolded({"main;f;malloc 5", "main;g;malloc 3", "main;g 2"}).Inverted();
  EXPECT_EQ(ToFolded(inv),
            (std::vector<std::string>{"g;main 2", "malloc;f;main 5", "malloc;g;main 3"}));
  EXPECT_EQ(inv.node(*Find(inv, "malloc")).cumulative_size, 8);
  EXPECT_EQ(inv.Total(Metric::kSize), 10);
}

TEST(FlamegraphModel, FocusReRootsAtOutermostMatch) {
  Flamegraph fg = FromFolded({"main;work;leaf 4", "main;other;work;x 1", "main;idle 7"});
  Result<Flamegraph> f = fg.Focus("^WORK$");  // case-insensitive
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(ToFolded(*f), (std::vector<std::string>{"work;leaf 4", "work;x 1"}));
  EXPECT_FALSE(fg.Focus("(unclosed").ok());
}

TEST(FlamegraphModel, HideMergesIntoParent) {
  Flamegraph fg = FromFolded({"main;wrapper;work 4", "main;wrapper 1", "main;b 2"});
  Result<Flamegraph> h = fg.Hide("wrap");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(ToFolded(*h), (std::vector<std::string>{"main 1", "main;b 2", "main;work 4"}));
  EXPECT_EQ(h->Total(Metric::kSize), fg.Total(Metric::kSize));
}

TEST(FlamegraphModel, CollapseRecursion) {
  Flamegraph fg = FromFolded({"main;f;f;f;g 3", "main;f;f 2", "main;f;h;f 1"});
  EXPECT_EQ(ToFolded(fg.CollapseRecursion()),
            (std::vector<std::string>{"main;f 2", "main;f;g 3", "main;f;h;f 1"}));
}

TEST(FlamegraphModel, PruneKeepsTotals) {
  Flamegraph fg = FromFolded({"a;b 30", "a;c 1", "a;c;d 1", "e 1"});
  Flamegraph p = fg.Prune(Metric::kSize, 3);
  EXPECT_EQ(ToFolded(p), (std::vector<std::string>{"a 2", "a;b 30"}));
  // "e" is a root below the threshold: dropped with its value.
  EXPECT_EQ(p.Total(Metric::kSize), 32);
}

TEST(FlamegraphModel, SearchCountsNestedMatchesOnce) {
  Flamegraph fg = FromFolded({"main;alloc;alloc_inner 6", "main;other 4"});
  Result<SearchResult> r = fg.Search("alloc", Metric::kSize);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->matched_nodes.size(), 2u);
  EXPECT_EQ(r->matched_value, 6);
  EXPECT_EQ(r->total_value, 10);
  EXPECT_DOUBLE_EQ(r->share(), 0.6);
}

TEST(FlamegraphModel, CallersAndCallees) {
  Flamegraph fg = FromFolded({"x;f;z 2", "y;f;z 3", "y;f;w 1", "f 5"});
  auto callers = fg.Callers("f", Metric::kSize);
  ASSERT_EQ(callers.size(), 3u);
  EXPECT_EQ(callers[0].name, "<root>");
  EXPECT_EQ(callers[0].value, 5);
  EXPECT_EQ(callers[1].name, "y");
  EXPECT_EQ(callers[1].value, 4);
  auto callees = fg.Callees("f", Metric::kSize);
  ASSERT_EQ(callees.size(), 2u);
  EXPECT_EQ(callees[0].name, "z");
  EXPECT_EQ(callees[0].value, 5);
  EXPECT_EQ(callees[1].name, "w");
}

TEST(FlamegraphModel, DiffIsBMinusAPerNode) {
  Flamegraph a = FromFolded({"main;f 3", "main;gone 4"});
  Flamegraph b = FromFolded({"main;f 5", "main;new 1"});
  Flamegraph d = Flamegraph::Diff(a, b);
  ASSERT_TRUE(d.is_diff());
  uint32_t f = *Find(d, "main;f"), gone = *Find(d, "main;gone"), nw = *Find(d, "main;new");
  EXPECT_EQ(d.node(f).cumulative_size, 2);
  EXPECT_EQ(d.BaseCumulative(f, Metric::kSize), 3);
  EXPECT_EQ(d.node(gone).cumulative_size, -4);
  EXPECT_EQ(d.node(nw).cumulative_size, 1);
  EXPECT_EQ(d.BaseCumulative(nw, Metric::kSize), 0);
  EXPECT_EQ(d.Total(Metric::kSize), b.Total(Metric::kSize) - a.Total(Metric::kSize));
}

TEST(FlamegraphModel, DemangleKeepsDeduped) {
  EXPECT_EQ(Demangle("_ZN3foo3barEv"), "foo::bar()");
  EXPECT_EQ(Demangle("_ZN3foo3barEv [DEDUPED]"), "foo::bar() [DEDUPED]");
  EXPECT_EQ(Demangle("malloc"), "malloc");
  EXPECT_EQ(Demangle("_Znot valid"), "_Znot valid");
}

// ---- heap graph trees on a hand-built graph ----------------------------------

// R (root, 1 B) -> A (10), R -> B (20), A -> C (100), B -> C, C -> D (1000),
// plus a reference to an object id that does not exist.
void AddGraph(TraceStorage* s) {
  auto& classes = s->profile.heap_graph_class;
  auto& objects = s->profile.heap_graph_object;
  auto& refs = s->profile.heap_graph_reference;
  StringId kind = s->Intern("KIND_NORMAL");
  std::vector<uint32_t> cls;
  for (const char* n : {"Root", "A", "B", "C", "D"})
    cls.push_back(classes.Insert(s->Intern(n), kNullStringId, kind));
  int64_t sizes[] = {1, 10, 20, 100, 1000};
  std::vector<uint32_t> obj;
  for (int i = 0; i < 5; ++i) {
    uint32_t o = objects.Insert(/*upid=*/0, /*ts=*/100);
    objects.type_id.Set(o, cls[i]);
    objects.self_size.Set(o, sizes[i]);
    obj.push_back(o);
  }
  objects.root_type.Set(obj[0], s->Intern("ROOT_JAVA_FRAME"));
  auto add_refs = [&](uint32_t owner, std::vector<uint32_t> owned) {
    uint32_t set = refs.row_count();
    for (uint32_t o : owned) refs.Insert(set, owner, o, kNullStringId, kNullStringId);
    objects.reference_set_id.Set(owner, set);
  };
  add_refs(obj[0], {obj[1], obj[2]});
  add_refs(obj[1], {obj[3]});
  add_refs(obj[2], {obj[3], 999999});
  add_refs(obj[3], {obj[4]});
}

TEST(FlamegraphModel, HeapGraphShortestPathAndDominatorTrees) {
  TraceStorage s;
  AddGraph(&s);
  size_t strings_before = s.strings.size();
  Result<Flamegraph> sp = BuildHeapGraphFlamegraph(s, 0, 100);
  ASSERT_TRUE(sp.ok());
  sp->Finalize();
  EXPECT_EQ(ToFolded(*sp),
            (std::vector<std::string>{"Root [ROOT_JAVA_FRAME] 1", "Root [ROOT_JAVA_FRAME];A 10",
                                      "Root [ROOT_JAVA_FRAME];A;C 100",
                                      "Root [ROOT_JAVA_FRAME];A;C;D 1000",
                                      "Root [ROOT_JAVA_FRAME];B 20"}));
  Result<Flamegraph> dom = BuildHeapGraphDominatorFlamegraph(s, 0, 100);
  ASSERT_TRUE(dom.ok());
  dom->Finalize();
  // C is reachable through A and B, so only the root dominates it.
  EXPECT_EQ(ToFolded(*dom),
            (std::vector<std::string>{"Root [ROOT_JAVA_FRAME] 1", "Root [ROOT_JAVA_FRAME];A 10",
                                      "Root [ROOT_JAVA_FRAME];B 20", "Root [ROOT_JAVA_FRAME];C 100",
                                      "Root [ROOT_JAVA_FRAME];C;D 1000"}));
  EXPECT_EQ(dom->node(*Find(*dom, "Root [ROOT_JAVA_FRAME];C")).cumulative_size, 1100);
  EXPECT_EQ(dom->Total(Metric::kSize), 1131);
  // Building never adds strings to the (shared, read-only) storage.
  EXPECT_EQ(s.strings.size(), strings_before);
}

// Dominator tree against a naive fixpoint on small random graphs: with one
// class per object, a node's cumulative size is that object's retained size.
TEST(FlamegraphModel, DominatorTreeMatchesNaiveFixpoint) {
  std::mt19937 rng(1);
  for (int round = 0; round < 30; ++round) {
    TraceStorage s;
    const int n = 3 + static_cast<int>(rng() % 25);
    StringId kind = s.Intern("KIND_NORMAL");
    std::vector<std::vector<int>> succ(n);
    for (int i = 0; i < n; ++i) {
      uint32_t cls = s.profile.heap_graph_class.Insert(
          s.Intern(std::string("C").append(std::to_string(i))), kNullStringId, kind);
      uint32_t o = s.profile.heap_graph_object.Insert(0, 1);
      s.profile.heap_graph_object.type_id.Set(o, cls);
      s.profile.heap_graph_object.self_size.Set(o, 1 + i);
      int edges = static_cast<int>(rng() % 4);
      for (int e = 0; e < edges; ++e) succ[i].push_back(static_cast<int>(rng() % n));
    }
    std::vector<int> roots = {0};
    if (n > 5) roots.push_back(static_cast<int>(rng() % n));
    for (int r : roots) s.profile.heap_graph_object.root_type.Set(r, s.Intern("ROOT_X"));
    for (int i = 0; i < n; ++i) {
      if (succ[i].empty()) continue;
      uint32_t set = s.profile.heap_graph_reference.row_count();
      for (int t : succ[i])
        s.profile.heap_graph_reference.Insert(set, i, t, kNullStringId, kNullStringId);
      s.profile.heap_graph_object.reference_set_id.Set(i, set);
    }
    // Naive: vertex n is a virtual root above the GC roots.
    const testing::NaiveDominators nd = testing::ComputeNaiveDominators(n, succ, roots);
    const auto& reach = nd.reach;
    const auto& dom = nd.dom;
    std::map<std::string, int64_t> retained;  // "C<i>" -> sum of sizes it dominates
    for (int v = 0; v < n; ++v)
      for (int d = 0; d < n; ++d)
        if (reach[v] && dom[v][d]) retained[std::string("C").append(std::to_string(d))] += 1 + v;
    Result<Flamegraph> fg = BuildHeapGraphDominatorFlamegraph(s, 0, 1);
    ASSERT_TRUE(fg.ok());
    fg->Finalize();
    std::map<std::string, int64_t> got;
    for (uint32_t i = 0; i < fg->size(); ++i) {
      std::string name(fg->name(i));
      got[name.substr(0, name.find(' '))] = fg->node(i).cumulative_size;
    }
    EXPECT_EQ(got, retained) << "round " << round;
  }
}

TEST(FlamegraphModel, CancelledBuildReturnsError) {
  TraceStorage s;
  AddGraph(&s);
  std::atomic<bool> cancel{true};
  EXPECT_FALSE(BuildHeapGraphDominatorFlamegraph(s, 0, 100, &cancel).ok());
}

// ---- real traces -----------------------------------------------------------

int64_t QueryInt(TraceProcessor& tp, const std::string& sql) {
  auto it = tp.Query(sql);
  EXPECT_TRUE(it->NextResultSet() && it->NextRow()) << sql << ": " << it->status().message();
  return it->Get(0).i;
}

std::unique_ptr<TraceProcessor> Load(const std::string& name) {
  auto tp = std::make_unique<TraceProcessor>();
  Status st = tp->LoadFile(testing::TestData(name).string());
  EXPECT_TRUE(st.ok()) << st.message();
  return tp;
}

TEST(FlamegraphRealTraces, NativeDumpsMatchSql) {
  auto tp = Load("heapprofd_continuous_legacy.pb");
  const TraceStorage& s = tp->storage();
  size_t strings_before = s.strings.size();
  std::vector<ProfileDump> dumps = ListProfiles(s);
  ASSERT_EQ(dumps.size(), 2u);
  for (const ProfileDump& d : dumps) {
    ASSERT_EQ(d.kind, ProfileKind::kNative);
    std::string where = " from heap_profile_allocation where upid = " + std::to_string(d.upid) +
                        " and ts <= " + std::to_string(d.ts);
    int64_t unreleased = QueryInt(*tp, "select sum(size)" + where);
    int64_t total = QueryInt(*tp, "select sum(size)" + where + " and size > 0");
    EXPECT_EQ(d.Total(FlamegraphView::kUnreleasedSize), unreleased);
    for (FlamegraphView v : ViewsOf(ProfileKind::kNative)) {
      Result<Flamegraph> fg = BuildFlamegraph(s, RequestFor(d, v));
      ASSERT_TRUE(fg.ok());
      EXPECT_EQ(fg->Total(MetricOf(v)), d.Total(v)) << ViewName(v);
    }
    Result<Flamegraph> fg = BuildFlamegraph(s, RequestFor(d, FlamegraphView::kTotalSize));
    EXPECT_EQ(fg->Total(Metric::kAllocSize), total);
    EXPECT_EQ(fg->Total(Metric::kSize), unreleased);
  }
  EXPECT_EQ(PickLargestProfile(dumps, std::nullopt, std::nullopt)->ts, 40);
  EXPECT_EQ(s.strings.size(), strings_before);
}

TEST(FlamegraphRealTraces, JavaHeapGraph) {
  auto tp = Load("java_heap_graph_legacy.pb");
  const TraceStorage& s = tp->storage();
  std::vector<ProfileDump> dumps = ListProfiles(s);
  ASSERT_EQ(dumps.size(), 1u);
  const ProfileDump& d = dumps[0];
  EXPECT_EQ(d.kind, ProfileKind::kJavaGraph);
  int64_t reachable_bytes =
      QueryInt(*tp, "select sum(self_size) from heap_graph_object where reachable");
  int64_t reachable = QueryInt(*tp, "select count(*) from heap_graph_object where reachable");
  Result<Flamegraph> sp = BuildFlamegraph(s, RequestFor(d, FlamegraphView::kObjectSize));
  Result<Flamegraph> dom = BuildFlamegraph(s, RequestFor(d, FlamegraphView::kRetainedSize));
  ASSERT_TRUE(sp.ok() && dom.ok());
  EXPECT_EQ(sp->Total(Metric::kSize), reachable_bytes);
  EXPECT_EQ(sp->Total(Metric::kCount), reachable);
  EXPECT_EQ(dom->Total(Metric::kSize), reachable_bytes);
  EXPECT_EQ(sp->map_name(0), "JAVA");
}

TEST(FlamegraphRealTraces, CpuSamplesOverTimeRange) {
  auto tp = Load("linux_compact_sched_perf_samples.pftrace");
  const TraceStorage& s = tp->storage();
  std::vector<ProfileDump> dumps = ListProfiles(s);
  auto all = PickLargestProfile(dumps, ProfileKind::kCpu, std::nullopt);
  ASSERT_TRUE(all && all->all_processes);
  EXPECT_EQ(all->Total(FlamegraphView::kSamples), 355);
  Result<Flamegraph> fg = BuildFlamegraph(s, RequestFor(*all, std::nullopt));
  ASSERT_TRUE(fg.ok());
  EXPECT_EQ(fg->Total(Metric::kCount), QueryInt(*tp, "select count(*) from perf_sample"));
  // Half-open range and CPU filter against SQL.
  FlamegraphRequest req = RequestFor(*all, std::nullopt);
  int64_t mid = (all->ts + all->end_ts) / 2;
  req.start_ts = all->ts;
  req.end_ts = mid;
  req.cpu = 0;
  int64_t expected = QueryInt(
      *tp, "select count(*) from perf_sample where cpu = 0 and ts >= " + std::to_string(all->ts) +
               " and ts < " + std::to_string(mid));
  EXPECT_EQ(BuildFlamegraph(s, req)->Total(Metric::kCount), expected);
  // Per process totals add up to the whole set.
  int64_t sum = 0;
  for (const ProfileDump& d : dumps)
    if (d.kind == ProfileKind::kCpu && !d.all_processes) sum += d.Total(FlamegraphView::kSamples);
  EXPECT_LE(sum, 355);
  EXPECT_GT(sum, 0);
}

// Java allocation samples from a tiallocsample log (format of ART's
// ti-alloc-sample README, written here): listed once per process, built
// over its time span, totals equal to SQL over heap 'com.android.art'.
TEST(FlamegraphRealTraces, JavaAllocationSamplesFromArtLog) {
  const std::string log =
      "+0,jthread[main], jclass[[I file: <UNKNOWN_FILE>], size[24, hex: 0x18]\n"
      "+1,main([Ljava/lang/String;)V\n"
      "+2,loop()V\n"
      "=3,0;1;2\n"
      "3\n"
      "3\n"
      "3\n";
  TraceProcessor tp;
  ASSERT_TRUE(
      tp.LoadBuffer(reinterpret_cast<const uint8_t*>(log.data()), log.size(), "app.log").ok());
  std::vector<ProfileDump> dumps = ListProfiles(tp.storage());
  auto d = PickLargestProfile(dumps, ProfileKind::kJavaSamples, std::nullopt);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->heap, "com.android.art");
  int64_t bytes = QueryInt(
      tp, "select sum(size) from heap_profile_allocation where heap_name = 'com.android.art'");
  EXPECT_EQ(d->Total(FlamegraphView::kTotalSize), bytes);
  Result<Flamegraph> fg = BuildFlamegraph(tp.storage(), RequestFor(*d, FlamegraphView::kTotalSize));
  ASSERT_TRUE(fg.ok());
  EXPECT_EQ(fg->Total(Metric::kAllocSize), bytes);
  EXPECT_EQ(fg->Total(Metric::kAllocCount), 3);
  EXPECT_EQ(fg->name(0), "main([Ljava/lang/String;)V");
}

}  // namespace
}  // namespace fathom
