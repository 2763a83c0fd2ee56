#include "core/flamegraph/profiles.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "core/flamegraph/demangle.h"
#include "core/storage/trace_storage.h"

namespace fathom {
namespace {

constexpr std::string_view kArtHeap = "com.android.art";

struct KindInfo {
  ProfileKind kind;
  std::string_view name;
};
constexpr KindInfo kKinds[] = {{ProfileKind::kNative, "native"},
                               {ProfileKind::kJavaGraph, "java-graph"},
                               {ProfileKind::kJavaSamples, "java-samples"},
                               {ProfileKind::kCpu, "cpu"},
                               {ProfileKind::kAggregate, "pprof"}};
struct ViewInfo {
  FlamegraphView view;
  std::string_view name;
  Metric metric;
  bool bytes;
};
constexpr ViewInfo kViews[] = {
    {FlamegraphView::kUnreleasedSize, "unreleased-size", Metric::kSize, true},
    {FlamegraphView::kTotalSize, "total-size", Metric::kAllocSize, true},
    {FlamegraphView::kUnreleasedCount, "unreleased-count", Metric::kCount, false},
    {FlamegraphView::kTotalCount, "total-count", Metric::kAllocCount, false},
    {FlamegraphView::kObjectSize, "object-size", Metric::kSize, true},
    {FlamegraphView::kObjectCount, "object-count", Metric::kCount, false},
    {FlamegraphView::kRetainedSize, "retained-size", Metric::kSize, true},
    {FlamegraphView::kSamples, "samples", Metric::kCount, false},
    {FlamegraphView::kValue, "value", Metric::kSize, false},
};

const ViewInfo& Info(FlamegraphView v) { return kViews[static_cast<int>(v)]; }

std::string ProcessName(const TraceStorage& s, uint32_t upid) {
  if (upid >= s.process.row_count()) return {};
  StringId n = s.process.name[upid];
  return n == kNullStringId ? std::string() : std::string(s.GetString(n));
}
int64_t ProcessPid(const TraceStorage& s, uint32_t upid) {
  return upid < s.process.row_count() ? s.process.pid[upid] : 0;
}

// Frame and library names copied out of the storage once per frame.
class FrameNames {
 public:
  FrameNames(const TraceStorage& s, Flamegraph* fg)
      : s_(s),
        fg_(fg),
        frame_(s.profile.stack_profile_frame.row_count(), kUnset),
        map_(s.profile.stack_profile_mapping.row_count(), kUnset) {}
  FgStringId Name(uint32_t frame) {
    if (frame_[frame] != kUnset) return frame_[frame];
    const auto& frames = s_.profile.stack_profile_frame;
    StringId n = frames.deobfuscated_name[frame] != kNullStringId ? frames.deobfuscated_name[frame]
                                                                  : SymbolName(frame);
    if (n == kNullStringId) n = frames.name[frame];
    if (n == kNullStringId) return frame_[frame] = fg_->Intern("[unknown]");
    return frame_[frame] = fg_->Intern(Demangle(s_.GetString(n)));
  }
  FgStringId Map(uint32_t frame) {
    uint32_t m = s_.profile.stack_profile_frame.mapping[frame];
    if (m >= map_.size()) return kFgNoString;
    if (map_[m] != kUnset) return map_[m];
    StringId n = s_.profile.stack_profile_mapping.name[m];
    return map_[m] = n == kNullStringId ? kFgNoString : fg_->Intern(s_.GetString(n));
  }

