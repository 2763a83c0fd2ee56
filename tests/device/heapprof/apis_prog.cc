// Every allocation API the heap profiler interposes, used the way programs use them, with
// their results checked: run under fathom-heapprofd (at --interval 1 every block is
// sampled, so every block is a padded one) it must behave exactly as it does without the
// profiler. Blocks cross threads, fork, realloc, libc's own allocations (strdup, getline,
// open_memstream, asprintf) and malloc_usable_size. Prints "apis ok" and exits 0; any
// failed check prints it and exits 1. Two blocks are kept on purpose (LeakSmall: 12345
// bytes, LeakPageAligned: 8192 bytes at a page boundary); everything Exercise allocates
// is freed.
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <new>
#include <string>
#include <thread>
#include <vector>

namespace heapprof_apis {

int g_failures = 0;
#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "apis_prog:%d: failed: %s\n", __LINE__, #cond); \
      g_failures++;                                                   \
    }                                                                 \
  } while (0)

bool Aligned(const void* p, size_t a) { return reinterpret_cast<uintptr_t>(p) % a == 0; }

void Fill(void* p, size_t n, unsigned char seed) {
  auto* b = static_cast<unsigned char*>(p);
  for (size_t i = 0; i < n; i++) b[i] = static_cast<unsigned char>(seed + i * 7);
}
bool Holds(const void* p, size_t n, unsigned char seed) {
  auto* b = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < n; i++)
    if (b[i] != static_cast<unsigned char>(seed + i * 7)) return false;
  return true;
}

__attribute__((noinline)) void MallocAndUsableSize() {
  std::vector<void*> blocks;
  for (size_t n : {1, 8, 15, 16, 24, 100, 1000, 4095, 4096, 4097, 70000, 300000}) {
    void* p = malloc(n);
    CHECK(p && Aligned(p, 16));
    size_t usable = malloc_usable_size(p);
    CHECK(usable >= n);
    // The whole usable size is the program's: writing it must not corrupt the heap.
    Fill(p, usable, static_cast<unsigned char>(n));
    blocks.push_back(p);
  }
  for (void* p : blocks) free(p);
  free(nullptr);
  CHECK(malloc_usable_size(nullptr) == 0);
  void* zero = malloc(0);  // glibc returns a unique pointer
  free(zero);
}

__attribute__((noinline)) void Calloc() {
  for (size_t n : {1, 64, 5000, 200000}) {
    auto* p = static_cast<unsigned char*>(calloc(n, 3));
    CHECK(p != nullptr);
    bool zero = true;
    for (size_t i = 0; i < n * 3; i++) zero &= p[i] == 0;
    CHECK(zero);
    free(p);
  }
  errno = 0;
  volatile size_t huge = SIZE_MAX / 2;  // volatile: the compiler warns of the overflow
  CHECK(calloc(huge, 3) == nullptr && errno == ENOMEM);
}

__attribute__((noinline)) void Realloc() {
  void* p = realloc(nullptr, 10);
  Fill(p, 10, 1);
  for (size_t n : {20, 5, 3000, 100, 250000, 64}) {
    size_t keep = n < 5 ? n : 5;
    p = realloc(p, n);
    CHECK(p && Holds(p, keep, 1));
    Fill(p, n, 1);
  }
  CHECK(realloc(p, 0) == nullptr);  // glibc: frees p
  void* q = malloc(100);
  Fill(q, 100, 9);
  void* r = reallocarray(q, 50, 4);
  CHECK(r && Holds(r, 100, 9));
  free(r);
}

__attribute__((noinline)) void AlignedFamily() {
  for (size_t align : {8, 16, 32, 64, 256, 4096, 65536}) {
    void* a = memalign(align, 1000);
    CHECK(a && Aligned(a, align));
    Fill(a, 1000, 3);
    void* b = aligned_alloc(align, align * 2);
    CHECK(b && Aligned(b, align));
    Fill(b, align * 2, 4);
    void* c = nullptr;
    CHECK(posix_memalign(&c, align, 77) == 0 && c && Aligned(c, align));
    Fill(c, 77, 5);
    CHECK(malloc_usable_size(a) >= 1000 && malloc_usable_size(b) >= align * 2);
    // realloc of an aligned block keeps the contents (alignment is not promised).
    a = realloc(a, 5000);
    CHECK(a && Holds(a, 1000, 3));
    free(a);
    free(b);
    free(c);
  }
  void* bad = nullptr;
  CHECK(posix_memalign(&bad, 24, 10) == EINVAL);
  long page = sysconf(_SC_PAGESIZE);
  void* v = valloc(100);
  CHECK(v && Aligned(v, static_cast<size_t>(page)));
  Fill(v, 100, 6);
  void* pv = pvalloc(100);
  CHECK(pv && Aligned(pv, static_cast<size_t>(page)) &&
        malloc_usable_size(pv) >= static_cast<size_t>(page));
  Fill(pv, static_cast<size_t>(page), 7);
  free(v);
  free(pv);
}

