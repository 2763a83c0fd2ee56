// pprof import benchmark: a synthetic profile (S samples over S/10 distinct
// stacks sharing prefixes, L locations, 4 sample types, some inlined
// frames), built with
// libprotobuf's generated classes and gzipped, loaded through TraceProcessor
// (format detection, gunzip, decode, validation, stack interning, rows) and
// then turned into the default flamegraph. Prints MB/s, samples/s and peak
// RSS. Not a pass/fail test: `--smoke` runs a tiny profile for ctest.
// Linux-only (getrusage).
#include <sys/resource.h>
#include <time.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

#include "core/flamegraph/profiles.h"
#include "core/trace_processor.h"
#include "tests/bench/bench_util.h"
#include "third_party/pprof/profile.pb.h"

namespace {

using fathom::bench::Clock;
using fathom::bench::CpuMs;
using fathom::bench::Ms;
using fathom::bench::PeakRssMb;

std::string Gzip(const std::string& in) {
  z_stream z{};
  deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, in.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Generate(uint32_t samples, uint32_t locations) {
  perftools::profiles::Profile p;
  auto str = [&](const std::string& s) {
    p.add_string_table(s);
    return static_cast<int64_t>(p.string_table_size() - 1);
  };
  str("");
  for (const char* t : {"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"}) {
    auto* vt = p.add_sample_type();
    vt->set_type(str(t));
    vt->set_unit(str(strstr(t, "space") ? "bytes" : "count"));
  }
  const uint32_t kMappings = 32;
  for (uint32_t m = 1; m <= kMappings; ++m) {
    auto* mp = p.add_mapping();
    mp->set_id(m);
    mp->set_memory_start(uint64_t{m} << 32);
    mp->set_memory_limit((uint64_t{m} << 32) + (1 << 24));
    mp->set_filename(str("/usr/lib/lib" + std::to_string(m) + ".so"));
    mp->set_build_id(str("build" + std::to_string(m)));
  }
  for (uint32_t f = 1; f <= locations; ++f) {
    auto* fn = p.add_function();
    fn->set_id(f);
    fn->set_name(str(f % 2 ? "_ZN4bench5Class" + std::to_string(f) + "runEv"
                           : "function_" + std::to_string(f)));
  }
  for (uint32_t l = 1; l <= locations; ++l) {
    auto* loc = p.add_location();
    loc->set_id(l);
    loc->set_mapping_id(1 + l % kMappings);
    loc->set_address((uint64_t{1 + l % kMappings} << 32) + l * 16);
    if (l % 7 == 0 && l > 1) loc->add_line()->set_function_id(l - 1);  // inlined
    loc->add_line()->set_function_id(l);
  }
  // Distinct stacks look like real ones: most extend a prefix of an earlier
  // stack, a few start from a new root. Samples then reuse them (a pprof
  // sample is one stack plus labels, so the same stack recurs).
  std::mt19937_64 rng(7);
  std::vector<std::vector<uint64_t>> stacks;  // root first
  const uint32_t distinct = std::max(100u, samples / 10);
  for (uint32_t i = 0; i < distinct; ++i) {
    std::vector<uint64_t> st;
    if (!stacks.empty() && rng() % 16) {
      const auto& base = stacks[rng() % stacks.size()];
      st.assign(base.begin(), base.begin() + 1 + static_cast<long>(rng() % base.size()));
    }
    const uint32_t extra = 1 + rng() % 6;
    for (uint32_t d = 0; d < extra && st.size() < 64; ++d) st.push_back(1 + rng() % locations);
    stacks.push_back(std::move(st));
  }
  for (uint32_t s = 0; s < samples; ++s) {
    auto* sm = p.add_sample();
    const auto& stack = stacks[rng() % stacks.size()];
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) sm->add_location_id(*it);
    const int64_t n = 1 + rng() % 8, bytes = n * (16 + rng() % 4096);
    sm->add_value(n);
    sm->add_value(bytes);
    sm->add_value(rng() % 2 ? n : 0);
    sm->add_value(rng() % 2 ? bytes : 0);
  }
  return Gzip(p.SerializeAsString());
}

}  // namespace

int main(int argc, char** argv) {
  uint32_t samples = 500'000, locations = 50'000;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--smoke")) {
      samples = 5'000;
      locations = 2'000;
    } else if (!strcmp(argv[i], "--samples") && i + 1 < argc) {
      samples = static_cast<uint32_t>(strtoul(argv[++i], nullptr, 10));
    } else {
      fprintf(stderr, "usage: fathom-bench-pprof [--smoke] [--samples N]\n");
      return 2;
    }
  }
  auto t = Clock::now();
  std::string gz = Generate(samples, locations);
  printf("generate: %u samples, %u locations -> %.1f MB gzipped (%.0f ms)\n", samples, locations,
         gz.size() / 1e6, Ms(t));
  const double rss_before = PeakRssMb();

  fathom::TraceProcessor tp;
  t = Clock::now();
  double cpu = CpuMs();
  fathom::Status st =
      tp.LoadBuffer(reinterpret_cast<const uint8_t*>(gz.data()), gz.size(), "bench.pprof");
  const double load_ms = Ms(t), load_cpu_ms = CpuMs() - cpu;
  if (!st.ok()) {
    fprintf(stderr, "load failed: %s\n", st.message().c_str());
    return 1;
  }
  const auto& prof = tp.storage().profile;
  printf(
      "load:     %.0f ms wall, %.0f ms CPU: %.1f MB/s gzipped, %.2f M samples/s per CPU-s;"
      " %u sample rows, %u callsites, %u frames\n",
      load_ms, load_cpu_ms, gz.size() / 1e3 / load_cpu_ms, samples / 1e3 / load_cpu_ms,
      prof.aggregate_sample.row_count(), prof.stack_profile_callsite.row_count(),
      prof.stack_profile_frame.row_count());

  t = Clock::now();
  cpu = CpuMs();
  auto dumps = fathom::ListProfiles(tp.storage());
  auto dump = fathom::PickLargestProfile(dumps, std::nullopt, std::nullopt);
  if (!dump) return 1;
  auto fg = fathom::BuildFlamegraph(tp.storage(), fathom::RequestFor(*dump, std::nullopt));
  if (!fg.ok()) return 1;
  printf("flamegraph (%s): %.0f ms wall, %.0f ms CPU, %zu nodes\n", dump->sample_type.c_str(),
         Ms(t), CpuMs() - cpu, fg->size());
  printf("peak RSS: %.0f MB (%.0f MB before loading)\n", PeakRssMb(), rss_before);
  return 0;
}
