// libfathom_heapprof.so: the in-process half of the native heap profiler, loaded with
// LD_PRELOAD. It interposes the malloc family and C++ operator new/delete, samples
// allocations (sampler.h), unwinds sampled ones and appends records to a shared-memory
// ring that fathom-heapprofd drains (wire.h).
//
// Cost model (why it looks like this): an unsampled malloc costs the real malloc plus one
// subtract and branch on thread-local state (initial-exec TLS: no __tls_get_addr); an
// unsampled free costs a compare of the 8 bytes below the pointer with a tag, on the
// cache line the real free reads next anyway. Sampled blocks are padded and carry that
// tag (see "sampled blocks" below), so no set of sampled addresses is kept or looked up.
// The real allocator is called directly (__libc_malloc on glibc), not through a dlsym
// pointer. Only sampled allocations and their frees take the ring lock, unwind and
// write to the ring. Nothing on these paths allocates.
//
// Reentrancy: a thread-local flag makes every allocation made while the profiler itself
// runs (libunwind, dlopen, pthread_getattr_np) go straight to the real allocator.
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include "device/heapprof/frame_rules.h"
#include "device/heapprof/sampled_set.h"
#include "device/heapprof/sampler.h"
#include "device/heapprof/wire.h"

namespace fathom::heapprof {
namespace {

#define TLS __thread __attribute__((tls_model("initial-exec")))

// ---- real allocator -------------------------------------------------------------------

#if defined(__GLIBC__)
extern "C" {
void* __libc_malloc(size_t);
void __libc_free(void*);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void* __libc_valloc(size_t);
void* __libc_pvalloc(size_t);
}
inline void* RealMalloc(size_t n) { return __libc_malloc(n); }
inline void RealFree(void* p) { __libc_free(p); }
inline void* RealCalloc(size_t a, size_t b) { return __libc_calloc(a, b); }
inline void* RealRealloc(void* p, size_t n) { return __libc_realloc(p, n); }
inline void* RealMemalign(size_t a, size_t n) { return __libc_memalign(a, n); }
inline void* RealValloc(size_t n) { return __libc_valloc(n); }
inline void* RealPvalloc(size_t n) { return __libc_pvalloc(n); }
#else
// Bionic/musl: the next definitions in lookup order. Resolved on first use.
template <typename F>
F Next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}
inline void* RealMalloc(size_t n) {
  static auto f = Next<void* (*)(size_t)>("malloc");
  return f(n);
}
inline void RealFree(void* p) {
  static auto f = Next<void (*)(void*)>("free");
  f(p);
}
inline void* RealCalloc(size_t a, size_t b) {
  static auto f = Next<void* (*)(size_t, size_t)>("calloc");
  return f(a, b);
}
inline void* RealRealloc(void* p, size_t n) {
  static auto f = Next<void* (*)(void*, size_t)>("realloc");
  return f(p, n);
}
inline void* RealMemalign(size_t a, size_t n) {
  static auto f = Next<void* (*)(size_t, size_t)>("memalign");
  return f(a, n);
}
inline void* RealValloc(size_t n) { return RealMemalign(static_cast<size_t>(getpagesize()), n); }
inline void* RealPvalloc(size_t n) {
  size_t page = static_cast<size_t>(getpagesize());
  return RealMemalign(page, (n + page - 1) / page * page);
}
#endif

// ---- global state -----------------------------------------------------------------------

std::atomic<bool> g_active{false};             // connected and sampling
std::atomic<uint32_t> g_generation{1};         // bumped when g_active changes
std::atomic<bool> g_connect_requested{false};  // signal asked us to connect
uint64_t g_interval = 4096;
bool g_block = false;
int g_sock = -1;
RingHeader* g_ring = nullptr;
uint8_t* g_ring_data = nullptr;
// A power of two: ring offsets are masked, not divided (a div is tens of cycles).
uint64_t g_ring_size = 0;
uintptr_t g_self_lo = 0, g_self_hi = 0;  // our own text: frames to skip
bool g_follow_children = false;
char g_socket_path[108];

constexpr uint64_t kIdleCheckBytes = 256u << 10;  // inactive threads look for a request this often

// ---- sampled blocks ---------------------------------------------------------------------
//
// A sampled allocation is served padded: the real block starts `offset` bytes below the
// pointer the program gets, and the 16 bytes just below that pointer hold the offset and
// a tag, g_cookie ^ pointer. A free tells a sampled block by its tag: those bytes share
// the cache line the real free reads next (glibc's chunk size field sits there), so the
// check adds no miss, and there is no set of sampled addresses to keep under the lock
// or to look up on every free (that set and its filter bitmap were most of the cost of
// a sample and of an unsampled free). Below an unsampled pointer lie the allocator's
// header or the previous block's last bytes: matching the tag by chance needs a 64-bit
// coincidence with a per-process random cookie.
// The bytes below a page-aligned pointer are not read: with some allocators (jemalloc's
// huge blocks) the page before may be unmapped. Sampled blocks whose pointer is
// page-aligned (memalign(4096), valloc, or by chance) are filed in a small exact set
// instead (sampled_set.h), which a free of a page-aligned pointer consults only when its
// filter bit is set. Sampled blocks stay padded after a session ends or across fork:
// every free and realloc unwraps them, profiled or not.
struct BlockHeader {
  uint64_t offset;  // from the real block to the program's pointer
  uint64_t tag;     // g_cookie ^ the program's pointer; right below it
};
constexpr size_t kHeaderBytes = sizeof(BlockHeader);  // 16: keeps malloc's alignment
// Pointers aligned to 4 KiB are not read below: conservative for bigger pages too.
constexpr uintptr_t kPageMask = 4095;
constexpr uint32_t kPageShift = 12;

// Made random in the constructor, before anything is sampled (nothing is before it).
uint64_t g_cookie = 0x9e3779b97f4a7c15ull;

SampledSet g_aligned;  // page-aligned sampled blocks, under g_aligned_lock
std::atomic<uint32_t> g_aligned_lock{0};

// ---- per-thread state -------------------------------------------------------------------

TLS bool t_in_profiler;
TLS uint32_t t_generation;
TLS uint32_t t_tid;
TLS Sampler t_sampler;  // trivially constructible: zero state means "uninitialised"

struct ReentryGuard {
  ReentryGuard() { t_in_profiler = true; }
  ~ReentryGuard() { t_in_profiler = false; }
};

uint64_t NowNs(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// ---- ring -------------------------------------------------------------------------------

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  asm volatile("yield");
#endif
}

// Test-and-test-and-set: waiters spin on a shared read of the line instead of stealing
// it from the holder with every exchange; they yield only after a few microseconds (the
// lock is held to bump the ring's write position, far less unless the holder was
// preempted).
void Lock() {
  if (!g_ring->lock.exchange(1, std::memory_order_acquire)) return;
  uint64_t start = NowNs(CLOCK_MONOTONIC);
  for (int spins = 0;;) {
    while (g_ring->lock.load(std::memory_order_relaxed)) {
      CpuRelax();
      if (++spins > 2000) {
        sched_yield();
        spins = 0;
      }
    }
    if (!g_ring->lock.exchange(1, std::memory_order_acquire)) break;
  }
  g_ring->spin_blocked_ns.fetch_add(NowNs(CLOCK_MONOTONIC) - start, std::memory_order_relaxed);
}
void Unlock() { g_ring->lock.store(0, std::memory_order_release); }

// Before Lock(): starts fetching, for writing, the ring lines the next record goes to
// (last written by another thread or zeroed by the collector, most likely): they are on
// their way for Commit while the lock is taken. Hints only: the racy read of write_pos
// may be stale.
void PrefetchForRecord(size_t bytes) {
  uint64_t off = g_ring->write_pos.load(std::memory_order_relaxed) & (g_ring_size - 1);
  for (size_t i = 0; i < bytes && off + i < g_ring_size; i += 64)
    __builtin_prefetch(g_ring_data + off + i, 1);
}

void CopyIn(uint64_t pos, const void* src, size_t n) {
  uint64_t off = pos & (g_ring_size - 1);
  size_t first = static_cast<size_t>(g_ring_size - off) < n ? g_ring_size - off : n;
  memcpy(g_ring_data + off, src, first);
  memcpy(g_ring_data, static_cast<const uint8_t*>(src) + first, n - first);
}

// Reserves n bytes for a record under the lock the caller holds: the reservation order
// is the ring's order. The record is written after Unlock() (Commit), so the lock is held
// for this bump only, not for copying the frames into lines that
// are most likely in the collector's cache. With block_client the writer waits (lock
// released) for the collector to make room, at most 2 s. False: dropped, counted.
bool ReserveLocked(size_t n, uint64_t* pos) {
  uint64_t w = g_ring->write_pos.load(std::memory_order_relaxed);
  uint64_t deadline = 0;
  while (w + n - g_ring->read_pos.load(std::memory_order_acquire) > g_ring_size) {
    if (!g_block) {
      g_ring->overruns.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    uint64_t now = NowNs(CLOCK_MONOTONIC);
    if (!deadline) deadline = now + 2000000000ull;
    if (now > deadline || !g_active.load(std::memory_order_relaxed)) {
      g_ring->overruns.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    Unlock();
    timespec ts{0, 100000};
    nanosleep(&ts, nullptr);
    g_ring->spin_blocked_ns.fetch_add(100000, std::memory_order_relaxed);
    Lock();
    w = g_ring->write_pos.load(std::memory_order_relaxed);
  }
  g_ring->write_pos.store(w + n, std::memory_order_release);
  *pos = w;
  return true;
}

// Writes a reserved record (head starts with its RecordHeader) without the lock. The
// collector reads a record only once its type is non-zero (wire.h): the type is stored
// last, with release ordering, after every other byte.
void Commit(uint64_t pos, const void* head, size_t head_n, const void* tail, size_t tail_n) {
  const auto* h = static_cast<const RecordHeader*>(head);
  RecordHeader unpublished{0, h->bytes};
  CopyIn(pos, &unpublished, sizeof unpublished);
  CopyIn(pos + sizeof unpublished, static_cast<const uint8_t*>(head) + sizeof unpublished,
         head_n - sizeof unpublished);
  if (tail_n) CopyIn(pos + head_n, tail, tail_n);
  // Records are 8-byte aligned and the ring size a power of two: no header wraps.
  auto* type = reinterpret_cast<uint32_t*>(g_ring_data + (pos & (g_ring_size - 1)));
  __atomic_store_n(type, h->type, __ATOMIC_RELEASE);
}

// A record without frames (a free, code unloaded): reserved, then written unlocked. A full
// ring drops it (counted) unless block_client.
template <typename Record>
inline void WriteRecord(const Record& rec) {
  PrefetchForRecord(sizeof rec);
  Lock();
  uint64_t pos = 0;
  bool reserved = ReserveLocked(sizeof rec, &pos);
  Unlock();
  if (reserved) Commit(pos, &rec, sizeof rec, nullptr, 0);
}

// ---- sampled blocks: wrapping --------------------------------------------------------

void LockAligned() {
  while (g_aligned_lock.exchange(1, std::memory_order_acquire))
    while (g_aligned_lock.load(std::memory_order_relaxed)) CpuRelax();
}
void UnlockAligned() { g_aligned_lock.store(0, std::memory_order_release); }

using RealUsableFn = size_t (*)(void*);
RealUsableFn g_real_usable = nullptr;  // the real malloc_usable_size, found in the constructor

size_t RealUsable(void* p) {
  if (!g_real_usable) {  // called before our constructor ran
    ReentryGuard guard;
    g_real_usable = reinterpret_cast<RealUsableFn>(dlsym(RTLD_NEXT, "malloc_usable_size"));
  }
  return g_real_usable ? g_real_usable(p) : 0;
}

uint64_t RandomCookie() {
  uint64_t c = 0;
  if (syscall(SYS_getrandom, &c, sizeof c, 1 /*GRND_NONBLOCK*/) != static_cast<long>(sizeof c))
    c = NowNs(CLOCK_MONOTONIC) * 0x9e3779b97f4a7c15ull ^
        (uint64_t{static_cast<uint32_t>(getpid())} << 32) ^ reinterpret_cast<uintptr_t>(&c);
  return c ? c : 1;
}

BlockHeader* HeaderBelow(uintptr_t p) { return reinterpret_cast<BlockHeader*>(p - kHeaderBytes); }

// `take` (free's test): a page-aligned sampled block also leaves the set, in the same
// lock hold that finds it (FreeSampled is then told so). Nobody else can be handed that
// address before the real free.
__attribute__((noinline)) bool IsSampledPageAligned(uintptr_t p, bool take) {
  LockAligned();
  bool in = take ? g_aligned.Erase(p) : g_aligned.Contains(p);
  UnlockAligned();
  return in;
}

// One load and a compare for every pointer that is not page-aligned.
inline bool IsSampled(uintptr_t p, bool take = false) {
  if (__builtin_expect((p & kPageMask) != 0, 1)) return HeaderBelow(p)->tag == (g_cookie ^ p);
  return p && g_aligned.MaybeContains(p) && IsSampledPageAligned(p, take);
}

// Turns a real block into a sampled one. nullptr (the real block released) when there
// was none or a page-aligned pointer cannot be filed: the caller then allocates unsampled.
void* Wrap(void* real, size_t offset) {
  if (!real) return nullptr;
  uintptr_t p = reinterpret_cast<uintptr_t>(real) + offset;
  if (!(p & kPageMask)) {
    LockAligned();
    bool filed = g_aligned.Insert(p);
    UnlockAligned();
    if (!filed) {
      RealFree(real);
      return nullptr;
    }
  }
  BlockHeader* h = HeaderBelow(p);
  h->offset = offset;
  h->tag = g_cookie ^ p;
  return reinterpret_cast<void*>(p);
}

// A sampled block of n bytes aligned to `align` (0: malloc's alignment), zeroed if asked.
void* AllocSampled(size_t n, size_t align, bool zero) {
  while (align & (align - 1)) align += align & -align;  // as glibc: the next power of two
  size_t offset = align > kHeaderBytes ? align : kHeaderBytes;
  size_t total = 0;
  if (__builtin_add_overflow(n, offset, &total)) return nullptr;
  void* real = align > kHeaderBytes ? RealMemalign(align, total)
               : zero               ? RealCalloc(1, total)
                                    : RealMalloc(total);
  return Wrap(real, offset);
}

size_t UsableSampled(uintptr_t p) {
  uint64_t offset = HeaderBelow(p)->offset;
  return RealUsable(reinterpret_cast<void*>(p - offset)) - offset;
}

// The tag is cleared first: the memory, once reused, never looks sampled. A page-aligned
// block leaves the set here unless free's test took it out already.
void ReleaseSampled(uintptr_t p, bool taken) {
  BlockHeader* h = HeaderBelow(p);
  void* real = reinterpret_cast<void*>(p - h->offset);
  h->tag = 0;
  if (!(p & kPageMask) && !taken) {
    LockAligned();
    g_aligned.Erase(p);
    UnlockAligned();
  }
  RealFree(real);
}

// ---- unwinding --------------------------------------------------------------------------

using UnwBacktrace = int (*)(void**, int);
UnwBacktrace g_unw_backtrace = nullptr;  // libunwind (nongnu), found with dlopen
// unw_flush_cache(unw_local_addr_space, 0, 0) after an unload: libunwind's address-space
// caches outlive a dlclose too. Its per-thread unw_backtrace trace cache is not among the
// ones this reaches (measured: a thread that walked the unloaded code still gets its frame).
using UnwFlushCache = void (*)(void*, uintptr_t, uintptr_t);
UnwFlushCache g_unw_flush_cache = nullptr;
void* g_unw_local_addr_space = nullptr;

TLS uintptr_t t_stack_lo, t_stack_hi;

void StackBounds() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* addr = nullptr;
  size_t size = 0;
  pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  t_stack_lo = reinterpret_cast<uintptr_t>(addr);
  t_stack_hi = t_stack_lo + size;
}

// Frame-pointer walk, each step checked against the thread's stack bounds.
int FramePointerUnwind(uint64_t* pcs, int max) {
  if (!t_stack_hi) StackBounds();
  uintptr_t fp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  int n = 0;
  while (n < max && fp >= t_stack_lo && fp + 16 <= t_stack_hi && (fp & 7) == 0) {
    uintptr_t next = reinterpret_cast<uintptr_t*>(fp)[0];
    uintptr_t ret = reinterpret_cast<uintptr_t*>(fp)[1];
    if (!ret) break;
    pcs[n++] = ret;
    if (next <= fp) break;
    fp = next;
  }
  return n;
}

constexpr int kRawFrames = kMaxFrames + 16;  // room for our own frames, cut below

#if defined(__x86_64__)
// The CFI walk (frame_rules.h): each frame's caller from its cached rule. Our own frames
// keep frame pointers, so the walk starts from CfiUnwind's. -1: libunwind's turn.
FrameRuleCache g_rules;
bool g_cfi_unwind = false;  // libunwind is there to fall back on, and not turned off
bool g_verify_unwind = false;
std::atomic<uint64_t> g_verified{0}, g_fell_back{0};  // counted in verify mode only

// 384 bytes of static TLS: with the rest of ours under the 512 bytes glibc keeps for
// libraries dlopen'ed with initial-exec TLS (a preload does not need them).
constexpr int kMemoFrames = 24;
TLS WalkMemo t_memo[kMemoFrames];

TLS uint32_t t_memo_epoch;  // g_rules.epoch() when t_memo was started

__attribute__((noinline)) int CfiUnwind(uint64_t* pcs, int max) {
  if (!t_stack_hi) StackBounds();
  return WalkStack(g_rules, reinterpret_cast<uintptr_t>(__builtin_frame_address(0)), t_stack_lo,
                   t_stack_hi, t_memo, &t_memo_epoch, kMemoFrames, pcs, max);
}

// FATHOM_HEAPPROF_VERIFY_UNWIND=1 (tests): every sample is unwound both ways, and a
// difference is written to stderr ("fathom-heapprof: unwind mismatch ...").
void VerifyUnwind(const uint64_t* cfi, int cfi_n) {
  uint64_t lu[kRawFrames];
  int lu_n = g_unw_backtrace(reinterpret_cast<void**>(lu), kRawFrames);
  // Both start inside the profiler (libunwind possibly in itself): compare from the first
  // frame outside it.
  auto outside = [](const uint64_t* f, int n, void* unw_self) {
    int i = 0;
    Dl_info info;
    while (i < n && ((f[i] >= g_self_lo && f[i] < g_self_hi) ||
                     (dladdr(reinterpret_cast<void*>(f[i]), &info) && info.dli_fbase == unw_self)))
      i++;
    return i;
  };
  Dl_info unw;
  void* unw_self = dladdr(reinterpret_cast<void*>(g_unw_backtrace), &unw) ? unw.dli_fbase : nullptr;
  int a = outside(cfi, cfi_n, unw_self), b = outside(lu, lu_n, unw_self);
  // A walk that filled the buffer stopped early: only the frames both have are compared.
  bool truncated = cfi_n == kRawFrames || lu_n == kRawFrames;
  int common = cfi_n - a < lu_n - b ? cfi_n - a : lu_n - b;
  bool same = truncated || cfi_n - a == lu_n - b;
  for (int i = 0; same && i < common; i++) same = cfi[a + i] == lu[b + i];
  g_verified.fetch_add(1, std::memory_order_relaxed);
  if (same) return;
  char line[4096];
  int len = snprintf(line, sizeof line, "fathom-heapprof: unwind mismatch cfi:");
  for (int i = a; i < cfi_n && len < 2000; i++)
    len += snprintf(line + len, sizeof line - static_cast<size_t>(len), " %lx",
                    static_cast<unsigned long>(cfi[i]));
  len += snprintf(line + len, sizeof line - static_cast<size_t>(len), " libunwind:");
  for (int i = b; i < lu_n && len < 4000; i++)
    len += snprintf(line + len, sizeof line - static_cast<size_t>(len), " %lx",
                    static_cast<unsigned long>(lu[i]));
  // At most ~4020 characters were written above (each address is up to 17).
  line[len] = '\n';
  write(2, line, static_cast<size_t>(len) + 1);
}

__attribute__((destructor)) void ReportVerifiedUnwinds() {
  if (!g_verify_unwind) return;
  char line[160];
  int len = snprintf(line, sizeof line,
                     "fathom-heapprof: unwinds verified %llu, fell back to libunwind %llu\n",
                     static_cast<unsigned long long>(g_verified.load()),
                     static_cast<unsigned long long>(g_fell_back.load()));
  if (len > 0) write(2, line, static_cast<size_t>(len));
}
#endif

// Unwinds into raw[kRawFrames]; returns how many frames follow ours, from raw[*first].
int Unwind(uint64_t* raw, int* first) {
  int n = -1;
#if defined(__x86_64__)
  if (g_cfi_unwind) {
    n = CfiUnwind(raw, kRawFrames);
    if (g_verify_unwind && n >= 0) VerifyUnwind(raw, n);
    if (g_verify_unwind && n < 0) g_fell_back.fetch_add(1, std::memory_order_relaxed);
  }
#endif
  if (n < 0)
    n = g_unw_backtrace ? g_unw_backtrace(reinterpret_cast<void**>(raw), kRawFrames)
                        : FramePointerUnwind(raw, kRawFrames);
  int skip = 0;
  while (skip < n && raw[skip] >= g_self_lo && raw[skip] < g_self_hi) skip++;
  *first = skip;
  return n - skip < static_cast<int>(kMaxFrames) ? n - skip : static_cast<int>(kMaxFrames);
}

// ---- connection -------------------------------------------------------------------------

uint32_t Tid() {
  if (!t_tid) t_tid = static_cast<uint32_t>(syscall(SYS_gettid));
  return t_tid;
}

// This thread's sampler for the session `gen` (the interval, or the idle check when
// there is no session), with a fresh seed.
void ResetThreadSampler(uint32_t gen) {
  t_generation = gen;
  uint64_t seed =
      NowNs(CLOCK_MONOTONIC) ^ (uint64_t{Tid()} << 32) ^ reinterpret_cast<uintptr_t>(&gen);
  t_sampler.Reset(g_active.load() ? g_interval : kIdleCheckBytes, seed);
}

void Deactivate() {
  g_active.store(false, std::memory_order_release);
  g_generation.fetch_add(1, std::memory_order_relaxed);
}

bool Connect(const char* path, bool from_startup) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path, sizeof(addr.sun_path) - 1);
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    close(fd);
    return false;
  }
  Hello hello{kWireVersion, static_cast<uint32_t>(getpid()), from_startup, 0};
  Config config{};
  if (send(fd, &hello, sizeof hello, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof hello) ||
      recv(fd, &config, sizeof config, MSG_WAITALL) != static_cast<ssize_t>(sizeof config) ||
      config.interval_bytes == 0) {
    close(fd);
    return false;
  }
  uint64_t ring_bytes = RingBytesFor(config.interval_bytes);
  if (const char* e = getenv("FATHOM_HEAPPROF_RING_KB")) {
    uint64_t want = strtoull(e, nullptr, 10) << 10;
    if (want >= 4096 && want <= (1ull << 30)) ring_bytes = want;
  }
  while (ring_bytes & (ring_bytes - 1)) ring_bytes += ring_bytes & -ring_bytes;  // round up
  int mfd = static_cast<int>(syscall(SYS_memfd_create, "fathom-heapprof", 1u /*MFD_CLOEXEC*/));
  size_t map_bytes = sizeof(RingHeader) + ring_bytes;
  void* mem = MAP_FAILED;
  if (mfd >= 0 && ftruncate(mfd, static_cast<off_t>(map_bytes)) == 0)
    mem = mmap(nullptr, map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
  if (mem == MAP_FAILED) {
    if (mfd >= 0) close(mfd);
    close(fd);
    return false;
  }
  RingOffer offer{ring_bytes};
  iovec iov{&offer, sizeof offer};
  char cbuf[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = cbuf;
  msg.msg_controllen = sizeof cbuf;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &mfd, sizeof(int));
  RingAccepted accepted{};
  bool ok =
      sendmsg(fd, &msg, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof offer) &&
      recv(fd, &accepted, sizeof accepted, MSG_WAITALL) == static_cast<ssize_t>(sizeof accepted) &&
      accepted.mapped == 1;
  close(mfd);
  if (!ok) {
    munmap(mem, map_bytes);
    close(fd);
    return false;
  }
  g_sock = fd;
  g_ring = static_cast<RingHeader*>(mem);
  g_ring_data = static_cast<uint8_t*>(mem) + sizeof(RingHeader);
  g_ring_size = ring_bytes;
  g_interval = config.interval_bytes;
  g_block = config.block_client != 0;
  g_active.store(true, std::memory_order_release);
  // The connecting thread samples from its next allocation on. Its countdown may be an
  // idle one (up to kIdleCheckBytes, from allocations made before: the loader's,
  // libstdc++'s start-up), which it would otherwise finish first: a short program lost
  // its first 256 KiB that way. Other threads take the new session at their next slow
  // path.
  ResetThreadSampler(g_generation.fetch_add(1, std::memory_order_relaxed) + 1);
  return true;
}

