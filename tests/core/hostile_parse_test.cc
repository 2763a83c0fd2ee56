// Hostile inputs for the parsers (issue 31): input-controlled depth must not
// recurse, cost must stay near-linear, and what is dropped is counted in
// `stats` and named in a load warning. The reproducers are in
// ../shared/reliability; the variants are built here. Every expected value
// comes from upstream's trace_processor_shell v58.2 run on the same bytes
// (the queries are quoted next to each number), never from Fathom itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/import/sorter.h"
#include "core/import/systrace_text_tokenizer.h"
#include "core/import/trace_blob.h"
#include "core/import/trace_context.h"
#include "core/trace_processor.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using namespace fathom::testing;

std::filesystem::path Reliability(const std::string& name) {
  return SharedDir() / "reliability" / name;
}

// ---- a raw protobuf writer (independent of core's decoder) ----------------

std::string Varint(uint64_t v) { return TestVarint(v); }
std::string VarintField(uint32_t field, uint64_t v) { return Varint(field << 3) + Varint(v); }
std::string BytesField(uint32_t field, const std::string& b) {
  return Varint((field << 3) | 2) + Varint(b.size()) + b;
}
std::string Packet(const std::string& body) { return BytesField(1, body); }

// TracePacket fields: 8 timestamp, 10 trusted_packet_sequence_id, 11
// track_event, 58 timestamp_clock_id, 60 track_descriptor, 6 clock_snapshot.
std::string TrackDescriptor(uint64_t uuid, uint64_t parent, const std::string& name) {
  std::string d = VarintField(1, uuid) + BytesField(2, name);
  if (parent) d += VarintField(5, parent);
  return Packet(VarintField(8, 1) + VarintField(10, 1) + BytesField(60, d));
}
std::string ThreadDescriptor(uint64_t uuid, uint64_t parent, int pid, int tid) {
  std::string d = VarintField(1, uuid) + VarintField(5, parent) +
                  BytesField(4, VarintField(1, pid) + VarintField(2, tid));
  return Packet(VarintField(8, 1) + VarintField(10, 1) + BytesField(60, d));
}
// TrackEvent: 9 type (1 begin, 2 end, 3 instant), 23 name, 11 track_uuid.
std::string Event(int64_t ts, uint64_t uuid, int type, const std::string& name,
                  const std::string& extra = "") {
  std::string e = VarintField(9, type) + VarintField(11, uuid) + extra;
  if (!name.empty()) e += BytesField(23, name);
  return Packet(VarintField(8, ts) + VarintField(10, 1) + BytesField(11, e));
}

struct Loaded {
  TraceProcessor tp;
  Status status;
  int64_t Int(const std::string& sql) { return QueryInt(tp, sql); }
  int64_t Stat(const std::string& name) {
    return Int("select coalesce(sum(value), 0) from stats where name = '" + name + "'");
  }
  bool Warned(const std::string& text) const {
    for (const std::string& w : tp.report().warnings)
      if (w.find(text) != std::string::npos) return true;
    return false;
  }
  std::string Warnings() const {
    std::string all;
    for (const std::string& w : tp.report().warnings) all += w + "\n";
    return all;
  }
};

std::unique_ptr<Loaded> LoadBytes(const std::string& bytes, const std::string& name,
                                  const LoadLimits& limits = LoadLimits()) {
  auto l = std::make_unique<Loaded>();
  l->tp.set_load_limits(limits);
  l->status = l->tp.LoadBuffer(AsBytes(bytes), bytes.size(), name);
  return l;
}
std::unique_ptr<Loaded> LoadReproducer(const std::string& name) {
  auto l = std::make_unique<Loaded>();
  l->status = l->tp.LoadFile(Reliability(name).string());
  return l;
}

// ---- 1. track descriptor parent chains -------------------------------------

// Upstream: `select * from track` is empty; stats track_event_parser_errors 2,
// track_event_track_hierarchy_loop 2 (one per descriptor).
TEST(HostileParse, TrackParentCycleReproducer) {
  auto l = LoadReproducer("track_parent_cycle.pftrace");
  ASSERT_TRUE(l->status.ok()) << l->status.message();
  EXPECT_EQ(l->Int("select count(*) from track"), 0);
  EXPECT_EQ(l->Stat("track_event_track_hierarchy_loop"), 2);
  EXPECT_EQ(l->Stat("track_event_parser_errors"), 2);
  EXPECT_TRUE(l->Warned("track_event_track_hierarchy_loop")) << l->Warnings();
}

