// Heap explorer benchmark: a synthetic Java heap graph (default 5 M objects,
// 4 references each, the generator of flamegraph_bench) generated straight
// into TraceStorage, then the explorer's analysis (graph load, shortest
// paths, dominators, retained sizes, tree lists) and its first questions:
// the class histogram by class and by package, and the instances of the
// largest class. Prints wall and CPU times, objects/s and peak RSS.
// With --hprof FILE: a real heap dump instead (load, analysis, and the
// contents pass that reads the file again for duplicates and leaks).
// Not a pass/fail test: `--smoke` runs a tiny graph for ctest.
//
//   fathom-bench-heap-explorer [--objects N] [--refs R] [--uniform] [--smoke]
//   fathom-bench-heap-explorer --hprof FILE
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>

#include "core/heap/heap_duplicates.h"
#include "core/heap/heap_queries.h"
#include "core/import/hprof/hprof_contents.h"
#include "core/trace_processor.h"
#include "tests/bench/bench_util.h"
#include "tests/bench/heap_graph_gen.h"

using fathom::bench::Clock;
using fathom::bench::CpuMs;
using fathom::bench::Ms;
using fathom::bench::PeakRssMb;

namespace {

// A real dump: load, analysis, contents pass, duplicates and leaks.
int BenchHprof(const char* path) {
  fathom::TraceProcessor tp;
  auto t = Clock::now();
  if (auto st = tp.LoadFile(path); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  const auto& s = tp.storage();
  std::printf("load: %.0f ms, %u objects, %u references, peak RSS %.0f MB\n", Ms(t),
              s.profile.heap_graph_object.row_count(), s.profile.heap_graph_reference.row_count(),
              PeakRssMb());
  t = Clock::now();
  double cpu = CpuMs();
  auto a = fathom::heap::AnalyzeHeapDump(s, fathom::heap::ListHeapDumps(s).at(0), nullptr);
  if (!a.ok()) return 1;
  std::printf("analysis: %.0f ms wall, %.0f ms CPU, %u reachable, peak RSS %.0f MB\n", Ms(t),
              CpuMs() - cpu, (*a)->reachable_count, PeakRssMb());
  t = Clock::now();
  cpu = CpuMs();
  auto contents = fathom::hprof::ReadHprofContents(path, (*a)->rows, nullptr);
  if (!contents.ok()) return 1;
  std::printf("contents pass: %.0f ms wall, %.0f ms CPU, %zu arrays hashed, peak RSS %.0f MB\n",
              Ms(t), CpuMs() - cpu, contents->hashes.size(), PeakRssMb());
  t = Clock::now();
  auto dups = fathom::heap::FindDuplicates(s, **a, &*contents);
  auto leaks = fathom::heap::FindLeaks(s, **a, &*contents);
  std::printf("duplicates: %zu groups, leaks: %zu, in %.0f ms; peak RSS %.0f MB\n", dups.size(),
              leaks.size(), Ms(t), PeakRssMb());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t objects = 5'000'000, refs = 4;
  bool uniform = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--smoke"))
      objects = 20'000;
    else if (!strcmp(argv[i], "--objects") && i + 1 < argc)
      objects = uint32_t(std::stoul(argv[++i]));
    else if (!strcmp(argv[i], "--refs") && i + 1 < argc)
      refs = uint32_t(std::stoul(argv[++i]));
    else if (!strcmp(argv[i], "--uniform"))
      uniform = true;
    else if (!strcmp(argv[i], "--hprof") && i + 1 < argc)
      return BenchHprof(argv[i + 1]);
  }
  fathom::TraceStorage s;
  auto t = Clock::now();
  fathom::bench::GenerateHeapGraph(&s, objects, refs, uniform);
  // The generator leaves `reachable` unset; the explorer follows references
  // of reachable objects only (as upstream's dominator tree).
  for (uint32_t r = 0; r < objects; ++r) s.profile.heap_graph_object.reachable.Set(r, 1);
  std::printf("generated %u objects, %u references in %.0f ms, peak RSS %.0f MB\n", objects,
              s.profile.heap_graph_reference.row_count(), Ms(t), PeakRssMb());
  const double rss_before = PeakRssMb();

  t = Clock::now();
  double cpu = CpuMs();
  auto dumps = fathom::heap::ListHeapDumps(s);
  auto analysed = fathom::heap::AnalyzeHeapDump(s, dumps.at(0), nullptr);
  if (!analysed.ok()) {
    std::fprintf(stderr, "analysis failed: %s\n", analysed.status().message().c_str());
    return 1;
  }
  const double wall = Ms(t), used = CpuMs() - cpu;
  const auto& a = **analysed;
  std::printf(
      "analysis (dominators, retained sizes, paths): %.0f ms wall, %.0f ms CPU, "
      "%.2f M objects/s, %u reachable, peak RSS %.0f MB (+%.0f MB over the tables)\n",
      wall, used, objects / (wall / 1e3) / 1e6, a.reachable_count, PeakRssMb(),
      PeakRssMb() - rss_before);
  for (auto g : {fathom::heap::Grouping::kClass, fathom::heap::Grouping::kPackage}) {
    t = Clock::now();
    auto rows = fathom::heap::ClassHistogram(s, a, g);
    std::printf("histogram by %s: %zu rows in %.0f ms\n",
                g == fathom::heap::Grouping::kClass ? "class" : "package", rows.size(), Ms(t));
    if (g == fathom::heap::Grouping::kClass && !rows.empty()) {
      t = Clock::now();
      auto inst = fathom::heap::Instances(a, rows[0].classes);
      std::printf("instances of %s: %zu in %.0f ms\n", rows[0].name.c_str(), inst.size(), Ms(t));
      t = Clock::now();
      auto d = fathom::heap::DescribeObject(s, a, inst.at(0));
      std::printf("one object's fields, referrers, path (%zu steps): %.2f ms\n", d.path.size(),
                  Ms(t));
    }
  }
  std::printf("peak RSS %.0f MB\n", PeakRssMb());
  return 0;
}