// Serialises connection attempts (constructor, signal request, forked child).
pthread_mutex_t g_connect_mu = PTHREAD_MUTEX_INITIALIZER;

void TryConnectOnRequest() {
  if (!g_connect_requested.exchange(false)) return;
  pthread_mutex_lock(&g_connect_mu);
  if (!g_active.load()) {
    char path[128];
    const char* dir = getenv("FATHOM_HEAPPROF_DIR");
    snprintf(path, sizeof path, "%s/fathom-heapprofd-%d.sock", dir ? dir : "/tmp",
             static_cast<int>(getpid()));
    Connect(path, false);
  }
  pthread_mutex_unlock(&g_connect_mu);
}

void OnConnectSignal(int) { g_connect_requested.store(true, std::memory_order_relaxed); }

// Fork: the locks are taken around fork so the child never inherits a held one. The
// child drops the parent's connection (its ring belongs to the parent); with
// follow-children it connects anew right away, otherwise it is not profiled. It keeps
// the parent's sampled blocks (and the set of page-aligned ones): its frees unwrap them.
void PrepareFork() {
  LockAligned();
  if (g_active.load()) Lock();
}
void ParentAfterFork() {
  if (g_active.load()) Unlock();
  UnlockAligned();
}
void ChildAfterFork() {
  UnlockAligned();
#if defined(__x86_64__)
  g_rules.AfterForkInChild();
#endif
  if (!g_active.load()) return;
  Unlock();
  Deactivate();
  munmap(g_ring, sizeof(RingHeader) + g_ring_size);
  g_ring = nullptr;
  close(g_sock);
  g_sock = -1;
  if (g_follow_children && g_socket_path[0]) {
    g_connect_requested.store(false);
    // Connecting needs only syscalls; do it right away so the child is complete.
    Connect(g_socket_path, true);
  }
}