struct HierarchyCase {
  const char* name;
  std::string bytes;
  int64_t tracks, slices, loop, missing, parser_errors;
};

// Each use of a track whose chain is broken fails and is counted again, as
// upstream counts it (descriptors and events alike).
TEST(HostileParse, TrackHierarchyVariantsMatchUpstream) {
  std::string chain40 = TrackDescriptor(1, 0, "root");
  for (uint64_t i = 2; i <= 40; ++i) chain40 += TrackDescriptor(i, i - 1, "t" + std::to_string(i));
  chain40 += Event(100, 40, 3, "leaf");
  std::vector<HierarchyCase> cases = {
      // a <-> b, one event on each: 4 uses.
      {"cycle_with_events",
       TrackDescriptor(1, 2, "a") + TrackDescriptor(2, 1, "b") + Event(100, 1, 3, "e1") +
           Event(200, 2, 3, "e2"),
       0, 0, 4, 0, 4},
      // c hangs below the a <-> b loop.
      {"child_of_cycle",
       TrackDescriptor(1, 2, "a") + TrackDescriptor(2, 1, "b") + TrackDescriptor(3, 1, "c") +
           Event(100, 3, 3, "e3"),
       0, 0, 4, 0, 4},
      {"self_parent", TrackDescriptor(1, 1, "a") + Event(100, 1, 3, "e1"), 0, 0, 2, 0, 2},
      {"three_cycle",
       TrackDescriptor(1, 2, "a") + TrackDescriptor(2, 3, "b") + TrackDescriptor(3, 1, "c") +
           Event(100, 1, 3, "e1"),
       0, 0, 4, 0, 4},
      // Thread descriptors' parent links are checked too.
      {"thread_cycle",
       ThreadDescriptor(1, 2, 1, 10) + ThreadDescriptor(2, 1, 1, 11) + Event(100, 1, 3, "e1"), 0, 0,
       3, 0, 3},
      // Long chains are fine: 40 tracks, the leaf's slice on the last one.
      {"chain_40", chain40, 40, 1, 0, 0, 0},
      {"missing_parent", TrackDescriptor(1, 99, "a") + Event(100, 1, 3, "e1"), 0, 0, 0, 2, 2},
  };
  for (const HierarchyCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto l = LoadBytes(c.bytes, c.name);
    ASSERT_TRUE(l->status.ok()) << l->status.message();
    EXPECT_EQ(l->Int("select count(*) from track"), c.tracks);
    EXPECT_EQ(l->Int("select count(*) from slice"), c.slices);
    EXPECT_EQ(l->Stat("track_event_track_hierarchy_loop"), c.loop);
    EXPECT_EQ(l->Stat("track_hierarchy_missing_uuid"), c.missing);
    EXPECT_EQ(l->Stat("track_event_parser_errors"), c.parser_errors);
  }
}

// Upstream on chain_40: `select id, parent_id from track` gives parent_id =
// id - 1 for every track but the root.
TEST(HostileParse, LongTrackChainKeepsEveryParent) {
  std::string bytes = TrackDescriptor(1, 0, "root");
  for (uint64_t i = 2; i <= 40; ++i) bytes += TrackDescriptor(i, i - 1, "t" + std::to_string(i));
  bytes += Event(100, 40, 3, "leaf");
  auto l = LoadBytes(bytes, "chain40");
  ASSERT_TRUE(l->status.ok()) << l->status.message();
  EXPECT_EQ(l->Int("select count(*) from track where parent_id is null"), 1);
  EXPECT_EQ(l->Int("select count(*) from track where parent_id = id - 1"), 39);
  EXPECT_EQ(l->Int("select t.name = 't40' from slice s join track t on s.track_id = t.id"), 1);
}

// ---- 2. debug annotations nested 30,000 deep -------------------------------

