// Flamegraph benchmark: synthetic data generated straight into TraceStorage.
//  1. native dump: N allocations over C callsites -> BuildFlamegraph (target
//     <= 200 ms for 1 M allocations / 100 k callsites), plus the exports;
//  2. Java heap graph: O objects with R references each -> shortest-path
//     tree and dominator tree (target <= 10 s and <= 2 GB RSS for 5 M / 20 M),
//     each split into build and Finalize, with a fingerprint of the finished
//     tree so a faster build can be checked to give the very same tree.
// Prints wall and CPU times and peak RSS. Not a pass/fail test: `--smoke` runs tiny
// inputs for ctest. Linux-only (getrusage).
#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "core/export/flamegraph_export.h"
#include "core/flamegraph/profiles.h"
#include "core/storage/trace_storage.h"
#include "tests/bench/bench_util.h"
#include "tests/bench/heap_graph_gen.h"

namespace {

using fathom::bench::Clock;
using fathom::bench::CpuMs;
using fathom::bench::GenerateHeapGraph;
using fathom::bench::Ms;
using fathom::bench::PeakRssMb;

// Callsite trees look like real stacks: most callsites extend a recent one
// (deep, shared prefixes), a few start a new root.
void GenerateNative(fathom::TraceStorage* s, uint32_t allocs, uint32_t callsites) {
  using namespace fathom;
  std::mt19937_64 rng(42);
  auto& maps = s->profile.stack_profile_mapping;
  auto& frames = s->profile.stack_profile_frame;
  auto& cs = s->profile.stack_profile_callsite;
  const uint32_t kMaps = 64, kFrames = std::max(16u, callsites / 5);
  for (uint32_t m = 0; m < kMaps; ++m)
    maps.Insert(kNullStringId, 0, 0, 0, 0, 0,
                s->Intern("/system/lib64/lib" + std::to_string(m) + ".so"));
  for (uint32_t f = 0; f < kFrames; ++f) {
    // Half of the names are mangled C++, so demangling is part of the cost.
    std::string n = f % 2 ? "_ZN7android6Thread" + std::to_string(f) + "runEv"
                          : "function_" + std::to_string(f);
    frames.Insert(s->Intern(n), f % kMaps, f * 16, kNullStringId);
  }
  for (uint32_t c = 0; c < callsites; ++c) {
    // A random earlier callsite as parent: depths grow like ln(c) (about 12
    // for 100 k), capped at 48 like a deep real stack.
    uint32_t parent = c ? static_cast<uint32_t>(rng() % c) : 0;
    if (c == 0 || rng() % 200 == 0 || cs.depth[parent] >= 48)
      cs.Insert(0, std::nullopt, rng() % kFrames);
    else
      cs.Insert(cs.depth[parent] + 1, parent, rng() % kFrames);
  }
  StringId heap = s->Intern("libc.malloc");
  auto& table = s->profile.heap_profile_allocation;
  for (uint32_t a = 0; a < allocs; ++a) {
    uint32_t callsite = static_cast<uint32_t>(rng() % callsites);
    int64_t count = 1 + static_cast<int64_t>(rng() % 8);
    int64_t size = count * (16 + static_cast<int64_t>(rng() % 4096));
    // One dump at ts 1000; a fifth of the rows are frees.
    if (a % 5 == 4)
      table.Insert(1000, 0, heap, callsite, -count, -size);
    else
      table.Insert(1000, 0, heap, callsite, count, size);
  }
  s->process.Insert(1234);
}

// FNV-1a over a finalized tree (names, parents, self values in node order):
// equal prints mean identical trees, so optimizations can be checked on
// graphs far larger than the unit tests'.
uint64_t Fingerprint(const fathom::Flamegraph& fg) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) h = (h ^ (v & 0xff)) * 1099511628211ull;
  };
  for (uint32_t i = 0; i < fg.size(); ++i) {
    const fathom::FlamegraphNode& n = fg.node(i);
    for (char c : fg.name(i)) mix(static_cast<unsigned char>(c));
    mix(n.parent ? *n.parent : ~0ull);
    mix(static_cast<uint64_t>(n.count));
    mix(static_cast<uint64_t>(n.size));
  }
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace fathom;
  uint32_t allocs = 1000000, callsites = 100000, objects = 5000000, refs = 4;
  bool uniform = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--smoke")) {
      allocs = 20000;
      callsites = 2000;
      objects = 20000;
    } else if (!strcmp(argv[i], "--uniform-graph")) {
      uniform = true;
    } else if (!strcmp(argv[i], "--allocs") && i + 1 < argc) {
      allocs = static_cast<uint32_t>(atoll(argv[++i]));
    } else if (!strcmp(argv[i], "--callsites") && i + 1 < argc) {
      callsites = static_cast<uint32_t>(atoll(argv[++i]));
    } else if (!strcmp(argv[i], "--objects") && i + 1 < argc) {
      objects = static_cast<uint32_t>(atoll(argv[++i]));
    } else if (!strcmp(argv[i], "--refs-per-object") && i + 1 < argc) {
      refs = static_cast<uint32_t>(atoll(argv[++i]));
    } else {
      fprintf(stderr,
              "usage: %s [--smoke] [--allocs N] [--callsites N] [--objects N] "
              "[--refs-per-object K] [--uniform-graph]\n",
              argv[0]);
      return 2;
    }
  }

  if (allocs && callsites) {
    TraceStorage s;
    auto t = Clock::now();
    GenerateNative(&s, allocs, callsites);
    printf("native: generated %u allocations over %u callsites in %.0f ms\n", allocs, callsites,
           Ms(t));
    std::vector<ProfileDump> dumps;
    t = Clock::now();
    dumps = ListProfiles(s);
    printf("native: ListProfiles                 %8.1f ms (%zu dumps)\n", Ms(t), dumps.size());
    auto d = PickLargestProfile(dumps, ProfileKind::kNative, std::nullopt);
    if (!d) return 1;
    double best = 1e18, best_cpu = 1e18;
    Flamegraph fg;
    for (int rep = 0; rep < 5; ++rep) {
      t = Clock::now();
      double c = CpuMs();
      Result<Flamegraph> r = BuildFlamegraph(s, RequestFor(*d, FlamegraphView::kUnreleasedSize));
      best = std::min(best, Ms(t));
      best_cpu = std::min(best_cpu, CpuMs() - c);
      if (!r.ok()) return 1;
      fg = std::move(*r);
    }
    printf(
        "native: BuildFlamegraph (best of 5)   %8.1f ms wall, %.1f ms CPU (%zu nodes, unreleased "
        "%" PRId64 " B; target <= 200 ms)\n",
        best, best_cpu, fg.size(), fg.Total(Metric::kSize));
    t = Clock::now();
    Flamegraph inv = fg.Inverted();
    printf("native: Inverted                      %8.1f ms (%zu nodes)\n", Ms(t), inv.size());
    t = Clock::now();
    auto sr = fg.Search("Thread1", Metric::kSize);
    printf("native: Search                        %8.1f ms (%.1f%% matched)\n", Ms(t),
           sr.ok() ? 100 * sr->share() : 0.0);
    ExportOptions eo;
    for (ExportFormat f : {ExportFormat::kFolded, ExportFormat::kPprof, ExportFormat::kSvg,
                           ExportFormat::kSpeedscope}) {
      t = Clock::now();
      Result<std::string> out = ExportFlamegraph(fg, f, eo);
      printf("native: export %-10s             %8.1f ms (%zu bytes)\n",
             std::string(ExportFormatName(f)).c_str(), Ms(t), out.ok() ? out->size() : 0);
    }
    printf("native: peak RSS %.0f MB\n", PeakRssMb());
  }

  if (objects) {
    TraceStorage s;
    auto t = Clock::now();
    GenerateHeapGraph(&s, objects, refs, uniform);
    printf("heap graph: generated %u objects, %u references in %.0f ms (peak RSS %.0f MB)\n",
           objects, s.profile.heap_graph_reference.row_count(), Ms(t), PeakRssMb());
    double total_ms = 0, total_cpu = 0;
    for (FlamegraphView v : {FlamegraphView::kObjectSize, FlamegraphView::kRetainedSize}) {
      const bool dom = v == FlamegraphView::kRetainedSize;
      // The two steps of BuildFlamegraph for a heap graph, timed apart: the
      // graph algorithm (+ tree building) and Finalize (cumulative values,
      // sibling order, pre-order renumbering).
      t = Clock::now();
      double c0 = CpuMs();
      Result<Flamegraph> fg = dom ? BuildHeapGraphDominatorFlamegraph(s, 1, 2000)
                                  : BuildHeapGraphFlamegraph(s, 1, 2000);
      if (!fg.ok()) return 1;
      double build_cpu = CpuMs() - c0;
      fg->Finalize(MetricOf(v));
      double ms = Ms(t), cpu = CpuMs() - c0;
      total_ms += ms;
      total_cpu += cpu;
      printf(
          "heap graph: %-26s %8.0f ms wall, %6.0f ms CPU = build %.0f + finalize %.0f (%zu "
          "nodes, %" PRId64 " objects, %" PRId64 " B, peak RSS %.0f MB, tree %016" PRIx64 ")\n",
          dom ? "dominator tree" : "shortest-path tree", ms, cpu, build_cpu, cpu - build_cpu,
          fg->size(), fg->Total(Metric::kCount), fg->Total(Metric::kSize), PeakRssMb(),
          Fingerprint(*fg));
    }
    printf(
        "heap graph: both trees %.0f ms wall, %.0f ms CPU (target <= 10000 ms); peak RSS %.0f MB "
        "(target <= 2048 MB)\n",
        total_ms, total_cpu, PeakRssMb());
  }
  return 0;
}
