// Workload with known allocation totals per call path, for heapprof_test.
// Three threads, each on its own path (Thread -> Path -> Allocate -> malloc/new/calloc),
// allocate ~48 MiB in a fixed size pattern and free every other block; the rest stays
// live until exit. Built with frame pointers, noinline/noclone functions and a barrier
// after each call (no tail calls), so every frame is present and named. Prints the exact
// totals so the test compares the profile against the truth.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define NOINLINE __attribute__((noinline, noclone))
#define NO_TAIL_CALL asm volatile("" ::: "memory")

namespace heapprof_test {

constexpr size_t kTotal = 48u << 20;

struct Result {
  size_t allocated = 0, held = 0;
};

// Small (< 4 KiB interval, sampled), medium (sampled) and large (>= interval: exact).
size_t SizeSmall(size_t i) { return 16 + (i * 37) % 241; }
size_t SizeMedium(size_t i) { return 1024 + (i * 131) % 2048; }
size_t SizeLarge(size_t i) { return 8192 + (i * 4099) % 24576; }

NOINLINE void* AllocateSmall(size_t n) {
  void* p = malloc(n);
  NO_TAIL_CALL;
  return p;
}
NOINLINE void* AllocateMedium(size_t n) {
  void* p = new char[n];
  NO_TAIL_CALL;
  return p;
}
NOINLINE void* AllocateLarge(size_t n) {
  void* p = calloc(1, n);
  NO_TAIL_CALL;
  return p;
}

NOINLINE void PathSmall(Result* r, std::vector<void*>* keep) {
  for (size_t i = 0; r->allocated < kTotal; i++) {
    size_t n = SizeSmall(i);
    void* p = AllocateSmall(n);
    static_cast<volatile char*>(p)[0] = 1;
    r->allocated += n;
    if (i % 2) {
      free(p);
    } else {
      keep->push_back(p);
      r->held += n;
    }
  }
  NO_TAIL_CALL;
}
NOINLINE void PathMedium(Result* r, std::vector<void*>* keep) {
  for (size_t i = 0; r->allocated < kTotal; i++) {
    size_t n = SizeMedium(i);
    void* p = AllocateMedium(n);
    static_cast<volatile char*>(p)[0] = 1;
    r->allocated += n;
    if (i % 2) {
      delete[] static_cast<char*>(p);
    } else {
      keep->push_back(p);
      r->held += n;
    }
  }
  NO_TAIL_CALL;
}
NOINLINE void PathLarge(Result* r, std::vector<void*>* keep) {
  for (size_t i = 0; r->allocated < kTotal; i++) {
    size_t n = SizeLarge(i);
    void* p = AllocateLarge(n);
    r->allocated += n;
    if (i % 2) {
      free(p);
    } else {
      keep->push_back(p);
      r->held += n;
    }
  }
  NO_TAIL_CALL;
}

}  // namespace heapprof_test

int main() {
  using namespace heapprof_test;
  Result r[3];
  // Reserved up front so the vectors' growth is not part of the measured paths.
  std::vector<void*> keep[3];
  for (auto& k : keep) k.reserve(kTotal / 16);
  std::thread t0(PathSmall, &r[0], &keep[0]);
  std::thread t1(PathMedium, &r[1], &keep[1]);
  std::thread t2(PathLarge, &r[2], &keep[2]);
  t0.join();
  t1.join();
  t2.join();
  const char* names[] = {"PathSmall", "PathMedium", "PathLarge"};
  for (int i = 0; i < 3; i++) printf("%s %zu %zu\n", names[i], r[i].allocated, r[i].held);
  fflush(stdout);
  // The held half is still live when the process exits: the last dump must show it.
  _exit(0);
}