 private:
  // Offline symbols (ModuleSymbols, e.g. from `fathom-cli symbolize`): a set's
  // rows are consecutive and its id is its first row; the last row is the
  // function the frame is in (the earlier ones are inlined into it).
  StringId SymbolName(uint32_t frame) const {
    const auto& symbols = s_.profile.stack_profile_symbol;
    std::optional<uint32_t> set = s_.profile.stack_profile_frame.symbol_set_id.Get(frame);
    if (!set || *set >= symbols.row_count()) return kNullStringId;
    uint32_t row = *set;
    while (row + 1 < symbols.row_count() && symbols.symbol_set_id[row + 1] == *set) ++row;
    return symbols.name[row];
  }
  static constexpr FgStringId kUnset = ~FgStringId{0};
  const TraceStorage& s_;
  Flamegraph* fg_;
  std::vector<FgStringId> frame_, map_;
};

// Maps callsites to flamegraph nodes, creating the path on first use.
class CallsiteNodes {
 public:
  CallsiteNodes(const TraceStorage& s, Flamegraph* fg)
      : s_(s), fg_(fg), names_(s, fg), node_(s.profile.stack_profile_callsite.row_count(), kNone) {}
  // nullopt for a dangling callsite id.
  std::optional<uint32_t> Node(uint32_t leaf) {
    const auto& callsites = s_.profile.stack_profile_callsite;
    if (leaf >= node_.size()) return std::nullopt;
    if (node_[leaf] != kNone) return node_[leaf];
    // Walk up to the first callsite that already has a node. The length
    // bound stops a cycle in parent ids (bad input) from looping forever.
    path_.clear();
    std::optional<uint32_t> cs = leaf;
    while (cs && *cs < node_.size() && node_[*cs] == kNone && path_.size() <= node_.size()) {
      path_.push_back(*cs);
      cs = callsites.parent_id.Get(*cs);
    }
    if (path_.size() > node_.size()) return std::nullopt;
    std::optional<uint32_t> parent;
    if (cs && *cs < node_.size()) parent = node_[*cs];
    const uint32_t frame_rows = s_.profile.stack_profile_frame.row_count();
    for (auto it = path_.rbegin(); it != path_.rend(); ++it) {
      uint32_t frame = callsites.frame_id[*it];
      if (frame >= frame_rows)
        parent = fg_->Child(parent, fg_->Intern("[unknown]"), kFgNoString);
      else
        parent = fg_->Child(parent, names_.Name(frame), names_.Map(frame));
      node_[*it] = *parent;
    }
    return node_[leaf];
  }