// ---- code unloaded (dlclose) ----------------------------------------------------------
//
// Return addresses are remembered by value: here the CFI rules (g_rules and each thread's
// walk memo), in the collector each pc's frame and the stacks through it. When dlclose
// unmaps a module, other code mapped later at the same addresses must not inherit them.
// Before the real dlclose the collector drains what was written so far (wire.h), so those
// frames are resolved while the module is still mapped; after it, if the loader really
// unloaded something, the rules are dropped and a record tells the collector to read the
// maps again and resolve pcs anew.

using DlcloseFn = int (*)(void*);
DlcloseFn g_real_dlclose = nullptr;
pthread_mutex_t g_unload_mu = PTHREAD_MUTEX_INITIALIZER;
unsigned long long g_unloads = 0;  // the loader's count when last looked, under g_unload_mu

// The loader's count of unloaded objects; false where it does not keep one.
bool LoaderUnloads(unsigned long long* out) {
#if defined(__GLIBC__)
  bool have = false;
  struct Found {
    unsigned long long* out;
    bool* have;
  } found{out, &have};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* arg) -> int {
        auto* f = static_cast<Found*>(arg);
        if (size >= offsetof(dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
          *f->out = info->dlpi_subs;
          *f->have = true;
        }
        return 1;  // the same in every entry
      },
      &found);
  return have;
