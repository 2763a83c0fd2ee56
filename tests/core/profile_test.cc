// Profiler and heap-graph import checked against the real test traces. Every
// expected number is derived here from the packets decoded with libprotobuf's
// generated classes (never with core's decoder or Fathom's tables).
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/trace_processor.h"
#include "perfetto/trace/trace.pb.h"
#include "tests/core/trace_test_util.h"

namespace fathom {
namespace {

using namespace fathom::testing;
using perfetto::protos::Trace;
using perfetto::protos::TracePacket;

Trace DecodeTrace(const std::string& name) {
  Trace trace;
  EXPECT_TRUE(trace.ParseFromString(ReadFileBytes(TestData(name)))) << name;
  return trace;
}

std::unique_ptr<TraceProcessor> Load(const std::string& name) {
  auto tp = std::make_unique<TraceProcessor>();
  Status st = tp->LoadFile(TestData(name).string());
  EXPECT_TRUE(st.ok()) << st.message();
  return tp;
}

// First column of every row, as int (NULL -> -1).
std::vector<int64_t> QueryInts(TraceProcessor& tp, const std::string& sql) {
  std::vector<int64_t> out;
  auto it = tp.Query(sql);
  if (!it->NextResultSet()) {
    ADD_FAILURE() << sql << ": " << it->status().message();
    return out;
  }
  while (it->NextRow()) {
    SqlValue v = it->Get(0);
    out.push_back(v.type == SqlValue::kInt ? v.i : -1);
  }
  EXPECT_TRUE(it->status().ok()) << it->status().message();
  return out;
}

int64_t QueryInt(TraceProcessor& tp, const std::string& sql) {
  auto v = QueryInts(tp, sql);
  return v.empty() ? -1 : v[0];
}

std::vector<std::string> QueryStrings(TraceProcessor& tp, const std::string& sql) {
  std::vector<std::string> out;
  auto it = tp.Query(sql);
  if (!it->NextResultSet()) {
    ADD_FAILURE() << sql << ": " << it->status().message();
    return out;
  }
  while (it->NextRow()) {
    SqlValue v = it->Get(0);
    out.push_back(v.type == SqlValue::kString ? std::string(v.s) : "<null>");
  }
  return out;
}

// ---- heapprofd, Android 10 inline tables ----------------------------------

TEST(ProfileTest, HeapprofdContinuousLegacy) {
  Trace trace = DecodeTrace("heapprofd_continuous_legacy.pb");
  // Cumulative counters differenced per (pid, callstack): expected rows.
  std::map<std::pair<uint64_t, uint64_t>, std::pair<uint64_t, uint64_t>> prev;
  int64_t rows = 0, total_count = 0, total_size = 0, samples = 0;
  std::set<uint64_t> callstacks, frames;
  for (const TracePacket& p : trace.packet()) {
    if (!p.has_profile_packet()) continue;
    for (const auto& f : p.profile_packet().frames()) frames.insert(f.iid());
    for (const auto& dump : p.profile_packet().process_dumps()) {
      for (const auto& s : dump.samples()) {
        ++samples;
        callstacks.insert(s.callstack_id());
        auto& pr = prev[{dump.pid(), s.callstack_id()}];
        int64_t dc = static_cast<int64_t>(s.alloc_count() - pr.first);
        int64_t ds = static_cast<int64_t>(s.self_allocated() - pr.second);
        if (dc || ds) {
          ++rows;
          total_count += dc;
          total_size += ds;
        }
        // This trace frees nothing.
        EXPECT_EQ(s.free_count(), 0u);
        pr = {s.alloc_count(), s.self_allocated()};
      }
    }
  }
  ASSERT_GT(samples, 0);
  auto tp = Load("heapprofd_continuous_legacy.pb");
  EXPECT_EQ(QueryInt(*tp, "select count(*) from heap_profile_allocation"), rows);
  EXPECT_EQ(QueryInt(*tp, "select sum(count) from heap_profile_allocation"), total_count);
  EXPECT_EQ(QueryInt(*tp, "select sum(size) from heap_profile_allocation"), total_size);
  EXPECT_EQ(QueryInt(*tp, "select count(distinct callsite_id) from heap_profile_allocation"),
            static_cast<int64_t>(callstacks.size()));
  EXPECT_EQ(QueryInt(*tp, "select count(*) from stack_profile_frame"),
            static_cast<int64_t>(frames.size()));
  // Both dumps are of pid 2; the allocation rows name its process.
  EXPECT_EQ(QueryInt(*tp,
                     "select count(*) from heap_profile_allocation a join process p using(upid) "
                     "where p.pid = 2"),
            rows);
  // Inline strings resolve: the frame function and the mapping path.
  EXPECT_EQ(QueryStrings(*tp, "select distinct name from stack_profile_frame"),
            std::vector<std::string>{"f1"});
  EXPECT_EQ(QueryStrings(*tp, "select name from stack_profile_mapping"),
            std::vector<std::string>{"/liblib.so"});
  // The native flamegraph sums to the same totals.
  EXPECT_EQ(
      QueryInt(*tp,
               "select sum(cumulative_size) from experimental_flamegraph('native', "
               "(select max(ts) from heap_profile_allocation), NULL, (select upid from process "
               "where pid = 2), NULL, NULL) "
               "where depth = 0"),
      total_size);
}

// ---- Java heap graph ---------------------------------------------------------

TEST(ProfileTest, JavaHeapGraphLegacy) {
  Trace trace = DecodeTrace("java_heap_graph_legacy.pb");
  std::map<uint64_t, std::vector<uint64_t>> edges;  // object -> referenced (non-null)
  std::set<uint64_t> objects, roots, types;
  int64_t references = 0, total_self_size = 0;
  for (const TracePacket& p : trace.packet()) {
    if (!p.has_heap_graph()) continue;
    for (const auto& o : p.heap_graph().objects()) {
      objects.insert(o.id());
      total_self_size += static_cast<int64_t>(o.self_size());
      for (uint64_t r : o.reference_object_id()) {
        ++references;
        if (r) edges[o.id()].push_back(r);
      }
    }
    for (const auto& r : p.heap_graph().roots())
      for (uint64_t id : r.object_ids()) roots.insert(id);
    for (const auto& t : p.heap_graph().types()) types.insert(t.id());
  }
  // Reachable = closure of the roots over the references.
  std::set<uint64_t> reachable(roots.begin(), roots.end());
  std::deque<uint64_t> queue(roots.begin(), roots.end());
  while (!queue.empty()) {
    uint64_t n = queue.front();
    queue.pop_front();
    for (uint64_t c : edges[n])
      if (reachable.insert(c).second) queue.push_back(c);
  }
  int64_t reachable_size = 0;
  for (const TracePacket& p : trace.packet())
    if (p.has_heap_graph())
      for (const auto& o : p.heap_graph().objects())
        if (reachable.count(o.id())) reachable_size += static_cast<int64_t>(o.self_size());

  auto tp = Load("java_heap_graph_legacy.pb");
  EXPECT_EQ(QueryInt(*tp, "select count(*) from heap_graph_object"),
            static_cast<int64_t>(objects.size()));
  EXPECT_EQ(QueryInt(*tp, "select count(*) from heap_graph_class"),
            static_cast<int64_t>(types.size()));
  EXPECT_EQ(QueryInt(*tp, "select count(*) from heap_graph_reference"), references);
  EXPECT_EQ(QueryInt(*tp, "select sum(self_size) from heap_graph_object"), total_self_size);
  EXPECT_EQ(QueryInt(*tp, "select count(*) from heap_graph_object where reachable"),
            static_cast<int64_t>(reachable.size()));
  EXPECT_EQ(QueryInt(*tp, "select count(*) from heap_graph_object where root_type is not null"),
            static_cast<int64_t>(roots.size()));
  // The graph flamegraph covers exactly the reachable objects.
  const std::string fg =
      "from experimental_flamegraph('graph', (select max(graph_sample_ts) from "
      "heap_graph_object), NULL, (select max(upid) from heap_graph_object), NULL, NULL)";
  EXPECT_EQ(QueryInt(*tp, "select sum(count) " + fg), static_cast<int64_t>(reachable.size()));
  EXPECT_EQ(QueryInt(*tp, "select sum(size) " + fg), reachable_size);
  EXPECT_EQ(QueryInt(*tp, "select sum(cumulative_size) " + fg + " where depth = 0"),
            reachable_size);
  // The deobfuscation mapping renames obfuscated classes.
  std::map<std::string, std::string> mapping;
  for (const TracePacket& p : trace.packet())
    for (const auto& c : p.deobfuscation_mapping().obfuscated_classes())
      mapping[c.obfuscated_name()] = c.deobfuscated_name();
  ASSERT_FALSE(mapping.empty());
  for (const auto& [from, to] : mapping) {
    EXPECT_EQ(QueryStrings(*tp, "select deobfuscated_name from heap_graph_class where name = '" +
                                    from + "'"),
              std::vector<std::string>{to});
  }
}

// ---- perf CPU samples --------------------------------------------------------

TEST(ProfileTest, PerfSamples) {
  Trace trace = DecodeTrace("linux_compact_sched_perf_samples.pftrace");
  struct Interned {
    std::map<uint64_t, std::string> function_names;
    std::map<uint64_t, uint64_t> frame_function;
    std::map<uint64_t, std::vector<uint64_t>> callstacks;
  };
  std::map<uint32_t, Interned> by_sequence;
  int64_t samples = 0, with_callstack = 0;
  std::map<uint32_t, int64_t> per_cpu;
  int64_t without_cpu = 0;  // cpu is optional: NULL in perf_sample
  std::map<std::string, int64_t> leaf_names;
  for (const TracePacket& p : trace.packet()) {
    Interned& in = by_sequence[p.trusted_packet_sequence_id()];
    if (p.incremental_state_cleared() ||
        (p.sequence_flags() & TracePacket::SEQ_INCREMENTAL_STATE_CLEARED))
      in = Interned{};
    for (const auto& s : p.interned_data().function_names()) in.function_names[s.iid()] = s.str();
    for (const auto& f : p.interned_data().frames())
      in.frame_function[f.iid()] = f.function_name_id();
    for (const auto& c : p.interned_data().callstacks())
      in.callstacks[c.iid()].assign(c.frame_ids().begin(), c.frame_ids().end());
    if (!p.has_perf_sample()) continue;
    const auto& s = p.perf_sample();
    if (s.has_kernel_records_lost() || s.has_sample_skipped_reason() || s.has_producer_event())
      continue;
    ++samples;
    if (s.has_cpu())
      ++per_cpu[s.cpu()];
    else
      ++without_cpu;
    if (s.callstack_iid()) {
      ++with_callstack;
      const auto& frames = in.callstacks[s.callstack_iid()];
      if (!frames.empty()) ++leaf_names[in.function_names[in.frame_function[frames.back()]]];
    }
  }
  EXPECT_EQ(samples, 355);

  auto tp = Load("linux_compact_sched_perf_samples.pftrace");
  EXPECT_EQ(QueryInt(*tp, "select count(*) from perf_sample"), samples);
  EXPECT_EQ(QueryInt(*tp, "select count(*) from perf_sample where callsite_id is not null"),
            with_callstack);
  for (const auto& [cpu, n] : per_cpu)
    EXPECT_EQ(QueryInt(*tp, "select count(*) from perf_sample where cpu = " + std::to_string(cpu)),
              n)
        << "cpu " << cpu;
  EXPECT_EQ(QueryInt(*tp, "select count(*) from perf_sample where cpu is null"), without_cpu);
  // The leaf frame of every sample's callsite names the same function.
  std::map<std::string, int64_t> got;
  for (const std::string& name : QueryStrings(
           *tp,
           "select f.name from perf_sample s join stack_profile_callsite c on s.callsite_id = c.id "
           "join stack_profile_frame f on c.frame_id = f.id"))
    ++got[name];
  EXPECT_EQ(got, leaf_names);
  // Callsite depth is the distance from the outermost frame.
  EXPECT_EQ(QueryInt(*tp,
                     "select count(*) from stack_profile_callsite c join stack_profile_callsite p "
                     "on c.parent_id = p.id where c.depth != p.depth + 1"),
            0);
}

}  // namespace
}  // namespace fathom