// Upstream keeps every level: `select count(*), length(key) from args where
// key like 'debug.%'` gives 1 row, 60007 characters ("debug.k" then 30,000
// ".k"), int value 1; one slice.
TEST(HostileParse, NestedDebugDict30000Reproducer) {
  auto l = LoadReproducer("nested_debug_dict_30000.pftrace");
  ASSERT_TRUE(l->status.ok()) << l->status.message();
  EXPECT_EQ(l->Int("select count(*) from slice"), 1);
  EXPECT_EQ(l->Int("select count(*) from args where key like 'debug.%'"), 1);
  EXPECT_EQ(l->Int("select length(key) from args where key like 'debug.%'"), 60007);
  EXPECT_EQ(l->Int("select int_value from args where key like 'debug.%'"), 1);
  EXPECT_EQ(l->Int("select key = flat_key and substr(key, -4) = '.k.k' from args where key like "
                   "'debug.%'"),
            1);
}

// DebugAnnotation: 10 name, 2 bool, 3 uint, 4 int, 6 string, 8 nested_value,
// 11 dict_entries, 12 array_values. NestedValue: 1 type (1 dict, 2 array),
// 2 dict_keys, 3 dict_values, 4 array_values, 5 int, 8 string.
std::string Ann(const std::string& name, const std::string& body) {
  return BytesField(10, name) + body;
}

// Every shape at ordinary depths flattens as upstream does; the rows are
// upstream's `select key, flat_key, value_type, ... from args where key like
// 'debug.%' order by id` on the same bytes.
TEST(HostileParse, DebugAnnotationKeysMatchUpstream) {
  auto nv_int = [](int v) { return VarintField(5, v); };
  std::string nested_dict =
      VarintField(1, 1) + BytesField(2, "p") + BytesField(2, "q") + BytesField(3, nv_int(1)) +
      BytesField(3, VarintField(1, 2) + BytesField(4, nv_int(2)) +
                        BytesField(4, VarintField(1, 1) + BytesField(2, "r") +
                                          BytesField(3, BytesField(8, "str"))));
  // deep.l1.l2.l3 = [[42]]
  std::string l3 = Ann("l3", BytesField(12, BytesField(12, VarintField(4, 42))));
  std::string deep = BytesField(11, Ann("l1", BytesField(11, Ann("l2", BytesField(11, l3)))));
  std::vector<std::string> anns = {
      Ann("a", VarintField(4, 5)),
      Ann("d", BytesField(11, Ann("x", VarintField(4, 1))) +
                   BytesField(11, Ann("y", BytesField(12, VarintField(4, 2)) +
                                               BytesField(12, BytesField(6, "s")))) +
                   BytesField(11, Ann("z", BytesField(11, Ann("w", VarintField(2, 1)))))),
      Ann("arr", BytesField(12, VarintField(4, 7)) +
                     BytesField(12, BytesField(11, Ann("k", VarintField(3, 9)))) +
                     BytesField(12, BytesField(12, VarintField(4, 3)))),
      Ann("nv", BytesField(8, nested_dict)),
      Ann("deep", deep),
  };
  std::string extra;
  for (const std::string& a : anns) extra += BytesField(4, a);
  std::string bytes = TrackDescriptor(7, 0, "t") + Event(1000, 7, 3, "ev", extra);
  auto l = LoadBytes(bytes, "annotations");
  ASSERT_TRUE(l->status.ok()) << l->status.message();
  std::vector<std::string> want = {
      "debug.a|debug.a|int|5|NULL",
      "debug.d.x|debug.d.x|int|1|NULL",
      "debug.d.y[0]|debug.d.y|int|2|NULL",
      "debug.d.y[1]|debug.d.y|string|NULL|s",
      "debug.d.z.w|debug.d.z.w|bool|1|NULL",
      "debug.arr[0]|debug.arr|int|7|NULL",
      "debug.arr[1].k|debug.arr.k|uint|9|NULL",
      "debug.arr[2][0]|debug.arr|int|3|NULL",
      "debug.nv.p|debug.nv.p|int|1|NULL",
      "debug.nv.q[0]|debug.nv.q|int|2|NULL",
      "debug.nv.q[1].r|debug.nv.q.r|string|NULL|str",
      "debug.deep.l1.l2.l3[0][0]|debug.deep.l1.l2.l3|int|42|NULL",
  };
  EXPECT_EQ(JoinedRows(l->tp,
                       "select key, flat_key, value_type, int_value, string_value from args "
                       "where key like 'debug.%' order by id"),
            want);
}

