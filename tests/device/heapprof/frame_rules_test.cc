// The heap profiler's CFI unwinder (frame_rules.h) on this test's own frames: the rules it
// reads for functions with and without frame pointers and with a variable-sized frame,
// and whole walks through such frames compared with libunwind's, the unwinder it stands
// in for.
#include "device/heapprof/frame_rules.h"

#include <alloca.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace fathom::heapprof {
namespace {

#if defined(__x86_64__)

void StackOf(uintptr_t* lo, uintptr_t* hi) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_getattr_np(pthread_self(), &attr), 0);
  void* addr = nullptr;
  size_t size = 0;
  pthread_attr_getstack(&attr, &addr, &size);
  pthread_attr_destroy(&attr);
  *lo = reinterpret_cast<uintptr_t>(addr);
  *hi = *lo + size;
}

using UnwBacktrace = int (*)(void**, int);
UnwBacktrace Libunwind() {
  static UnwBacktrace f = [] {
    void* h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    return h ? reinterpret_cast<UnwBacktrace>(dlsym(h, "unw_backtrace")) : nullptr;
  }();
  return f;
}

struct Walks {
  std::vector<uint64_t> cfi, libunwind;
  int cfi_n = -2;
};

FrameRuleCache g_cache;
WalkMemo g_memo[32];
uint32_t g_memo_epoch = 0;

// Both walks from the same frame. Keeps a frame pointer, as the profiler's own frames do.
__attribute__((noinline, optimize("no-omit-frame-pointer"))) void Capture(Walks* w) {
  uintptr_t lo = 0, hi = 0;
  StackOf(&lo, &hi);
  w->cfi.resize(128);
  w->cfi_n = WalkStack(g_cache, reinterpret_cast<uintptr_t>(__builtin_frame_address(0)), lo, hi,
                       g_memo, &g_memo_epoch, 32, w->cfi.data(), 128);
  w->cfi.resize(w->cfi_n > 0 ? static_cast<size_t>(w->cfi_n) : 0);
  if (UnwBacktrace unw = Libunwind()) {
    w->libunwind.resize(128);
    int n = unw(reinterpret_cast<void**>(w->libunwind.data()), 128);
    w->libunwind.resize(n > 0 ? static_cast<size_t>(n) : 0);
  }
  asm volatile("" ::: "memory");
}

// libunwind's list starts inside Capture (where it was called): its frames from the CFI
// walk's first on, and in *at where that frame is (the list's size when it is not there).
std::vector<uint64_t> LibunwindFromOurFirstFrame(const Walks& w, size_t* at) {
  *at = 0;
  while (*at < w.libunwind.size() && (w.cfi.empty() || w.libunwind[*at] != w.cfi[0])) ++*at;
  return std::vector<uint64_t>(w.libunwind.begin() + static_cast<long>(*at), w.libunwind.end());
}

// Three kinds of frame: rsp-based (no frame pointer, a fixed frame), rbp-based with a
// frame size known only at run time (alloca), and a plain frame-pointer frame.
__attribute__((noinline, optimize("omit-frame-pointer"))) void NoFramePointer(int depth, Walks* w);
__attribute__((noinline)) void VariableFrame(int depth, Walks* w) {
  volatile char* buf = static_cast<volatile char*>(alloca(static_cast<size_t>(64 + depth * 48)));
  buf[0] = static_cast<char>(depth);
  if (depth == 0)
    Capture(w);
  else
    NoFramePointer(depth - 1, w);
  asm volatile("" ::: "memory");
}
__attribute__((noinline, optimize("no-omit-frame-pointer"))) void WithFramePointer(int depth,
                                                                                   Walks* w) {
  VariableFrame(depth, w);
  asm volatile("" ::: "memory");
}
__attribute__((noinline, optimize("omit-frame-pointer"))) void NoFramePointer(int depth, Walks* w) {
  volatile uint64_t spill[9];
  for (int i = 0; i < 9; i++) spill[i] = static_cast<uint64_t>(depth * i);
  WithFramePointer(depth, w);
  asm volatile("" ::: "memory");
  (void)spill[depth % 9];
}

TEST(FrameRules, FramePointerFunctionIsRbpBased) {
  // WithFramePointer's call site: after `push rbp; mov rsp, rbp` the CFA is rbp + 16 and
  // the caller's rbp is saved at CFA - 16.
  Walks w;
  WithFramePointer(0, &w);
  ASSERT_GE(w.cfi_n, 3);
  // cfi[0] returns into VariableFrame, cfi[1] into WithFramePointer.
  FrameRule rule;
  ASSERT_TRUE(FindFrameRule(w.cfi[1] - 1, &rule));
  EXPECT_EQ(rule.kind, FrameRule::kFrame);
  EXPECT_TRUE(rule.cfa_from_rbp);
  EXPECT_EQ(rule.cfa_offset, 16);
  EXPECT_EQ(rule.rbp_offset, -16);
  // VariableFrame allocates with alloca: its CFA cannot be rsp-based either.
  ASSERT_TRUE(FindFrameRule(w.cfi[0] - 1, &rule));
  EXPECT_TRUE(rule.cfa_from_rbp);
}

TEST(FrameRules, FixedFrameWithoutFramePointerIsRspBased) {
  Walks w;
  NoFramePointer(0, &w);
  ASSERT_GE(w.cfi_n, 4);
  // cfi[2] returns into NoFramePointer: rsp + its frame size + the return address.
  FrameRule rule;
  ASSERT_TRUE(FindFrameRule(w.cfi[2] - 1, &rule));
  EXPECT_EQ(rule.kind, FrameRule::kFrame);
  EXPECT_FALSE(rule.cfa_from_rbp);
  EXPECT_GE(rule.cfa_offset, 8 + 9 * 8);  // at least the spill array above the return address
  EXPECT_EQ(rule.cfa_offset % 8, 0);
}

