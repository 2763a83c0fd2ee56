// Allocation-bound workload for heapprof_bench: THREADS threads each run ALLOCS
// malloc/free pairs from a call chain 12 frames deep, keeping a window of 4096 live
// blocks. Three size profiles:
//   mixed (default)  8..520 bytes, every 64th block 4..36 KiB: ~580 bytes a block on
//                    average, so a byte-interval sampler fires often (far harsher than the
//                    issue's reference workload: jemalloc's 4 KiB profiler costs ~10x here)
//   small            16..143 bytes, the size of tree nodes and short strings: ~80 bytes a
//                    block, each touched at one byte (jemalloc's 4 KiB profiler ~4.1x,
//                    heaptrack ~23x: still harsher than the reference)
//   reference        small's sizes, each block filled when allocated, as programs fill
//                    what they allocate: calibrated to the reference workload,
//                    on which heaptrack measured 17x and jemalloc's 4 KiB profiler 3.5x
//                    (the bench prints both beside Fathom's rows, so the calibration is
//                    checked in every run)
// Prints its own wall time and the CPU time of its own process (user + system), which
// excludes a collector's.
//
//   heapprof_workload [THREADS [ALLOCS [mixed|small|reference]]]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

enum Profile { kMixed, kSmall, kReference };
Profile g_profile = kMixed;

// A template, so each profile's loop is branch-free on it (the mixed loop is the same code
// as before the other profiles existed).
template <Profile kProfile>
__attribute__((noinline)) uint64_t Churn(uint64_t allocs, uint64_t seed) {
  constexpr bool kSmall = kProfile != kMixed;
  std::vector<void*> window(4096, nullptr);
  uint64_t x = seed, touched = 0;
  for (uint64_t i = 0; i < allocs; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    size_t size = kSmall          ? 16 + (x >> 40) % 128
                  : (i % 64 == 0) ? 4096 + (x >> 33) % 32768
                                  : 8 + (x >> 40) % 512;
    size_t slot = (x >> 20) & 4095;
    free(window[slot]);
    char* p = static_cast<char*>(malloc(size));
    if constexpr (kProfile == kReference) {
      memset(p, static_cast<int>(i), size);  // as programs fill what they allocate
      asm volatile("" ::"r"(p) : "memory");
    } else {
      p[0] = static_cast<char>(i);
    }
    touched += static_cast<unsigned char>(p[0]);
    window[slot] = p;
  }
  for (void* p : window) free(p);
  return touched;
}

__attribute__((noinline)) uint64_t Deep(int depth, uint64_t allocs, uint64_t seed) {
  if (depth == 0) {
    switch (g_profile) {
      case kSmall:
        return Churn<kSmall>(allocs, seed);
      case kReference:
        return Churn<kReference>(allocs, seed);
      default:
        return Churn<kMixed>(allocs, seed);
    }
  }
  uint64_t r = Deep(depth - 1, allocs, seed + 1);
  asm volatile("" ::: "memory");  // no tail call: keep the frames
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  uint64_t allocs = argc > 2 ? strtoull(argv[2], nullptr, 10) : 5000000;
  if (argc > 3 && strcmp(argv[3], "small") == 0) {
    g_profile = kSmall;
  } else if (argc > 3 && strcmp(argv[3], "reference") == 0) {
    g_profile = kReference;
  } else if (argc > 3 && strcmp(argv[3], "mixed") != 0) {
    fprintf(stderr, "usage: heapprof_workload [THREADS [ALLOCS [mixed|small|reference]]]\n");
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  std::vector<uint64_t> sums(static_cast<size_t>(threads));
  for (int t = 0; t < threads; t++)
    pool.emplace_back(
        [&, t] { sums[static_cast<size_t>(t)] = Deep(10, allocs, static_cast<uint64_t>(t)); });
  for (auto& th : pool) th.join();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  uint64_t sum = 0;
  for (uint64_t v : sums) sum += v;
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  printf("workload_seconds %.4f cpu_seconds %.4f allocs_per_second %.0f checksum %llu\n", s, cpu,
         static_cast<double>(allocs) * threads / s, static_cast<unsigned long long>(sum));
  return 0;
}