// An annotation that sets several things holds one, as upstream reads it: a
// dict, else an array, else one value (bool > uint > int > double > string >
// pointer > legacy JSON > nested value; the last of a repeated field). Rows
// from upstream on the same bytes.
TEST(HostileParse, DebugAnnotationWithSeveralValuesKeepsUpstreamsOne) {
  auto ann = [](const std::string& name, const std::string& body) {
    return BytesField(4, BytesField(10, name) + body);
  };
  auto dbl = [](double d) {
    std::string b(8, '\0');
    memcpy(b.data(), &d, 8);
    return Varint((5 << 3) | 1) + b;
  };
  std::string extra =
      ann("ia", VarintField(4, 1) + BytesField(12, VarintField(4, 2))) +
      ann("is", VarintField(4, 1) + BytesField(6, "s")) +
      ann("bi", VarintField(2, 1) + VarintField(4, 3)) +
      ann("ad", BytesField(12, VarintField(4, 2)) + BytesField(11, Ann("c", VarintField(4, 2)))) +
      ann("nvi", VarintField(4, 1) + BytesField(8, VarintField(5, 9))) +
      ann("ii", VarintField(4, 1) + VarintField(4, 2)) +
      ann("ui", VarintField(4, 1) + VarintField(3, 2)) + ann("sd", BytesField(6, "s") + dbl(2.5)) +
      ann("ps", BytesField(6, "s") + VarintField(7, 4096)) +
      ann("pn", BytesField(8, VarintField(5, 9)) + VarintField(7, 4096));
  auto l = LoadBytes(TrackDescriptor(7, 0, "t") + Event(1000, 7, 3, "ev", extra), "mixed");
  ASSERT_TRUE(l->status.ok()) << l->status.message();
  EXPECT_EQ(JoinedRows(l->tp,
                       "select key, value_type, coalesce(int_value, string_value, real_value) "
                       "from args where key like 'debug.%' order by id"),
            (std::vector<std::string>{"debug.ia[0]|int|2", "debug.is|int|1", "debug.bi|bool|1",
                                      "debug.ad.c|int|2", "debug.nvi|int|1", "debug.ii|int|2",
                                      "debug.ui|uint|2", "debug.sd|real|2.500000",
                                      "debug.ps|string|s", "debug.pn|pointer|4096"}));
}

// A chain with a leaf on every level writes depth^2 bytes of keys: the
// annotation stops at the key budget, says so, and counts a parser error.
TEST(HostileParse, DebugAnnotationKeyBudgetStopsQuadraticKeys) {
  // 12,000 levels of dict "kk" whose entries are an int "v" and the next
  // level: ~12,000 * 18 KB = 216 MB of keys without the budget.
  std::string inner = BytesField(10, "kk") + VarintField(4, 1);
  for (int i = 0; i < 12000; ++i)
    inner =
        BytesField(10, "kk") + BytesField(11, Ann("v", VarintField(4, 1))) + BytesField(11, inner);
  std::string bytes =
      TrackDescriptor(7, 0, "t") +
      Event(1000, 7, 3, "ev", BytesField(4, BytesField(10, "top") + BytesField(11, inner)));
  auto l = LoadBytes(bytes, "key-budget");
  ASSERT_TRUE(l->status.ok()) << l->status.message();
  EXPECT_EQ(l->Int("select count(*) from slice"), 1);
  int64_t rows = l->Int("select count(*) from args where key like 'debug.%'");
  EXPECT_GT(rows, 1000);
  EXPECT_LT(rows, 12000);
  EXPECT_EQ(l->Stat("track_event_parser_errors"), 1);
  EXPECT_TRUE(l->Warned("debug annotations")) << l->Warnings();
  EXPECT_TRUE(l->Warned("--max-annotation-key-mb")) << l->Warnings();
  // The limit is the load's (LoadLimits, fathom-cli --max-annotation-key-mb):
  // a smaller budget keeps fewer rows, a larger one all of them.
  LoadLimits small;
  small.max_annotation_key_bytes = 1 << 20;
  auto s = LoadBytes(bytes, "key-budget-small", small);
  ASSERT_TRUE(s->status.ok()) << s->status.message();
  EXPECT_LT(s->Int("select count(*) from args where key like 'debug.%'"), rows);
  LoadLimits large;
  large.max_annotation_key_bytes = 1ull << 30;
  auto g = LoadBytes(bytes, "key-budget-large", large);
  ASSERT_TRUE(g->status.ok()) << g->status.message();
  EXPECT_EQ(g->Stat("track_event_parser_errors"), 0);
  EXPECT_GT(g->Int("select count(*) from args where key like 'debug.%'"), 12000);
}