TEST(FrameRules, AddressesWithoutCfiHaveNoRule) {
  FrameRule rule;
  EXPECT_FALSE(FindFrameRule(0x1000, &rule));  // nothing is mapped there
  static const char data[64] = {1};
  EXPECT_FALSE(FindFrameRule(reinterpret_cast<uintptr_t>(data), &rule));  // no FDE
}

// The walk through every kind of frame, several deep and twice (the second from the
// cache and the memo), equals libunwind's, to the thread's first frame.
TEST(FrameRules, WalkMatchesLibunwindThroughMixedFrames) {
  if (!Libunwind()) GTEST_SKIP() << "libunwind.so.8 not installed";
  for (int round = 0; round < 2; round++) {
    for (int depth : {0, 1, 5, 12}) {
      Walks w;
      NoFramePointer(depth, &w);
      ASSERT_GT(w.cfi_n, 3 * depth + 3) << "depth " << depth;
      size_t at = 0;
      std::vector<uint64_t> tail = LibunwindFromOurFirstFrame(w, &at);
      ASSERT_LT(at, 3u) << "depth " << depth;
      EXPECT_EQ(w.cfi, tail) << "depth " << depth << " round " << round;
    }
  }
}

// A full table files no more and sends new addresses to libunwind (Lookup false) instead of
// searching the CFI at every sample; what it holds is still answered.
TEST(FrameRules, FullCacheAnswersWhatItHoldsAndNothingNew) {
  Walks w;
  WithFramePointer(0, &w);
  ASSERT_GE(w.cfi_n, 2);
  auto* cache = new FrameRuleCache();  // 512 KiB of slots, mapped on first use
  FrameRule rule;
  ASSERT_TRUE(cache->Lookup(w.cfi[0], &rule));  // filed while there is room
  // Fill it with addresses where nothing is mapped (each filed as "no rule").
  for (uintptr_t i = 0; i < (1u << FrameRuleCache::kBits); i++)
    cache->Lookup(0x10000 + i * 16, &rule);
  EXPECT_TRUE(cache->Lookup(w.cfi[0], &rule));
  EXPECT_TRUE(rule.cfa_from_rbp);
  EXPECT_TRUE(FindFrameRule(w.cfi[1] - 1, &rule));
  EXPECT_FALSE(cache->Lookup(w.cfi[1], &rule));
  delete cache;
}

// dlclose: Forget drops every rule (a full table files again) and every walk remembered
// before it (a memo entry for the same return address is no longer trusted).
__attribute__((noinline)) void WalkFromOneCallSite(Walks* w) {
  WithFramePointer(0, w);
  asm volatile("" ::: "memory");
}
// The frames up to WalkFromOneCallSite's (the same in every walk from it).
std::vector<uint64_t> Head(const Walks& w) {
  return std::vector<uint64_t>(w.cfi.begin(), w.cfi.begin() + std::min<size_t>(3, w.cfi.size()));
}

TEST(FrameRules, ForgetDropsRulesAndRememberedWalks) {
  Walks first;
  WalkFromOneCallSite(&first);
  ASSERT_GE(first.cfi_n, 4);
  // The memo now holds this walk; spoil its rules (a CFA 1 MiB above rsp) while
  // keeping the addresses: a walk that trusts it leaves the stack and fails.
  for (WalkMemo& m : g_memo)
    if (m.ra) m.rule = FrameRule{FrameRule::kFrame, false, 0, 1 << 20}.Pack();
  Walks spoiled;
  WalkFromOneCallSite(&spoiled);
  EXPECT_EQ(spoiled.cfi_n, -1);
  g_cache.Forget();
  Walks after;
  WalkFromOneCallSite(&after);
  EXPECT_EQ(after.cfi_n, first.cfi_n);
  EXPECT_EQ(Head(after), Head(first));

  auto* cache = new FrameRuleCache();
  FrameRule rule;
  for (uintptr_t i = 0; i < (1u << FrameRuleCache::kBits); i++)
    cache->Lookup(0x10000 + i * 16, &rule);
  EXPECT_FALSE(cache->Lookup(first.cfi[1], &rule));  // full
  uint32_t epoch = cache->epoch();
  cache->Forget();
  EXPECT_NE(cache->epoch(), epoch);
  EXPECT_TRUE(cache->Lookup(first.cfi[1], &rule));  // filed again
  EXPECT_TRUE(rule.cfa_from_rbp);
  delete cache;
}

// A thread's walk ends at its start (clone's outermost frame), as libunwind's does.
TEST(FrameRules, WalkOnAnotherThreadReachesItsStart) {
  if (!Libunwind()) GTEST_SKIP() << "libunwind.so.8 not installed";
  Walks w;
  pthread_t t;
  ASSERT_EQ(pthread_create(
                &t, nullptr,
                [](void* arg) -> void* {
                  NoFramePointer(3, static_cast<Walks*>(arg));
                  return nullptr;
                },
                &w),
            0);
  pthread_join(t, nullptr);
  ASSERT_GT(w.cfi_n, 12);
  size_t at = 0;
  std::vector<uint64_t> tail = LibunwindFromOurFirstFrame(w, &at);
  ASSERT_LT(at, 3u);
  EXPECT_EQ(w.cfi, tail);
}

#endif  // __x86_64__

}  // namespace
}  // namespace fathom::heapprof
