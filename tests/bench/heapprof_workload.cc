// Allocation-bound workload for heapprof_bench: THREADS threads each run ALLOCS
// malloc/free pairs from a call chain 12 frames deep, keeping a window of 4096 live
// blocks. Two size profiles:
//   mixed (default)  8..520 bytes, every 64th block 4..36 KiB: ~580 bytes a block on
//                    average, so a byte-interval sampler fires often (harsher than the
//                    issue's reference workload: jemalloc's 4 KiB profiler costs ~11x here)
//   small            16..143 bytes, the size of tree nodes and short strings: ~80 bytes a
//                    block (jemalloc's 4 KiB profiler costs ~4x here, as on the issue's
//                    reference workload, where it measured 3.5x)
// Prints its own wall time and the CPU time of its own process (user + system), which
// excludes a collector's.
//
//   heapprof_workload [THREADS [ALLOCS [mixed|small]]]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace {

bool g_small = false;

// A template, so each profile's loop is branch-free on it (the mixed loop is the same code
// as before the small profile existed).
template <bool kSmall>
__attribute__((noinline)) uint64_t Churn(uint64_t allocs, uint64_t seed) {
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
    p[0] = static_cast<char>(i);
    touched += static_cast<unsigned char>(p[0]);
    window[slot] = p;
  }
  for (void* p : window) free(p);
  return touched;
}

__attribute__((noinline)) uint64_t Deep(int depth, uint64_t allocs, uint64_t seed) {
  if (depth == 0) return g_small ? Churn<true>(allocs, seed) : Churn<false>(allocs, seed);
  uint64_t r = Deep(depth - 1, allocs, seed + 1);
  asm volatile("" ::: "memory");  // no tail call: keep the frames
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  uint64_t allocs = argc > 2 ? strtoull(argv[2], nullptr, 10) : 5000000;
  if (argc > 3 && strcmp(argv[3], "small") == 0) {
    g_small = true;
  } else if (argc > 3 && strcmp(argv[3], "mixed") != 0) {
    fprintf(stderr, "usage: heapprof_workload [THREADS [ALLOCS [mixed|small]]]\n");
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