#else
  (void)out;
  return false;
#endif
}

void DrainBeforeUnmap() {
  if (!g_active.load(std::memory_order_acquire)) return;
  uint64_t written = g_ring->write_pos.load(std::memory_order_acquire);
  if (g_ring->read_pos.load(std::memory_order_acquire) >= written) return;  // nothing pending
  char request = 'd';
  if (send(g_sock, &request, 1, MSG_DONTWAIT | MSG_NOSIGNAL) != 1) return;
  uint64_t deadline = NowNs(CLOCK_MONOTONIC) + kDrainWaitMs * 1000000ull;
  while (g_active.load(std::memory_order_acquire) &&
         !g_ring->collector_done.load(std::memory_order_relaxed) &&
         g_ring->read_pos.load(std::memory_order_acquire) < written &&
         NowNs(CLOCK_MONOTONIC) < deadline) {
    timespec ts{0, 20000};
    nanosleep(&ts, nullptr);
  }
}

void AfterUnmap() {
  unsigned long long unloads = 0;
  bool known = LoaderUnloads(&unloads);
  pthread_mutex_lock(&g_unload_mu);
  bool unloaded = !known || unloads != g_unloads;
  g_unloads = unloads;
  pthread_mutex_unlock(&g_unload_mu);
  if (!unloaded) return;  // only a reference was dropped: nothing was unmapped
#if defined(__x86_64__)
  g_rules.Forget();
#endif
  if (g_unw_flush_cache && g_unw_local_addr_space) g_unw_flush_cache(g_unw_local_addr_space, 0, 0);
  if (!g_active.load(std::memory_order_acquire)) return;
  CodeUnloadedRecord rec{{kCodeUnloaded, sizeof(CodeUnloadedRecord)}, unloads};
  WriteRecord(rec);
}