 private:
  static constexpr uint32_t kNone = ~0u;
  const TraceStorage& s_;
  Flamegraph* fg_;
  FrameNames names_;
  std::vector<uint32_t> node_;
  std::vector<uint32_t> path_;
};

}  // namespace

std::string_view KindName(ProfileKind kind) { return kKinds[static_cast<int>(kind)].name; }
std::optional<ProfileKind> ParseKind(std::string_view s) {
  for (const KindInfo& k : kKinds)
    if (k.name == s) return k.kind;
  return std::nullopt;
}
std::string_view ViewName(FlamegraphView view) { return Info(view).name; }
std::optional<FlamegraphView> ParseView(std::string_view s) {
  for (const ViewInfo& v : kViews)
    if (v.name == s) return v.view;
  return std::nullopt;
}
std::vector<FlamegraphView> ViewsOf(ProfileKind kind) {
  using V = FlamegraphView;
  switch (kind) {
    case ProfileKind::kNative:
      return {V::kUnreleasedSize, V::kTotalSize, V::kUnreleasedCount, V::kTotalCount};
    case ProfileKind::kJavaGraph:
      return {V::kObjectSize, V::kObjectCount, V::kRetainedSize};
    case ProfileKind::kJavaSamples:
      return {V::kTotalSize, V::kTotalCount};
    case ProfileKind::kCpu:
      return {V::kSamples};
    case ProfileKind::kAggregate:
      return {V::kValue};
  }
  return {V::kSamples};
}
bool ViewFits(ProfileKind kind, FlamegraphView view) {
  auto v = ViewsOf(kind);
  return std::find(v.begin(), v.end(), view) != v.end();
}
Metric MetricOf(FlamegraphView view) { return Info(view).metric; }
bool ViewIsBytes(FlamegraphView view) { return Info(view).bytes; }

int64_t ProfileDump::Total(FlamegraphView view) const {
  for (const auto& [v, t] : totals)
    if (v == view) return t;
  return 0;
}

std::vector<ProfileDump> ListHeapprofdProfiles(const TraceStorage& s) {
  std::vector<ProfileDump> out;
  // heapprofd rows: per (upid, heap) the per-ts deltas; a dump's values are
  // everything up to and including its ts.
  const auto& allocs = s.profile.heap_profile_allocation;
  struct Sums {
    int64_t count = 0, size = 0, alloc_count = 0, alloc_size = 0;
  };
  std::map<std::tuple<uint32_t, StringId, int64_t>, Sums> per_ts;
  for (uint32_t r = 0; r < allocs.row_count(); ++r) {
    Sums& x = per_ts[{allocs.upid[r], allocs.heap_name[r], allocs.ts[r]}];
    int64_t c = allocs.count[r], sz = allocs.size[r];
    x.count += c;
    x.size += sz;
    if (c > 0) {
      x.alloc_count += c;
      x.alloc_size += sz;
    }
  }
  StringId art = s.strings.Find(kArtHeap);
  Sums run;
  std::optional<std::pair<uint32_t, StringId>> group;
  for (auto it = per_ts.begin(); it != per_ts.end(); ++it) {
    auto [upid, heap, ts] = it->first;
    if (!group || *group != std::make_pair(upid, heap)) {
      run = Sums{};
      group = std::make_pair(upid, heap);
    }
    run.count += it->second.count;
    run.size += it->second.size;
    run.alloc_count += it->second.alloc_count;
    run.alloc_size += it->second.alloc_size;
    auto next = std::next(it);
    bool last_of_group = next == per_ts.end() || std::get<0>(next->first) != upid ||
                         std::get<1>(next->first) != heap;
    ProfileDump d;
    d.upid = upid;
    d.pid = ProcessPid(s, upid);
    d.process_name = ProcessName(s, upid);
    d.heap = heap == kNullStringId ? "" : std::string(s.GetString(heap));
    if (heap != kNullStringId && heap == art) {
      // Allocation samples: one set per process over its whole time span.
      if (!last_of_group) continue;
      auto first = per_ts.lower_bound({upid, heap, std::numeric_limits<int64_t>::min()});
      d.kind = ProfileKind::kJavaSamples;
      d.ts = std::get<2>(first->first);
      d.end_ts = ts;
      d.totals = {{FlamegraphView::kTotalSize, run.alloc_size},
                  {FlamegraphView::kTotalCount, run.alloc_count}};
    } else {
      d.kind = ProfileKind::kNative;
      d.ts = d.end_ts = ts;
      d.totals = {{FlamegraphView::kUnreleasedSize, run.size},
                  {FlamegraphView::kTotalSize, run.alloc_size},
                  {FlamegraphView::kUnreleasedCount, run.count},
                  {FlamegraphView::kTotalCount, run.alloc_count}};
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<ProfileDump> ListProfiles(const TraceStorage& s) {
  std::vector<ProfileDump> out = ListHeapprofdProfiles(s);
  struct Sums {
    int64_t count = 0, size = 0;
  };

  // Java heap graphs: reachable objects per (upid, ts).
  const auto& objects = s.profile.heap_graph_object;
  std::map<std::pair<uint32_t, int64_t>, Sums> graphs;
  for (uint32_t r = 0; r < s.profile.heap_graph.row_count(); ++r)
    graphs[{s.profile.heap_graph.upid[r], s.profile.heap_graph.ts[r]}];
  for (uint32_t r = 0; r < objects.row_count(); ++r) {
    Sums& x = graphs[{objects.upid[r], objects.graph_sample_ts[r]}];
    if (objects.root_distance[r] < 0) continue;
    x.count += 1;
    x.size += objects.self_size[r];
  }
  for (const auto& [key, x] : graphs) {
    ProfileDump d;
    d.kind = ProfileKind::kJavaGraph;
    d.upid = key.first;
    d.pid = ProcessPid(s, key.first);
    d.process_name = ProcessName(s, key.first);
    d.ts = d.end_ts = key.second;
    d.totals = {{FlamegraphView::kObjectSize, x.size},
                {FlamegraphView::kObjectCount, x.count},
                {FlamegraphView::kRetainedSize, x.size}};
    out.push_back(std::move(d));
  }

  // CPU samples per process.
  const auto& samples = s.profile.perf_sample;
  struct Span {
    int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
    int64_t n = 0;
  };
  std::map<uint32_t, Span> cpu;
  auto add_sample = [&](uint32_t utid, int64_t ts) {
    std::optional<uint32_t> upid =
        utid < s.thread.row_count() ? s.thread.upid.Get(utid) : std::nullopt;
    Span& sp = cpu[upid.value_or(~0u)];
    sp.first = std::min(sp.first, ts);
    sp.last = std::max(sp.last, ts);
    sp.n++;
  };
  for (uint32_t r = 0; r < samples.row_count(); ++r) add_sample(samples.utid[r], samples.ts[r]);
  const auto& chrome = s.profile.cpu_profile_stack_sample;
  for (uint32_t r = 0; r < chrome.row_count(); ++r) add_sample(chrome.utid[r], chrome.ts[r]);
  const int64_t cpu_samples = samples.row_count() + chrome.row_count();
  if (cpu_samples) {
    ProfileDump all;
    all.kind = ProfileKind::kCpu;
    all.all_processes = true;
    all.process_name = "(all processes)";
    all.ts = std::numeric_limits<int64_t>::max();
    all.end_ts = std::numeric_limits<int64_t>::min();
    for (const auto& [upid, sp] : cpu) {
      all.ts = std::min(all.ts, sp.first);
      all.end_ts = std::max(all.end_ts, sp.last);
    }
    all.totals = {{FlamegraphView::kSamples, cpu_samples}};
    out.push_back(std::move(all));
  }
  for (const auto& [upid, sp] : cpu) {
    if (upid == ~0u) continue;  // threads without a process: only in "every process"
    ProfileDump d;
    d.kind = ProfileKind::kCpu;
    d.upid = upid;
    d.pid = ProcessPid(s, upid);
    d.process_name = ProcessName(s, upid);
    d.ts = sp.first;
    d.end_ts = sp.last;
    d.totals = {{FlamegraphView::kSamples, sp.n}};
    out.push_back(std::move(d));
  }
  // Aggregate profiles (pprof): one per sample type, in file order.
  const auto& agg = s.profile.aggregate_profile;
  std::vector<int64_t> agg_totals(agg.row_count(), 0);
  const auto& agg_samples = s.profile.aggregate_sample;
  for (uint32_t r = 0; r < agg_samples.row_count(); ++r) {
    uint32_t p = agg_samples.aggregate_profile_id[r];
    if (p < agg_totals.size()) agg_totals[p] += static_cast<int64_t>(agg_samples.value[r]);
  }
  auto str = [&](StringId id) {
    return id == kNullStringId ? std::string() : std::string(s.GetString(id));
  };
  for (uint32_t r = 0; r < agg.row_count(); ++r) {
    ProfileDump d;
    d.kind = ProfileKind::kAggregate;
    d.all_processes = true;
    d.process_name = str(agg.scope[r]);
    d.aggregate_profile_id = r;
    d.sample_type = str(agg.sample_type_type[r]);
    d.sample_unit = str(agg.sample_type_unit[r]);
    d.default_sample_type = agg.is_default[r] != 0;
    d.totals = {{FlamegraphView::kValue, agg_totals[r]}};
    out.push_back(std::move(d));
  }
  std::stable_sort(out.begin(), out.end(), [](const ProfileDump& a, const ProfileDump& b) {
    return std::make_tuple(a.kind, !a.all_processes, a.upid, a.ts, a.heap) <
           std::make_tuple(b.kind, !b.all_processes, b.upid, b.ts, b.heap);
  });
  return out;
}

std::optional<ProfileDump> PickLargestProfile(const std::vector<ProfileDump>& dumps,
                                              std::optional<ProfileKind> kind,
                                              std::optional<uint32_t> upid) {
  for (const KindInfo& k : kKinds) {
    if (kind && *kind != k.kind) continue;
    const ProfileDump* best = nullptr;
    for (const ProfileDump& d : dumps) {
      if (d.kind != k.kind || (upid && (d.upid != *upid || d.all_processes))) continue;
      FlamegraphView v = DefaultView(d.kind);
      // pprof files name their preferred sample type: it wins over size
      // (values of different sample types have different units).
      if (!best || std::make_pair(d.default_sample_type, d.Total(v)) >
                       std::make_pair(best->default_sample_type, best->Total(v)))
        best = &d;
    }
    if (best) return *best;
  }
  return std::nullopt;
}

FlamegraphRequest RequestFor(const ProfileDump& dump, std::optional<FlamegraphView> view) {
  FlamegraphRequest r;
  r.kind = dump.kind;
  r.view = view.value_or(DefaultView(dump.kind));
  if (!dump.all_processes) r.upid = dump.upid;
  r.ts = dump.ts;
  if (dump.kind == ProfileKind::kNative) r.heap = dump.heap;
  if (dump.kind == ProfileKind::kAggregate) r.aggregate_profile = dump.aggregate_profile_id;
  if (dump.kind == ProfileKind::kJavaSamples || dump.kind == ProfileKind::kCpu) {
    r.start_ts = dump.ts;
    r.end_ts = dump.end_ts == std::numeric_limits<int64_t>::max() ? dump.end_ts : dump.end_ts + 1;
  }
  return r;
}

namespace {
// `upids` == nullptr: every process.
Flamegraph BuildAllocFlamegraph(const TraceStorage& s, const std::vector<uint32_t>* upids,
                                const TsFilter& ts, std::optional<std::string_view> heap,
                                std::optional<std::string_view> exclude_heap) {
  const auto& allocs = s.profile.heap_profile_allocation;
  Flamegraph fg;
  // A heap name absent from the pool matches nothing (Find gives NULL, and
  // heap_name is never NULL for heapprofd rows).
  const bool one_heap = heap.has_value();
  const StringId only = one_heap ? s.strings.Find(*heap) : kNullStringId;
  if (one_heap && only == kNullStringId) return fg;
  StringId skip = exclude_heap ? s.strings.Find(*exclude_heap) : kNullStringId;
  // Sum per callsite first (a sequential pass over the rows into a compact
  // array), then create one node per touched callsite: the tree is touched
  // once per callsite instead of once per row.
  const uint32_t callsite_rows = s.profile.stack_profile_callsite.row_count();
  std::vector<std::array<int64_t, kNumMetrics>> acc(callsite_rows, {0, 0, 0, 0});
  std::vector<uint8_t> touched(callsite_rows, 0);
  const bool one_upid = upids && upids->size() == 1;
  const uint32_t rows = allocs.row_count();
  for (uint32_t row = 0; row < rows; ++row) {
    uint32_t upid = allocs.upid[row];
    if (one_upid ? upid != (*upids)[0]
                 : upids && std::find(upids->begin(), upids->end(), upid) == upids->end())
      continue;
    if (!ts.Matches(allocs.ts[row])) continue;
    StringId h = allocs.heap_name[row];
    if ((one_heap && h != only) || (skip != kNullStringId && h == skip)) continue;
    uint32_t cs = allocs.callsite_id[row];
    if (cs >= callsite_rows) continue;  // dangling id (counted at import)
    int64_t count = allocs.count[row], size = allocs.size[row];
    auto& a = acc[cs];
    a[0] += count;
    a[1] += size;
    if (count > 0) {
      a[2] += count;
      a[3] += size;
    }
    touched[cs] = 1;
  }
  CallsiteNodes nodes(s, &fg);
  for (uint32_t cs = 0; cs < callsite_rows; ++cs) {
    if (!touched[cs]) continue;
    std::optional<uint32_t> node = nodes.Node(cs);
    if (!node) continue;
    FlamegraphNode& n = fg.mutable_node(*node);
    n.count += acc[cs][0];
    n.size += acc[cs][1];
    n.alloc_count += acc[cs][2];
    n.alloc_size += acc[cs][3];
  }
  return fg;
}
}  // namespace

Flamegraph BuildNativeFlamegraph(const TraceStorage& s, const std::vector<uint32_t>& upids,
                                 const TsFilter& ts, std::optional<std::string_view> heap,
                                 std::optional<std::string_view> exclude_heap) {
  return BuildAllocFlamegraph(s, &upids, ts, heap, exclude_heap);
}

Flamegraph BuildCpuFlamegraph(const TraceStorage& s, const FlamegraphRequest& req) {
  Flamegraph fg;
  CallsiteNodes nodes(s, &fg);
  std::optional<uint32_t> no_stack;
  // Whether a sample at (ts, utid) is in the request's window and thread/process.
  auto wanted = [&](int64_t ts, uint32_t utid) {
    if (ts < req.start_ts || ts >= req.end_ts) return false;
    if (req.utid && utid != *req.utid) return false;
    if (!req.upid) return true;
    std::optional<uint32_t> upid =
        utid < s.thread.row_count() ? s.thread.upid.Get(utid) : std::nullopt;
    return upid == req.upid;
  };
  auto count = [&](std::optional<uint32_t> node) {
    if (!node) {
      // Samples without a (valid) callstack still count, so the total is
      // the number of samples.
      if (!no_stack) no_stack = fg.Child(std::nullopt, fg.Intern("[no callstack]"), kFgNoString);
      node = no_stack;
    }
    FlamegraphNode& n = fg.mutable_node(*node);
    n.count += 1;
    n.alloc_count += 1;
  };
  const auto& samples = s.profile.perf_sample;
  for (uint32_t r = 0; r < samples.row_count(); ++r) {
    if (!wanted(samples.ts[r], samples.utid[r])) continue;
    if (req.cpu && samples.cpu.Get(r) != req.cpu) continue;
    std::optional<uint32_t> node;
    if (auto cs = samples.callsite_id.Get(r)) node = nodes.Node(*cs);
    count(node);
  }
  // Chrome's sampler: no CPU, always a callsite.
  const auto& chrome = s.profile.cpu_profile_stack_sample;
  for (uint32_t r = 0; r < chrome.row_count() && !req.cpu; ++r) {
    if (!wanted(chrome.ts[r], chrome.utid[r])) continue;
    count(nodes.Node(chrome.callsite_id[r]));
  }
  return fg;
}

Flamegraph BuildAggregateFlamegraph(const TraceStorage& s, uint32_t aggregate_profile) {
  const auto& samples = s.profile.aggregate_sample;
  Flamegraph fg;
  CallsiteNodes nodes(s, &fg);
  std::optional<uint32_t> no_stack;
  for (uint32_t r = 0; r < samples.row_count(); ++r) {
    if (samples.aggregate_profile_id[r] != aggregate_profile) continue;
    std::optional<uint32_t> node;
    if (auto cs = samples.callsite_id.Get(r)) node = nodes.Node(*cs);
    if (!node) {
      // A pprof sample may have no locations; its value still counts.
      if (!no_stack) no_stack = fg.Child(std::nullopt, fg.Intern("[no callstack]"), kFgNoString);
      node = no_stack;
    }
    const int64_t v = static_cast<int64_t>(samples.value[r]);
    FlamegraphNode& n = fg.mutable_node(*node);
    n.size += v;
    n.alloc_size += v;
    n.count += 1;
    n.alloc_count += 1;
  }
  return fg;
}

bool AggregateIsBytes(const ProfileDump& dump) {
  return dump.kind == ProfileKind::kAggregate && dump.sample_unit == "bytes";
}

Result<Flamegraph> BuildFlamegraph(const TraceStorage& s, const FlamegraphRequest& req) {
  if (!ViewFits(req.kind, req.view))
    return ErrorStatus("view '" + std::string(ViewName(req.view)) + "' does not apply to " +
                       std::string(KindName(req.kind)) + " profiles");
  Metric order = MetricOf(req.view);
  switch (req.kind) {
    case ProfileKind::kNative: {
      if (!req.upid) return ErrorStatus("a native flamegraph needs a process (upid)");
      TsFilter f;
      f.le = req.ts;  // a dump holds everything allocated (and freed) up to it
      std::vector<uint32_t> upids = {*req.upid};
      Flamegraph fg = BuildAllocFlamegraph(
          s, &upids, f, req.heap ? std::optional<std::string_view>(*req.heap) : std::nullopt,
          req.heap ? std::nullopt : std::optional<std::string_view>(kArtHeap));
      fg.Finalize(order);
      return fg;
    }
    case ProfileKind::kJavaSamples: {
      TsFilter f;
      f.ge = req.start_ts;
      f.lt = req.end_ts;
      std::vector<uint32_t> upids;
      if (req.upid) upids.push_back(*req.upid);
      Flamegraph fg = BuildAllocFlamegraph(s, req.upid ? &upids : nullptr, f, kArtHeap, {});
      // Samples have no frees: both views read the allocated values.
      for (uint32_t i = 0; i < fg.size(); ++i) {
        FlamegraphNode& n = fg.mutable_node(i);
        n.size = n.alloc_size;
        n.count = n.alloc_count;
      }
      fg.Finalize(order);
      return fg;
    }
    case ProfileKind::kJavaGraph: {
      if (!req.upid) return ErrorStatus("a heap graph flamegraph needs a process (upid)");
      Result<Flamegraph> fg =
          req.view == FlamegraphView::kRetainedSize
              ? BuildHeapGraphDominatorFlamegraph(s, *req.upid, req.ts, req.cancel)
              : BuildHeapGraphFlamegraph(s, *req.upid, req.ts, req.cancel);
      if (fg.ok()) fg->Finalize(order);
      return fg;
    }
    case ProfileKind::kCpu: {
      Flamegraph fg = BuildCpuFlamegraph(s, req);
      fg.Finalize(order);
      return fg;
    }
    case ProfileKind::kAggregate: {
      if (!req.aggregate_profile ||
          *req.aggregate_profile >= s.profile.aggregate_profile.row_count())
        return ErrorStatus("an aggregate (pprof) flamegraph needs one of its sample types");
      Flamegraph fg = BuildAggregateFlamegraph(s, *req.aggregate_profile);
      fg.Finalize(order);
      return fg;
    }
  }
  return ErrorStatus("unknown profile kind");
}

}  // namespace fathom
