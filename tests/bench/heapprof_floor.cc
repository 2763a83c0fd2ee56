// libfathom_heapprof_floor.so: the cheapest possible LD_PRELOAD interposer, for
// heapprof_bench's "LD_PRELOAD forwarder (floor)" row. Every hook is a bare tail jump to
// glibc's real allocator, so the row measures what interposing itself costs (one more
// call through the PLT/GOT per malloc and free, a different code layout) and separates
// that from what the profiler's own sampling decision, free filter, unwinds and ring
// writes add. Nothing else: no state, no constructor.
#include <errno.h>
#include <stddef.h>

extern "C" {
void* __libc_malloc(size_t);
void __libc_free(void*);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void* __libc_valloc(size_t);
void* __libc_pvalloc(size_t);

#define EXPORT __attribute__((visibility("default")))

EXPORT void* malloc(size_t n) { return __libc_malloc(n); }
EXPORT void free(void* p) { __libc_free(p); }
EXPORT void* calloc(size_t a, size_t b) { return __libc_calloc(a, b); }
EXPORT void* realloc(void* p, size_t n) { return __libc_realloc(p, n); }
EXPORT void* memalign(size_t a, size_t n) { return __libc_memalign(a, n); }
EXPORT void* aligned_alloc(size_t a, size_t n) { return __libc_memalign(a, n); }
EXPORT void* valloc(size_t n) { return __libc_valloc(n); }
EXPORT void* pvalloc(size_t n) { return __libc_pvalloc(n); }
EXPORT int posix_memalign(void** out, size_t a, size_t n) {
  if (a < sizeof(void*) || (a & (a - 1)) != 0) return EINVAL;
  void* p = __libc_memalign(a, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
}