// At exit, before the loader unmaps anything: frames first seen since the collector's
// last drain (up to 10 ms of samples) are resolved while their modules are still mapped.
// A module dlopen'ed after the connection was "[unknown]" in every such frame, since the
// collector reads the maps of a process that is gone. exit() gets here through the
// destructor, _exit() and _Exit() through their hooks.
__attribute__((destructor)) void DrainAtExit() {
  ReentryGuard guard;
  DrainBeforeUnmap();
}

[[noreturn]] void ExitNow(int status) {
  DrainAtExit();
  for (;;) syscall(SYS_exit_group, status);
}

// The program's dlclose. The real call runs outside the reentry guard: the loader's frees
// of sampled blocks must still be recorded.
int Dlclose(void* handle) {
  if (!g_real_dlclose) {
    ReentryGuard guard;
    g_real_dlclose = reinterpret_cast<DlcloseFn>(dlsym(RTLD_NEXT, "dlclose"));
    if (!g_real_dlclose) return -1;
  }
  {
    ReentryGuard guard;
    DrainBeforeUnmap();
  }
  int result = g_real_dlclose(handle);
  ReentryGuard guard;
  AfterUnmap();
  return result;
}

__attribute__((constructor)) void Init() {
  ReentryGuard guard;
  // Our own executable segment: its frames are cut from every stack.
  dl_iterate_phdr(
      [](dl_phdr_info* pi, size_t, void*) -> int {
        uintptr_t me = reinterpret_cast<uintptr_t>(&Init);
        for (int i = 0; i < pi->dlpi_phnum; i++) {
          const ElfW(Phdr)& ph = pi->dlpi_phdr[i];
          if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X)) continue;
          uintptr_t lo = pi->dlpi_addr + ph.p_vaddr, hi = lo + ph.p_memsz;
          if (me >= lo && me < hi) {
            g_self_lo = lo;
            g_self_hi = hi;
            return 1;
          }
        }
        return 0;
      },
      nullptr);
  const char* unwinder = getenv("FATHOM_HEAPPROF_UNWIND");
  if (!unwinder || strcmp(unwinder, "fp") != 0) {
    if (void* h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL)) {
      g_unw_backtrace = reinterpret_cast<UnwBacktrace>(dlsym(h, "unw_backtrace"));
#if defined(__x86_64__)
      g_unw_flush_cache = reinterpret_cast<UnwFlushCache>(dlsym(h, "_Ux86_64_flush_cache"));
      if (void** as = static_cast<void**>(dlsym(h, "_ULx86_64_local_addr_space")))
        g_unw_local_addr_space = *as;
#endif
    }
  }