struct alignas(128) Wide {
  char bytes[300];
};

__attribute__((noinline)) void CppOperators() {
  auto* s = new std::string(1000, 'x');
  CHECK(s->size() == 1000);
  delete s;
  int* arr = new int[5000];
  arr[4999] = 1;
  delete[] arr;
  Wide* w = new Wide;
  CHECK(Aligned(w, 128));
  delete w;
  Wide* ws = new Wide[3];
  CHECK(Aligned(ws, 128));
  delete[] ws;
  int* nt = new (std::nothrow) int[100];
  CHECK(nt != nullptr);
  delete[] nt;
  std::vector<int> v;
  for (int i = 0; i < 100000; i++) v.push_back(i);
  CHECK(v[99999] == 99999);
}

__attribute__((noinline)) void LibcOwnAllocations() {
  char* d = strdup("a string libc copies with its malloc");
  CHECK(d && strlen(d) == 36);
  free(d);
  // getline grows our buffer with libc's realloc.
  char text[] = "short\na much longer second line that needs a bigger buffer than 4 bytes\n";
  FILE* f = fmemopen(text, sizeof text - 1, "r");
  size_t cap = 4;
  char* line = static_cast<char*>(malloc(cap));
  CHECK(getline(&line, &cap, f) == 6);
  CHECK(getline(&line, &cap, f) > 60 && strncmp(line, "a much longer", 13) == 0);
  free(line);
  fclose(f);
  char* buf = nullptr;
  size_t len = 0;
  FILE* m = open_memstream(&buf, &len);
  for (int i = 0; i < 2000; i++) fprintf(m, "%d,", i);
  fclose(m);
  CHECK(len > 5000 && strncmp(buf, "0,1,2,", 6) == 0);
  free(buf);
  char* formatted = nullptr;
  CHECK(asprintf(&formatted, "%s-%d", "x", 42) == 4 && strcmp(formatted, "x-42") == 0);
  free(formatted);
}

__attribute__((noinline)) void AcrossThreads() {
  std::vector<void*> made(1000);
  std::thread t([&] {
    for (size_t i = 0; i < made.size(); i++) {
      made[i] = malloc(32 + i);
      Fill(made[i], 32 + i, static_cast<unsigned char>(i));
    }
  });
  t.join();
  bool intact = true;
  for (size_t i = 0; i < made.size(); i++) {
    intact &= Holds(made[i], 32 + i, static_cast<unsigned char>(i));
    free(made[i]);
  }
  CHECK(intact);
}

__attribute__((noinline)) void AcrossFork() {
  std::vector<void*> made;
  for (size_t n : {40, 5000, 100000}) made.push_back(malloc(n));
  made.push_back(memalign(4096, 4096));
  pid_t child = fork();
  if (child == 0) {
    // The child frees and reallocates the parent's blocks, and allocates its own.
    made[0] = realloc(made[0], 80);
    for (void* p : made) free(p);
    void* own = malloc(123);
    free(own);
    _exit(0);
  }
  int status = 0;
  CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0);
  for (void* p : made) free(p);
}

__attribute__((noinline)) void Exercise() {
  MallocAndUsableSize();
  Calloc();
  Realloc();
  AlignedFamily();
  CppOperators();
  LibcOwnAllocations();
  AcrossThreads();
  AcrossFork();
  asm volatile("" ::: "memory");  // no tail call: AcrossFork keeps Exercise as its caller
}

// Not tail calls: the allocation's caller must stay these frames.
__attribute__((noinline)) void* LeakSmall() {
  void* p = malloc(12345);
  asm volatile("" : : "r"(p) : "memory");
  return p;
}
__attribute__((noinline)) void* LeakPageAligned() {
  void* p = memalign(4096, 8192);
  asm volatile("" : : "r"(p) : "memory");
  return p;
}

}  // namespace heapprof_apis

int main() {
  using namespace heapprof_apis;
  Exercise();
  void* kept[2] = {LeakSmall(), LeakPageAligned()};
  Fill(kept[0], 12345, 1);
  Fill(kept[1], 8192, 2);
  CHECK(Aligned(kept[1], 4096));
  printf("%s\n", g_failures ? "apis FAILED" : "apis ok");
  fflush(stdout);
  return g_failures ? 1 : 0;
}
