// Unwind rules for x86-64 frames, read from the loaded modules' .eh_frame (DWARF CFI), and
// a lock-free cache of them keyed by return address: the heap profiler's fast unwinder.
//
// Why not libunwind for every sample: its cached unw_backtrace costs ~420 cycles for a
// 17-frame stack when warm and 580-690 when the sample finds its caches cold (one sample
// every 512 KiB), half of a sample's cost; this walk 210-270 and ~320. The frames of Debian's
// programs have no frame pointers, so the walk needs the CFI rules; but of those rules x86-64 code
// only ever needs three numbers per call site: where the CFA is (rsp or rbp plus an offset), that
// the return address sits just below it, and where the caller's rbp was saved. Those fit
// in 8 bytes, looked up in one probe of a flat table.
//
// Only that subset is read. Anything else (a CFA or rbp given by a DWARF expression, a
// signal frame, a return address not at CFA-8, an encoding this reader does not know, a
// pc with no FDE) makes FindFrameRule fail, and the caller unwinds that sample with
// libunwind instead, so the fast path never guesses.
//
// Nothing here allocates or takes a lock but the glibc loader's (dl_iterate_phdr, on a
// cache miss): it runs inside malloc. Memory comes from mmap.
//
// Rules are kept by return address until code is unmapped: the client's dlclose hook
// calls Forget when the loader unloaded a module, so code mapped later at the same
// addresses is never walked with the old module's rules (nor remembered walks through it:
// each thread's WalkMemo carries the epoch it was made in).
#pragma once

#include <cstddef>
#include <cstdint>

namespace fathom::heapprof {

// How to find a frame's caller, for a frame whose pc is a return address.
struct FrameRule {
  enum Kind : uint8_t {
    kFrame = 1,      // CFA = (cfa_from_rbp ? rbp : rsp) + cfa_offset; return address at CFA-8
    kOutermost = 2,  // the return address is undefined: the end of the stack (_start, clone)
  };
  uint8_t kind = 0;
  bool cfa_from_rbp = false;
  int16_t rbp_offset = 0;  // the caller's rbp saved at CFA + rbp_offset; 0: rbp unchanged
  int32_t cfa_offset = 0;

  // In one word, as the caches keep it (never 0: kind is not 0).
  uint64_t Pack() const {
    return uint64_t{kind} | uint64_t{cfa_from_rbp} << 8 |
           uint64_t{static_cast<uint16_t>(rbp_offset)} << 16 |
           uint64_t{static_cast<uint32_t>(cfa_offset)} << 32;
  }
  static FrameRule Unpack(uint64_t v) {
    FrameRule r;
    r.kind = static_cast<Kind>(v & 0xff);
    r.cfa_from_rbp = (v >> 8) & 1;
    r.rbp_offset = static_cast<int16_t>(static_cast<uint16_t>(v >> 16));
    r.cfa_offset = static_cast<int32_t>(static_cast<uint32_t>(v >> 32));
    return r;
  }
};

// The rule at `pc` (already a return address minus one) from the CFI of the module that
// holds it. False when there is none or it is outside the subset above.
bool FindFrameRule(uintptr_t pc, FrameRule* out);

// Rules by return address, filled on first use of each; readers take no lock. A full table
// (or one that could not be mapped) stops filing, and an address not in it then has no
// rule here (libunwind's turn).
class FrameRuleCache {
 public:
  static constexpr uint32_t kBits = 15;  // 32 K call sites, 512 KiB, mapped on first use

  // The rule for return address `ra`: from the table, else from the CFI (filed). False
  // when the CFI has no usable rule (also remembered, so such a pc costs one probe).
  bool Lookup(uintptr_t ra, FrameRule* out);

  // Code was unmapped (dlclose): every rule is dropped and the epoch moves on. Rare, so it
  // waits for a filing thread instead of skipping. Not from a signal handler.
  void Forget();
  // Changes with every Forget: a walk memo made in another epoch is stale.
  uint32_t epoch() const { return __atomic_load_n(&epoch_, __ATOMIC_ACQUIRE); }