#if defined(__x86_64__)
  // The CFI walk needs libunwind behind it for the frames it does not handle.
  g_cfi_unwind = g_unw_backtrace && !(unwinder && strcmp(unwinder, "libunwind") == 0);
  const char* verify = getenv("FATHOM_HEAPPROF_VERIFY_UNWIND");
  g_verify_unwind = g_cfi_unwind && verify && strcmp(verify, "1") == 0;
#endif
  g_cookie = RandomCookie();
  g_real_dlclose = reinterpret_cast<DlcloseFn>(dlsym(RTLD_NEXT, "dlclose"));
  LoaderUnloads(&g_unloads);
  if (g_aligned.Init()) g_aligned.SetShift(kPageShift);
  g_real_usable = reinterpret_cast<RealUsableFn>(dlsym(RTLD_NEXT, "malloc_usable_size"));
  pthread_atfork(PrepareFork, ParentAfterFork, ChildAfterFork);
  const char* follow = getenv("FATHOM_HEAPPROF_FOLLOW");
  g_follow_children = follow && strcmp(follow, "1") == 0;
  const char* only_pid = getenv("FATHOM_HEAPPROF_PID");
  const char* sock = getenv("FATHOM_HEAPPROF_SOCKET");
  if (sock) {
    strncpy(g_socket_path, sock, sizeof g_socket_path - 1);
    bool mine = g_follow_children || !only_pid || atoi(only_pid) == getpid();
    if (mine) Connect(g_socket_path, true);
  }
  if (!g_active.load()) {
    // Started with the preload but without a collector: attach later on request
    // (fathom-heapprofd --pid), unless the program handles that signal itself.
    int sig = kAttachSignal;
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) {
      struct sigaction sa {};
      sa.sa_handler = OnConnectSignal;
      sa.sa_flags = SA_RESTART;
      sigaction(sig, &sa, nullptr);
    }
  }
}

}  // namespace

