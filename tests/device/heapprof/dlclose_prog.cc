// Loads module A (dlclose_lib.S), allocates through it, unloads it, loads module B at the
// same address and allocates through B on this thread and on a new one. The profile must
// show B's allocations in B's frames, unwound with B's rules. Exits 3 when B did not land
// where A was (nothing to test then). With a third argument "exit" (or "_exit") it exits
// right after B's allocations, B still loaded, through exit (or _exit).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

using AllocFn = void* (*)();

namespace {

__attribute__((noinline)) void AllocateThrough(AllocFn fn, int n, std::vector<void*>* keep) {
  for (int i = 0; i < n; i++) keep->push_back(fn());
  asm volatile("" ::: "memory");  // not a tail call: this frame stays on the stack
}

AllocFn Load(const char* path, void** handle) {
  *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!*handle) {
    fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
    exit(2);
  }
  return reinterpret_cast<AllocFn>(dlsym(*handle, "fathom_dl_alloc"));
}

}  // namespace

int main(int argc, char** argv) {
  std::string how = argc == 4 ? argv[3] : "";
  bool exit_loaded = how == "exit" || how == "_exit";
  if (argc != 3 && !exit_loaded) {
    fprintf(stderr, "usage: %s MODULE_A MODULE_B [exit]\n", argv[0]);
    return 2;
  }
  std::vector<void*> keep, keep_thread;
  keep.reserve(1000);
  keep_thread.reserve(1000);
  void* a = nullptr;
  AllocFn alloc_a = Load(argv[1], &a);
  AllocateThrough(alloc_a, 100, &keep);
  dlclose(a);
  void* b = nullptr;
  AllocFn alloc_b = Load(argv[2], &b);
  if (alloc_b != alloc_a) {
    fprintf(stderr, "module B at %p, A was at %p\n", reinterpret_cast<void*>(alloc_b),
            reinterpret_cast<void*>(alloc_a));
    return 3;
  }
  AllocateThrough(alloc_b, 100, &keep);  // this thread remembers its walk through A
  std::thread t([&] { AllocateThrough(alloc_b, 100, &keep_thread); });  // the shared rules
  t.join();
  if (how == "_exit") _exit(0);  // no destructors, no flush
  if (exit_loaded) return 0;     // the blocks and module B are left to the exit
  for (void* p : keep) free(p);
  for (void* p : keep_thread) free(p);
  dlclose(b);
  return 0;
}
