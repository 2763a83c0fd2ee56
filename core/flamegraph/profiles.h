// The profiles a trace holds ("diamonds" in the UI) and the builders that
// turn one into a Flamegraph. Everything here reads TraceStorage through a
// const reference and never mutates it, so the GUI may build flamegraphs on a
// worker thread while other threads read the same storage.
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "core/flamegraph/flamegraph.h"

namespace fathom {

class TraceStorage;

enum class ProfileKind : uint8_t {
  kNative,       // heapprofd dump (heap_profile_allocation, any heap but com.android.art)
  kJavaGraph,    // ART heap graph (heap_graph_object/reference)
  kJavaSamples,  // Java allocation samples (heap_profile_allocation, heap com.android.art)
  kCpu,          // CPU stack samples (perf_sample, cpu_profile_stack_sample)
  kAggregate,    // one sample type of an aggregate profile (pprof), no time, no process
};

enum class FlamegraphView : uint8_t {
  kUnreleasedSize,   // native
  kTotalSize,        // native, java samples
  kUnreleasedCount,  // native
  kTotalCount,       // native, java samples
  kObjectSize,       // java graph, shortest-path tree
  kObjectCount,      // java graph, shortest-path tree
  kRetainedSize,     // java graph, dominator tree
  kSamples,          // cpu
  kValue,            // aggregate: the sample type's value (unit in ProfileDump)
};

// CLI spellings: "native", "java-graph", "java-samples", "cpu", "pprof" and
// "unreleased-size", "total-size", ..., "retained-size", "samples", "value".
std::string_view KindName(ProfileKind kind);
std::optional<ProfileKind> ParseKind(std::string_view s);
std::string_view ViewName(FlamegraphView view);
std::optional<FlamegraphView> ParseView(std::string_view s);
// The views that make sense for a kind; the first is the default.
std::vector<FlamegraphView> ViewsOf(ProfileKind kind);
inline FlamegraphView DefaultView(ProfileKind kind) { return ViewsOf(kind).front(); }
bool ViewFits(ProfileKind kind, FlamegraphView view);
// The node value a view shows (Flamegraph::Total, Search, Prune...).
Metric MetricOf(FlamegraphView view);
// "bytes", "count" or "samples": the unit of a view's values.
bool ViewIsBytes(FlamegraphView view);

// One dump / sample set of one process.
struct ProfileDump {
  ProfileKind kind = ProfileKind::kNative;
  uint32_t upid = 0;
  int64_t pid = 0;
  std::string process_name;  // "" when unknown
  // cpu / java samples: the set of every process together (upid, pid 0).
  bool all_processes = false;
  // native, java graph: the dump's timestamp. java samples, cpu: first and
  // last sample (ts == first); a request covering them uses [ts, end_ts + 1).
  int64_t ts = 0;
  int64_t end_ts = 0;
  std::string heap;  // native: heap name; java samples: "com.android.art"; else ""
  // aggregate: the __intrinsic_aggregate_profile row, its sample type and
  // unit ("alloc_space", "bytes"), and whether it is the file's preferred one.
  // process_name holds the profile's scope (file); all_processes is true.
  uint32_t aggregate_profile_id = 0;
  std::string sample_type, sample_unit;
  bool default_sample_type = false;
  // Totals of every view in ViewsOf(kind), same order.
  std::vector<std::pair<FlamegraphView, int64_t>> totals;
  int64_t Total(FlamegraphView view) const;
};

// Every dump, ordered by (kind, upid, ts, heap).
std::vector<ProfileDump> ListProfiles(const TraceStorage& storage);
// Only those from heap_profile_allocation (native dumps per heap, and the ART heap's Java
// allocation samples), in the same order: what a heap-dump diamond needs, without the
// heap graphs and CPU samples.
std::vector<ProfileDump> ListHeapprofdProfiles(const TraceStorage& storage);
// The largest dump (by its default view) of `kind` (any kind when nullopt:
// native first, then java graph, java samples, cpu) and optional process.
std::optional<ProfileDump> PickLargestProfile(const std::vector<ProfileDump>& dumps,
                                              std::optional<ProfileKind> kind,
                                              std::optional<uint32_t> upid);

struct FlamegraphRequest {
  ProfileKind kind = ProfileKind::kNative;
  FlamegraphView view = FlamegraphView::kUnreleasedSize;  // kRetainedSize = dominator tree
  // native, java graph: required. java samples, cpu: nullopt = every process.
  std::optional<uint32_t> upid;
  // native, java graph: the dump (native includes everything up to ts).
  int64_t ts = 0;
  // native: only this heap (nullopt = every heap but com.android.art).
  std::optional<std::string> heap;
  // java samples, cpu: samples with start_ts <= ts < end_ts.
  int64_t start_ts = std::numeric_limits<int64_t>::min();
  int64_t end_ts = std::numeric_limits<int64_t>::max();
  std::optional<uint32_t> cpu;   // cpu only
  std::optional<uint32_t> utid;  // cpu only
  std::optional<uint32_t> aggregate_profile;  // aggregate only: required
  // Checked now and then by slow builders (heap graphs); when it becomes true
  // the build stops and returns an error.
  const std::atomic<bool>* cancel = nullptr;
};

// The finalized tree for a request (siblings ordered by the view's metric).
Result<Flamegraph> BuildFlamegraph(const TraceStorage& storage, const FlamegraphRequest& request);
// The request that shows `dump` in `view` (DefaultView when nullopt).
FlamegraphRequest RequestFor(const ProfileDump& dump, std::optional<FlamegraphView> view);

// ---- individual builders (unfinalized trees: call Finalize) ----------------

// Which dumps a native flamegraph covers: timestamps compared with each bound.
struct TsFilter {
  std::optional<int64_t> eq, lt, le, gt, ge;
  bool Matches(int64_t ts) const {
    return (!eq || ts == *eq) && (!lt || ts < *lt) && (!le || ts <= *le) && (!gt || ts > *gt) &&
           (!ge || ts >= *ge);
  }
};
// heap_profile_allocation rows of `upids` passing `ts` (and `heap` if given;
// `exclude_heap` drops one heap). Also used by experimental_flamegraph.
Flamegraph BuildNativeFlamegraph(const TraceStorage& storage, const std::vector<uint32_t>& upids,
                                 const TsFilter& ts, std::optional<std::string_view> heap = {},
                                 std::optional<std::string_view> exclude_heap = {});
// Java heap graph of (upid, ts): each object hangs under the object that
// first reaches it on a shortest path from a GC root, merged by class name.
Result<Flamegraph> BuildHeapGraphFlamegraph(const TraceStorage& storage, uint32_t upid, int64_t ts,
                                            const std::atomic<bool>* cancel = nullptr);
// The dominator tree of the same graph (a virtual root above every GC root),
// merged by class-name path: a node's cumulative size is retained bytes.
Result<Flamegraph> BuildHeapGraphDominatorFlamegraph(const TraceStorage& storage, uint32_t upid,
                                                     int64_t ts,
                                                     const std::atomic<bool>* cancel = nullptr);
// perf_sample and cpu_profile_stack_sample rows in [start_ts, end_ts),
// optionally one process/thread/CPU (a CPU filter drops
// cpu_profile_stack_sample rows: they carry no CPU).
Flamegraph BuildCpuFlamegraph(const TraceStorage& storage, const FlamegraphRequest& request);
// __intrinsic_aggregate_sample rows of one aggregate profile: a node's size
// (and alloc_size) is the summed value, its count (alloc_count) the rows.
Flamegraph BuildAggregateFlamegraph(const TraceStorage& storage, uint32_t aggregate_profile);
// True when an aggregate dump's values are bytes (unit "bytes").
bool AggregateIsBytes(const ProfileDump& dump);

}  // namespace fathom