// ---- hooks ------------------------------------------------------------------------------

// Slow path of the sampling decision: the bytes an allocation of `size` stands for, 0 when
// it is not sampled (also while the profiler itself allocates, or no session is active).
uint64_t Decide(size_t size) {
  if (t_in_profiler) return 0;
  ReentryGuard guard;
  uint32_t gen = g_generation.load(std::memory_order_relaxed);
  if (t_generation != gen) ResetThreadSampler(gen);
  if (!g_active.load(std::memory_order_acquire)) {
    t_sampler.Reset(kIdleCheckBytes, 1);
    TryConnectOnRequest();
    return 0;
  }
  return t_sampler.SampleSize(size);
}

// Unwinds and records a sampled block.
__attribute__((noinline)) void RecordAlloc(void* p, size_t size, uint64_t sampled) {
  ReentryGuard guard;
  uint64_t raw[kRawFrames];
  int first = 0;
  AllocRecord rec;
  rec.num_frames = static_cast<uint32_t>(Unwind(raw, &first));
  rec.h.type = kAlloc;
  rec.h.bytes = static_cast<uint32_t>(sizeof rec + rec.num_frames * sizeof(uint64_t));
  rec.addr = reinterpret_cast<uintptr_t>(p);
  rec.sampled_bytes = sampled;
  rec.real_bytes = size;
  rec.tid = Tid();
  PrefetchForRecord(rec.h.bytes);
  Lock();
  // Checked under the lock: the flag shares the lock's cache line, which is ours now.
  if (g_ring->collector_done.load(std::memory_order_relaxed)) {
    Unlock();
    Deactivate();  // the session ended: stop paying for unwinds nobody reads
    return;
  }
  uint64_t pos = 0;
  bool reserved = ReserveLocked(rec.h.bytes, &pos);
  Unlock();
  if (reserved) Commit(pos, &rec, sizeof rec, raw + first, rec.num_frames * sizeof(uint64_t));
}

// Records the free of a sampled block (while a session is active) and releases it. The
// record is committed before the real free: a reuse of the address reserves a later
// position. `taken`: free's IsSampled already removed a page-aligned block from the set.
__attribute__((noinline)) void FreeSampled(void* p, bool taken = false) {
  uintptr_t key = reinterpret_cast<uintptr_t>(p);
  if (!t_in_profiler && g_active.load(std::memory_order_acquire)) {
    ReentryGuard guard;
    WriteRecord(FreeRecord{{kFree, sizeof(FreeRecord)}, key});
  }
  ReleaseSampled(key, taken);
}

// The sampler's verdict depends only on the size, so it is taken before the real call:
// an unsampled allocation is charged and then a tail jump to the real allocator (no
// frame of ours, nothing to do after it returns). `real` is the real call, inlined;
// `sampled` allocates the padded block a sampled allocation gets. A failed allocation
// is not recorded.
template <typename Real, typename Sampled>
__attribute__((noinline)) void* AllocSlow(size_t size, Real real, Sampled sampled) {
  uint64_t bytes = Decide(size);
  if (!bytes) return real();
  void* p = sampled();
  if (!p) return real();
  RecordAlloc(p, size, bytes);
  return p;
}
#if defined(__x86_64__)
// One read-modify-write of the thread's counter and one branch: `sub` sets the carry
// (size > left) or zero (size == left) flag exactly when Skips(size) is false. The slow
// path refunds the bytes (left_ wrapped or reached 0) and decides as usual.
template <typename Real, typename Sampled>
__attribute__((noinline)) void* AllocRefund(size_t size, Real real, Sampled sampled) {
  t_sampler.Refund(size);
  return AllocSlow(size, real, sampled);
}
template <typename Real, typename Sampled>
inline void* Alloc(size_t size, Real real, Sampled sampled) {
  asm goto("subq %1, %0\n\tjbe %l[slow]"
           :
           : "m"(*t_sampler.left_for_fast_path()), "r"(size)
           : "cc", "memory"
           : slow);
  return real();
slow:
  return AllocRefund(size, real, sampled);
}
#else
template <typename Real, typename Sampled>
inline void* Alloc(size_t size, Real real, Sampled sampled) {
  if (__builtin_expect(t_sampler.Skips(size), 1)) {
    t_sampler.Consume(size);
    return real();
  }
  return AllocSlow(size, real, sampled);
}
#endif

inline void* Malloc(size_t n) {
  return Alloc(
      n, [n] { return RealMalloc(n); }, [n] { return AllocSampled(n, 0, false); });
}
inline void Free(void* p) {
  if (__builtin_expect(IsSampled(reinterpret_cast<uintptr_t>(p), /*take=*/true), 0))
    return FreeSampled(p, true);
  RealFree(p);
}
inline void* Memalign(size_t align, size_t n) {
  return Alloc(
      n, [align, n] { return RealMemalign(align, n); },
      [align, n] { return AllocSampled(n, align, false); });
}