  // In a forked child: a filing thread of the parent's is not there to finish.
  void AfterForkInChild() { __atomic_store_n(&lock_, 0, __ATOMIC_RELAXED); }

 private:
  struct Slot {
    uint64_t key;    // the return address, published last (release); 0 = empty
    uint64_t value;  // FrameRule::Pack(), or kNoRule
  };
  static constexpr uint64_t kNoRule = ~uint64_t{0};
  static constexpr uint32_t kProbes = 16;
  static constexpr uint32_t kFull = (3u << kBits) / 4;

  bool Map();
  // Files unless a Forget came after `epoch` (the rule may be the unmapped code's).
  void File(uintptr_t ra, uint64_t value, uint32_t epoch);

  Slot* slots_ = nullptr;
  uint32_t used_ = 0;
  uint32_t lock_ = 0;
  uint32_t map_failed_ = 0;
  uint32_t epoch_ = 0;
};

// One frame of a thread's previous walk (WalkStack's memo): the rules of the frames a new
// sample shares with the last one (most of them: the same loop allocates again) come
// from these few sequential lines instead of one scattered probe of the cache per frame
// (the bench's 17-frame walk: 385 -> 210-270 cycles warm, 463 -> ~320 cold).
struct WalkMemo {
  uint64_t ra;
  uint64_t rule;  // FrameRule::Pack()
};

// Walks the stack up from the frame whose frame pointer is `fp` (a function that keeps
// one), reading only [lo, hi), the thread's stack. Fills pcs with return addresses, the
// first being that function's own. Returns how many, or -1 when a frame has no rule of
// the simple kind or a rule leads out of the stack: the caller then unwinds with
// libunwind, whose answer for such a stack this never second-guesses. The memo is
// dropped first when it was made in an earlier epoch of the rules (*memo_epoch): code was
// unmapped since.
inline int WalkStack(FrameRuleCache& rules, uintptr_t fp, uintptr_t lo, uintptr_t hi,
                     WalkMemo* memo, uint32_t* memo_epoch, int memo_frames, uint64_t* pcs,
                     int max) {
  uint32_t epoch = rules.epoch();
  if (__builtin_expect(*memo_epoch != epoch, 0)) {
    for (int i = 0; i < memo_frames; i++) memo[i] = WalkMemo{0, 0};  // ra 0 matches no frame
    *memo_epoch = epoch;
  }
  auto in_stack = [lo, hi](uintptr_t a) { return a >= lo && a < hi && hi - a >= 8; };
  auto load = [](uintptr_t a) { return *reinterpret_cast<const uintptr_t*>(a); };
  if (!in_stack(fp) || !in_stack(fp + 8)) return -1;
  uintptr_t rbp = load(fp), ip = load(fp + 8), sp = fp + 16;
  int n = 0;
  while (n < max && ip) {
    FrameRule rule;
    if (n < memo_frames && memo[n].ra == ip) {
      rule = FrameRule::Unpack(memo[n].rule);
    } else {
      if (!rules.Lookup(ip, &rule)) return -1;
      if (n < memo_frames) memo[n] = WalkMemo{ip, rule.Pack()};
    }
    pcs[n++] = ip;
    if (rule.kind == FrameRule::kOutermost) break;
    uintptr_t cfa = (rule.cfa_from_rbp ? rbp : sp) +
                    static_cast<uintptr_t>(static_cast<intptr_t>(rule.cfa_offset));
    if (cfa <= sp || !in_stack(cfa - 8)) return -1;
    if (rule.rbp_offset) {
      uintptr_t at = cfa + static_cast<uintptr_t>(static_cast<intptr_t>(rule.rbp_offset));
      if (!in_stack(at)) return -1;
      rbp = load(at);
    }
    ip = load(cfa - 8);
    sp = cfa;
  }
  return n;
}

}  // namespace fathom::heapprof
