// A short program: 100 blocks of 64 bytes allocated right at the start of main and kept
// until exit. Under the profiler at --interval 1 every one of them must be in the profile,
// however much this thread allocated before the profiler connected (libstdc++'s start-up
// pool, the dynamic loader).
#include <cstdio>
#include <cstdlib>

__attribute__((noinline)) void* AllocateAtStart() {
  void* p = malloc(64);
  asm volatile("" ::: "memory");  // not a tail call: this frame is on the stack
  return p;
}

int main() {
  static void* keep[100];
  for (void*& p : keep) p = AllocateAtStart();
  for (void* p : keep)
    if (!p) return 1;
  printf("startup ok\n");
  return 0;
}