// realloc of a sampled block: a new block (sampled or not, as the sampler says), the
// contents copied, the old one freed. glibc's realloc(p, 0) frees p and returns NULL.
__attribute__((noinline)) void* ReallocSampled(void* old, size_t n) {
  if (n == 0) {
    FreeSampled(old);
    return nullptr;
  }
  size_t keep = UsableSampled(reinterpret_cast<uintptr_t>(old));
  void* p = Malloc(n);
  if (!p) return nullptr;
  memcpy(p, old, keep < n ? keep : n);
  FreeSampled(old);
  return p;
}

// realloc of an unsampled block to a sampled size: it moves into a padded block.
void* MoveToSampled(void* old, size_t n) {
  void* p = AllocSampled(n, 0, false);
  if (!p || !old) return p;
  size_t keep = RealUsable(old);
  memcpy(p, old, keep < n ? keep : n);
  RealFree(old);
  return p;
}

}  // namespace fathom::heapprof

using namespace fathom::heapprof;

extern "C" {

#define EXPORT __attribute__((visibility("default")))

EXPORT void* malloc(size_t n) { return Malloc(n); }
EXPORT int dlclose(void* handle) { return Dlclose(handle); }
EXPORT void _exit(int status) { ExitNow(status); }
EXPORT void _Exit(int status) { ExitNow(status); }
EXPORT void free(void* p) { Free(p); }
EXPORT void* calloc(size_t a, size_t b) {
  size_t n = 0;
  if (__builtin_mul_overflow(a, b, &n)) return RealCalloc(a, b);  // fails as glibc's does
  return Alloc(
      n, [a, b] { return RealCalloc(a, b); }, [n] { return AllocSampled(n, 0, true); });
}
EXPORT void* realloc(void* old, size_t n) {
  if (IsSampled(reinterpret_cast<uintptr_t>(old))) return ReallocSampled(old, n);
  return Alloc(
      n, [old, n] { return RealRealloc(old, n); }, [old, n] { return MoveToSampled(old, n); });
}
EXPORT void* memalign(size_t align, size_t n) { return Memalign(align, n); }
EXPORT void* aligned_alloc(size_t align, size_t n) { return Memalign(align, n); }
EXPORT int posix_memalign(void** out, size_t align, size_t n) {
  if (align < sizeof(void*) || (align & (align - 1)) != 0) return EINVAL;
  void* p = Memalign(align, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
EXPORT void* valloc(size_t n) {
  // The system's page size (16 KiB on some arm64 devices), as the real valloc uses.
  size_t page = static_cast<size_t>(getpagesize());
  return Alloc(
      n, [n] { return RealValloc(n); }, [n, page] { return AllocSampled(n, page, false); });
}
EXPORT void* pvalloc(size_t n) {
  size_t page = static_cast<size_t>(getpagesize());
  size_t rounded = n ? (n + page - 1) & ~(page - 1) : page;
  if (rounded < n) return RealPvalloc(n);  // overflow: fails as glibc's does
  return Alloc(
      n, [n] { return RealPvalloc(n); },
      [rounded, page] { return AllocSampled(rounded, page, false); });
}
// Sampled blocks are padded: the program sees what lies above its pointer.
EXPORT size_t malloc_usable_size(void* p) {
  uintptr_t a = reinterpret_cast<uintptr_t>(p);
  return IsSampled(a) ? UsableSampled(a) : RealUsable(p);
}

}  // extern "C"

// ---- C++ operators ----------------------------------------------------------------------

namespace {
void* NewOrThrow(size_t n, size_t align) {
  for (;;) {
    void* p = align ? Memalign(align, n) : Malloc(n);
    if (p) return p;
    std::new_handler h = std::get_new_handler();
    if (!h) throw std::bad_alloc();
    h();
  }
}
void* NewNoThrow(size_t n, size_t align) noexcept {
  try {
    return NewOrThrow(n, align);
  } catch (...) {
    return nullptr;
  }
}
}  // namespace

EXPORT void* operator new(size_t n) { return NewOrThrow(n, 0); }
EXPORT void* operator new[](size_t n) { return NewOrThrow(n, 0); }
EXPORT void* operator new(size_t n, const std::nothrow_t&) noexcept { return NewNoThrow(n, 0); }
EXPORT void* operator new[](size_t n, const std::nothrow_t&) noexcept { return NewNoThrow(n, 0); }
EXPORT void* operator new(size_t n, std::align_val_t a) {
  return NewOrThrow(n, static_cast<size_t>(a));
}
EXPORT void* operator new[](size_t n, std::align_val_t a) {
  return NewOrThrow(n, static_cast<size_t>(a));
}
EXPORT void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return NewNoThrow(n, static_cast<size_t>(a));
}
EXPORT void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return NewNoThrow(n, static_cast<size_t>(a));
}
EXPORT void operator delete(void* p) noexcept { Free(p); }
EXPORT void operator delete[](void* p) noexcept { Free(p); }
EXPORT void operator delete(void* p, size_t) noexcept { Free(p); }
EXPORT void operator delete[](void* p, size_t) noexcept { Free(p); }
EXPORT void operator delete(void* p, const std::nothrow_t&) noexcept { Free(p); }
EXPORT void operator delete[](void* p, const std::nothrow_t&) noexcept { Free(p); }
EXPORT void operator delete(void* p, std::align_val_t) noexcept { Free(p); }
EXPORT void operator delete[](void* p, std::align_val_t) noexcept { Free(p); }
EXPORT void operator delete(void* p, size_t, std::align_val_t) noexcept { Free(p); }
EXPORT void operator delete[](void* p, size_t, std::align_val_t) noexcept { Free(p); }
EXPORT void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { Free(p); }
EXPORT void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  Free(p);
}