// ---- 3. slices nested deeper than 512 --------------------------------------

// Upstream: `select count(*), max(depth), min(ts), max(ts), sum(dur) from
// slice` = 512, 511, 1000, 1511, -512; slice_max_depth_exceeded 88.
TEST(HostileParse, SliceDepth600Reproducer) {
  auto l = LoadReproducer("slice_depth_600.pftrace");
  ASSERT_TRUE(l->status.ok()) << l->status.message();
  EXPECT_EQ(
      QueryRowInts(l->tp, "select count(*), max(depth), min(ts), max(ts), sum(dur) from slice"),
      (std::vector<int64_t>{512, 511, 1000, 1511, -512}));
  EXPECT_EQ(l->Stat("slice_max_depth_exceeded"), 88);
  EXPECT_TRUE(l->Warned("slice_max_depth_exceeded")) << l->Warnings();
  EXPECT_TRUE(l->Warned("ts 1512")) << l->Warnings();  // the first slice dropped
}

// 600 begins then 600 unnamed ends: upstream closes the kept slices from the
// innermost (s511 ends at 2000, s0 at 2511). The 88 ends left with nothing
// open are ignored without a stat, as upstream does.
TEST(HostileParse, SliceDepthWithEndsMatchesUpstream) {
  std::string bytes = TrackDescriptor(7, 0, "deep");
  for (int i = 0; i < 600; ++i) bytes += Event(1000 + i, 7, 1, "s" + std::to_string(i));
  for (int i = 0; i < 600; ++i) bytes += Event(2000 + i, 7, 2, "");
  auto l = LoadBytes(bytes, "deep-ends");
  ASSERT_TRUE(l->status.ok()) << l->status.message();
  EXPECT_EQ(QueryRowInts(l->tp, "select count(*), max(depth), sum(dur), sum(dur = -1) from slice"),
            (std::vector<int64_t>{512, 511, 512000, 0}));
  EXPECT_EQ(
      JoinedRows(l->tp,
                 "select name, ts, dur from slice where depth in (0, 1, 510, 511) "
                 "order by depth"),
      (std::vector<std::string>{"s0|1000|1511", "s1|1001|1509", "s510|1510|491", "s511|1511|489"}));
  EXPECT_EQ(l->Stat("slice_max_depth_exceeded"), 88);
  EXPECT_EQ(l->Stat("misplaced_end_event"), 0);
}

// ---- 4. clock snapshots ------------------------------------------------------

// 2,000 snapshots linking clocks 200..2200 in a chain, then 2,000 instants in
// clock 2200, each after a snapshot. No snapshot holds BOOTTIME: upstream
// drops all 2,000 (clock_sync_failure_no_path 2000), no slice, trace_bounds
// 0, 0. Fathom counts them as clock_sync_failure.
TEST(HostileParse, ClockChain2000Reproducer) {
  auto l = LoadReproducer("clock_chain_2000.pftrace");
  ASSERT_TRUE(l->status.ok()) << l->status.message();
  EXPECT_EQ(l->Int("select count(*) from slice"), 0);
  EXPECT_EQ(l->Stat("clock_sync_failure"), 2000);
  EXPECT_EQ(QueryRowInts(l->tp, "select start_ts, end_ts from trace_bounds"),
            (std::vector<int64_t>{0, 0}));
}

std::string ClockSnapshot(const std::vector<std::pair<uint32_t, int64_t>>& clocks) {
  std::string s;
  for (const auto& [id, ts] : clocks)
    s += BytesField(1, VarintField(1, id) + VarintField(2, static_cast<uint64_t>(ts)));
  return Packet(VarintField(10, 1) + BytesField(6, s));
}

