// A small program whose frames the symbolize tests resolve: built with -g and
// a GNU build id, allocating through a known call path. SYMBOLS_OTHER_BUILD
// makes a second binary with the same file name but a different build id.
#include <cstdio>
#include <cstdlib>
#include <cstring>

extern "C" {
// Keeps the allocations alive and the calls from being optimised away.
volatile void* g_sink[64];
}

__attribute__((noinline)) void* AllocateInLeaf(int n) {
  void* p = malloc(static_cast<size_t>(n));
  memset(p, 1, static_cast<size_t>(n));
  return p;
}

__attribute__((noinline)) void MiddleFrame(int rounds) {
  for (int i = 0; i < rounds; ++i) g_sink[i % 64] = AllocateInLeaf(64 * 1024);
}

int main(int argc, char** argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 32;
#ifdef SYMBOLS_OTHER_BUILD
  printf("other build\n");
#endif
  MiddleFrame(rounds);
  return 0;
}