// BOOTTIME linked to clock 200, then 200 -> 201 -> ... -> 200+N; one instant
// in clock 200+N. Upstream converts across at most 4 links: N = 1, 2, 3 give
// the slice at 10017, 5937, 1767; N >= 4 drops it with one no-path failure.
TEST(HostileParse, ClockPathsLongerThanFourLinksAreDropped) {
  const std::vector<std::pair<int, int64_t>> want = {{1, 10017}, {2, 5937}, {3, 1767},
                                                     {4, -1},    {5, -1},   {8, -1}};
  for (const auto& [n, ts] : want) {
    SCOPED_TRACE("chain of " + std::to_string(n));
    std::string bytes = ClockSnapshot({{6, 10000}, {200, 1000}});
    for (int i = 1; i <= n; ++i)
      bytes += ClockSnapshot({{200 + i - 1, 1000 + i * 10}, {200 + i, 5000 + i * 100}});
    std::string ev = BytesField(11, VarintField(9, 3) + BytesField(23, "i"));
    bytes += Packet(VarintField(8, 5000 + n * 100 + 7) + VarintField(10, 1) +
                    VarintField(58, 200 + n) + ev);
    auto l = LoadBytes(bytes, "clock-chain");
    ASSERT_TRUE(l->status.ok()) << l->status.message();
    if (ts >= 0) {
      EXPECT_EQ(l->Int("select ts from slice"), ts);
      EXPECT_EQ(l->Stat("clock_sync_failure"), 0);
    } else {
      EXPECT_EQ(l->Int("select count(*) from slice"), 0);
      EXPECT_EQ(l->Stat("clock_sync_failure"), 1);
    }
  }
}

// ---- 5. silent loss ----------------------------------------------------------

// The catapult page's JavaScript string holds four event lines; one has its
// "[000]" damaged. Upstream does not read this page format (it loads
// nothing); on the same lines as text it keeps VSYNC 1, VSYNC 0, iq 1 and
// counts systrace_parse_failure (see SystraceTextDropsAreCounted).
TEST(HostileParse, SystraceHtmlLineDropReproducer) {
  auto l = LoadReproducer("silent_systrace_line_drop.html");
  ASSERT_TRUE(l->status.ok()) << l->status.message();
  EXPECT_EQ(JoinedRows(l->tp,
                       "select c.ts, t.name, cast(c.value as int) from counter c join "
                       "counter_track t on c.track_id = t.id order by c.ts"),
            (std::vector<std::string>{"50260929925000|VSYNC|1", "50260946573000|VSYNC|0",
                                      "50262538578000|iq|1"}));
}

// The tokenizer itself: with a context, a line that is not an event is
// counted and reported with its byte offset (the page markup is not).
TEST(HostileParse, SystraceHtmlDropIsCountedWithItsOffset) {
  std::string page = ReadFileBytes(Reliability("silent_systrace_line_drop.html"));
  ASSERT_FALSE(page.empty());
  TraceContext ctx;
  Sorter sorter;
  SystraceTextTokenizer tok(&sorter, &ctx);
  auto blob = TraceBlob::Allocate(page.size());
  memcpy(blob->data.get(), page.data(), page.size());
  blob->size = page.size();
  auto rest = tok.Feed(std::move(blob), 0);
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(tok.units(), 3u);
  EXPECT_EQ(tok.malformed_lines(), 1u);
  EXPECT_EQ(ctx.storage->stats.Get(Stat::kSystraceParseFailure), 1);
  size_t bad = page.find("Binder_1-340");
  ASSERT_NE(bad, std::string::npos);
  size_t line_start = page.rfind('\n', bad) + 1;
  std::vector<std::string> lines = ctx.problems.Lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("byte offset " + std::to_string(line_start)), std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("\\xd5000]"), std::string::npos) << lines[0];  // escaped, not raw
}

// The same lines as plain text, plus a blank-but-not-empty line: upstream
// keeps 3 counters and counts systrace_parse_failure 2 (the damaged line and
// the blank one); empty lines and comments are not failures.
TEST(HostileParse, SystraceTextDropsAreCounted) {
  std::string text =
      "# tracer: nop\n#\n"
      "     hwc_eventmon-336   [000] 50260.929925: 0: C|124|VSYNC|1\n"
      "         Binder_1-340   \xd5"
      "000] 50260.935656: 0: C|124|StatusBar|1\n"
      "\n"
      "     hwc_eventmon-336   [000] 50260.946573: 0: C|124|VSYNC|0\n"
      "      InputReader-419   [000] 50262.538578: 0: C|360|iq|1\n"
      "         \n";
  TraceContext ctx;
  Sorter sorter;
  SystraceTextTokenizer tok(&sorter, &ctx);
  auto blob = TraceBlob::Allocate(text.size());
  memcpy(blob->data.get(), text.data(), text.size());
  blob->size = text.size();
  ASSERT_TRUE(tok.Feed(std::move(blob), 0).ok());
  EXPECT_EQ(tok.units(), 3u);
  EXPECT_EQ(ctx.storage->stats.Get(Stat::kSystraceParseFailure), 2);
  EXPECT_EQ(ctx.problems.Lines().size(), 2u);
}

// Real systrace files have no failing lines: upstream's stats show no
// systrace_parse_failure for systrace_android.txt or systrace_trivial.html.
TEST(HostileParse, RealSystraceHasNoParseFailures) {
  std::string text = ReadFileBytes(TestData("systrace_android.txt"));
  std::string page = ReadFileBytes(TestData("systrace_trivial.html"));
  ASSERT_FALSE(text.empty());
  ASSERT_FALSE(page.empty());
  // The page is catapult's: the events are in a JavaScript string, fed whole
  // as the loader does.
  std::vector<std::string> inputs = {text, page};
  for (const std::string& input : inputs) {
    TraceContext ctx;
    Sorter sorter;
    SystraceTextTokenizer tok(&sorter, &ctx);
    auto blob = TraceBlob::Allocate(input.size());
    memcpy(blob->data.get(), input.data(), input.size());
    blob->size = input.size();
    auto rest = tok.Feed(std::move(blob), 0);
    ASSERT_TRUE(rest.ok());
    tok.FinishLastLine(std::string_view(input).substr(input.size() - *rest));
    EXPECT_GT(tok.units(), 0u);
    EXPECT_EQ(ctx.storage->stats.Get(Stat::kSystraceParseFailure), 0);
    EXPECT_TRUE(ctx.problems.Lines().empty());
  }
}

// A mutated trace whose ProfilePacket sits in a top-level field 37 instead of
// `packet`: upstream ignores non-packet fields of Trace, so it loads the
// process tree only (heap_profile_allocation 0, no stat).
TEST(HostileParse, HeapprofdOutsideAPacketLoadsLikeUpstream) {
  auto l = LoadReproducer("silent_heapprofd_loss.pb");
  ASSERT_TRUE(l->status.ok()) << l->status.message();
  EXPECT_EQ(l->Int("select count(*) from heap_profile_allocation"), 0);
  EXPECT_EQ(l->Int("select count(*) from stack_profile_frame"), 0);
}

// ---- 6. JSON stack frames -----------------------------------------------------

// stackFrames parent chains are walked without recursion: a 100,000-frame
// chain and a parent loop both load. (Upstream does not import "P" samples;
// this is Fathom's own reading, so only its shape is checked: the chain is
// whole, and each frame of the loop appears once.)
TEST(HostileParse, JsonStackFrameChainsAndLoops) {
  std::string frames;
  for (int i = 1; i <= 100000; ++i) {
    if (i > 1) frames += ",";
    frames += "\"" + std::to_string(i) + "\":{\"name\":\"f" + std::to_string(i) + "\"";
    if (i > 1) frames += ",\"parent\":\"" + std::to_string(i - 1) + "\"";
    frames += "}";
  }
  frames += ",\"a\":{\"name\":\"a\",\"parent\":\"b\"},\"b\":{\"name\":\"b\",\"parent\":\"a\"}";
  std::string json =
      "{\"traceEvents\":[{\"ph\":\"P\",\"name\":\"deep\",\"pid\":1,\"tid\":1,\"ts\":1,"
      "\"sf\":\"100000\"},{\"ph\":\"P\",\"name\":\"loop\",\"pid\":1,\"tid\":1,\"ts\":5,"
      "\"sf\":\"a\"}],\"stackFrames\":{" +
      frames + "}}";
  auto l = LoadBytes(json, "frames.json");
  ASSERT_TRUE(l->status.ok()) << l->status.message();
  EXPECT_EQ(l->Int("select count(*) from perf_sample where callsite_id is not null"), 2);
  EXPECT_EQ(l->Int("select count(*) from stack_profile_callsite"), 100002);
  EXPECT_EQ(l->Int("select max(depth) from stack_profile_callsite"), 99999);
}

}  // namespace
}  // namespace fathom
