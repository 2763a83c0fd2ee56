// CFI reading for frame_rules.h: .eh_frame_hdr's sorted table finds the FDE, the CIE and
// FDE instructions run up to the pc, and the row's CFA, rbp and return-address rules are
// kept when they are of the simple kinds x86-64 compilers emit. Layouts per the LSB's
// .eh_frame chapter and DWARF 4 section 6.4.
#include "device/heapprof/frame_rules.h"

#include <link.h>
#include <sched.h>
#include <sys/mman.h>

#include <cstring>

namespace fathom::heapprof {
namespace {

// DWARF register numbers on x86-64.
constexpr uint32_t kRbp = 6, kRsp = 7, kReturnAddress = 16;

// DW_EH_PE_* pointer encodings.
constexpr uint8_t kPeOmit = 0xff, kPeAbsptr = 0x00, kPeUleb128 = 0x01, kPeUdata2 = 0x02,
                  kPeUdata4 = 0x03, kPeUdata8 = 0x04, kPeSleb128 = 0x09, kPeSdata2 = 0x0a,
                  kPeSdata4 = 0x0b, kPeSdata8 = 0x0c, kPePcrel = 0x10, kPeDatarel = 0x30,
                  kPeIndirect = 0x80;

// A bounded reader over memory of a loaded module. Every read past `end` fails.
struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  bool ok = true;

  bool Need(size_t n) {
    if (!ok || static_cast<size_t>(end - p) < n) ok = false;
    return ok;
  }
  template <typename T>
  T Fixed() {
    T v{};
    if (!Need(sizeof v)) return v;
    memcpy(&v, p, sizeof v);
    p += sizeof v;
    return v;
  }
  uint64_t Uleb() {
    uint64_t v = 0;
    for (uint32_t shift = 0; Need(1); shift += 7) {
      uint8_t b = *p++;
      if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
    return 0;
  }
  int64_t Sleb() {
    uint64_t v = 0;
    uint32_t shift = 0;
    uint8_t b = 0;
    do {
      if (!Need(1)) return 0;
      b = *p++;
      if (shift < 64) v |= uint64_t{b & 0x7fu} << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= ~uint64_t{0} << shift;
    return static_cast<int64_t>(v);
  }
  // An encoded pointer; `datarel` is the base for DW_EH_PE_datarel (.eh_frame_hdr's start).
  uint64_t Pointer(uint8_t enc, uint64_t datarel = 0) {
    if (enc == kPeOmit) return 0;
    uint64_t field = reinterpret_cast<uintptr_t>(p);
    uint64_t v = 0;
    switch (enc & 0x0f) {
      case kPeAbsptr:
        v = Fixed<uint64_t>();
        break;
      case kPeUleb128:
        v = Uleb();
        break;
      case kPeUdata2:
        v = Fixed<uint16_t>();
        break;
      case kPeUdata4:
        v = Fixed<uint32_t>();
        break;
      case kPeUdata8:
        v = Fixed<uint64_t>();
        break;
      case kPeSleb128:
        v = static_cast<uint64_t>(Sleb());
        break;
      case kPeSdata2:
        v = static_cast<uint64_t>(int64_t{Fixed<int16_t>()});
        break;
      case kPeSdata4:
        v = static_cast<uint64_t>(int64_t{Fixed<int32_t>()});
        break;
      case kPeSdata8:
        v = Fixed<uint64_t>();
        break;
      default:
        ok = false;
        return 0;
    }
    switch (enc & 0x70) {
      case 0:
        break;
      case kPePcrel:
        v += field;
        break;
      case kPeDatarel:
        if (!datarel) ok = false;
        v += datarel;
        break;
      default:
        ok = false;
        return 0;  // textrel, funcrel, aligned: not in x86-64 .eh_frame
    }
    if (enc & kPeIndirect) ok = false;  // only personality pointers use it; never read here
    return v;
  }
};

// One module's .eh_frame_hdr, found by dl_iterate_phdr.
struct HdrSearch {
  uintptr_t pc;
  const uint8_t* hdr = nullptr;
  size_t hdr_size = 0;
};

int FindHdr(dl_phdr_info* info, size_t, void* arg) {
  auto* s = static_cast<HdrSearch*>(arg);
  bool holds_pc = false;
  const ElfW(Phdr)* eh = nullptr;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && s->pc >= lo && s->pc - lo < ph.p_memsz) holds_pc = true;
    if (ph.p_type == PT_GNU_EH_FRAME) eh = &ph;
  }
  if (!holds_pc) return 0;
  if (eh) {
    s->hdr = reinterpret_cast<const uint8_t*>(info->dlpi_addr + eh->p_vaddr);
    s->hdr_size = eh->p_memsz;
  }
  return 1;
}

// The FDE covering pc: binary search of the header's table (datarel sdata4 pairs, the
// only layout GNU ld and lld write for a sorted table).
const uint8_t* FindFde(const HdrSearch& s) {
  Reader r{s.hdr, s.hdr + s.hdr_size};
  uint64_t base = reinterpret_cast<uintptr_t>(s.hdr);
  uint8_t version = r.Fixed<uint8_t>(), frame_enc = r.Fixed<uint8_t>();
  uint8_t count_enc = r.Fixed<uint8_t>(), table_enc = r.Fixed<uint8_t>();
  if (!r.ok || version != 1 || table_enc != (kPeDatarel | kPeSdata4)) return nullptr;
  r.Pointer(frame_enc, base);
  uint64_t count = r.Pointer(count_enc, base);
  if (!r.ok || count == 0 || count > (s.hdr_size - static_cast<size_t>(r.p - s.hdr)) / 8)
    return nullptr;
  const uint8_t* table = r.p;
  auto entry = [&](uint64_t i, uint32_t half) {
    int32_t v;
    memcpy(&v, table + i * 8 + half * 4, 4);
    return base + static_cast<uint64_t>(int64_t{v});
  };
  if (s.pc < entry(0, 0)) return nullptr;
  uint64_t lo = 0, hi = count;  // the answer lies in [lo, hi)
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (entry(mid, 0) <= s.pc)
      lo = mid;
    else
      hi = mid;
  }
  return reinterpret_cast<const uint8_t*>(entry(lo, 1));
}

// A register's rule in a CFI row (only the kinds kept here).
struct RegRule {
  enum Kind : uint8_t { kSame, kOffset, kUndefined, kOther } kind = kSame;
  int64_t offset = 0;
};
struct Row {
  uint32_t cfa_reg = kRsp;
  int64_t cfa_offset = 0;
  bool cfa_expression = false;
  RegRule rbp, ra;
};

struct Cie {
  uint64_t code_align = 1;
  int64_t data_align = 1;
  uint32_t ra_reg = kReturnAddress;
  uint8_t fde_enc = kPeAbsptr;
  bool has_aug_data = false;
  bool signal_frame = false;
  const uint8_t* insns = nullptr;
  const uint8_t* end = nullptr;
};

bool ParseCie(const uint8_t* at, Cie* cie) {
  Reader r{at, at + 4};
  uint32_t length = r.Fixed<uint32_t>();
  if (!r.ok || length == 0 || length == 0xffffffffu) return false;  // no 64-bit DWARF here
  r.end = at + 4 + length;
  if (r.Fixed<uint32_t>() != 0) return false;  // a CIE's id is 0 in .eh_frame
  uint8_t version = r.Fixed<uint8_t>();
  if (version != 1 && version != 3) return false;
  const char* aug = reinterpret_cast<const char*>(r.p);
  size_t aug_len = strnlen(aug, static_cast<size_t>(r.end - r.p));
  if (!r.Need(aug_len + 1)) return false;
  r.p += aug_len + 1;
  cie->code_align = r.Uleb();
  cie->data_align = r.Sleb();
  cie->ra_reg = version == 1 ? r.Fixed<uint8_t>() : static_cast<uint32_t>(r.Uleb());
  if (aug_len > 0 && aug[0] == 'z') {
    cie->has_aug_data = true;
    uint64_t aug_data = r.Uleb();
    const uint8_t* after = r.p + aug_data;
    if (!r.ok || aug_data > static_cast<uint64_t>(r.end - r.p)) return false;
    for (size_t i = 1; i < aug_len && r.ok; i++) {
      switch (aug[i]) {
        case 'R':
          cie->fde_enc = r.Fixed<uint8_t>();
          break;
        case 'L':
          r.Fixed<uint8_t>();
          break;  // the LSDA's encoding: in the FDE's aug data
        case 'P': {
          uint8_t enc = r.Fixed<uint8_t>();
          r.Pointer(static_cast<uint8_t>(enc & ~kPeIndirect));  // skipped, not followed
          break;
        }
        case 'S':
          cie->signal_frame = true;
          break;
        default:
          i = aug_len;
          break;  // unknown: the length says where the data ends
      }
    }
    r.p = after;
  } else if (aug_len > 0) {
    return false;  // "eh" and other pre-'z' augmentations: not in current toolchains
  }
  cie->insns = r.p;
  cie->end = r.end;
  return r.ok;
}

// Runs CFI instructions up to `pc`, `loc` being the address the first applies to.
// Returns false on anything outside the subset (the row is then unusable).
bool Execute(Reader r, const Cie& cie, uint64_t* loc, uint64_t pc, const Row& initial, Row* row) {
  constexpr int kMaxStates = 8;
  Row stack[kMaxStates];
  int depth = 0;
  auto set = [&](uint32_t reg, RegRule rule) {
    if (reg == kRbp) row->rbp = rule;
    if (reg == cie.ra_reg) row->ra = rule;
  };
  auto restore = [&](uint32_t reg) {
    if (reg == kRbp) row->rbp = initial.rbp;
    if (reg == cie.ra_reg) row->ra = initial.ra;
  };
  auto advance = [&](uint64_t delta) {
    *loc += delta * cie.code_align;
    return *loc <= pc;  // false: this row ends before pc, stop here
  };
  while (r.ok && r.p < r.end) {
    uint8_t op = r.Fixed<uint8_t>();
    uint8_t arg = op & 0x3f;
    switch (op >> 6) {
      case 1:
        if (!advance(arg)) return true;
        continue;
      case 2:
        set(arg, {RegRule::kOffset, static_cast<int64_t>(r.Uleb()) * cie.data_align});
        continue;
      case 3:
        restore(arg);
        continue;
      default:
        break;
    }
    switch (op) {
      case 0x00:
        break;      // nop
      case 0x01: {  // set_loc
        uint64_t to = r.Pointer(cie.fde_enc);
        if (to > pc) return true;
        *loc = to;
        break;
      }
      case 0x02:
        if (!advance(r.Fixed<uint8_t>())) return true;
        break;
      case 0x03:
        if (!advance(r.Fixed<uint16_t>())) return true;
        break;
      case 0x04:
        if (!advance(r.Fixed<uint32_t>())) return true;
        break;
      case 0x05: {  // offset_extended
        uint32_t reg = static_cast<uint32_t>(r.Uleb());
        set(reg, {RegRule::kOffset, static_cast<int64_t>(r.Uleb()) * cie.data_align});
        break;
      }
      case 0x06:
        restore(static_cast<uint32_t>(r.Uleb()));
        break;
      case 0x07:
        set(static_cast<uint32_t>(r.Uleb()), {RegRule::kUndefined, 0});
        break;
      case 0x08:
        set(static_cast<uint32_t>(r.Uleb()), {RegRule::kSame, 0});
        break;
      case 0x09: {  // register: the value lives in another register
        uint32_t reg = static_cast<uint32_t>(r.Uleb());
        r.Uleb();
        set(reg, {RegRule::kOther, 0});
        break;
      }
      case 0x0a:
        if (depth == kMaxStates) return false;
        stack[depth++] = *row;
        break;
      case 0x0b: {
        if (depth == 0) return false;
        // restore_state brings back the register rules; the CFA rule too (as GCC and
        // libunwind read it).
        *row = stack[--depth];
        break;
      }
      case 0x0c:
        row->cfa_reg = static_cast<uint32_t>(r.Uleb());
        row->cfa_offset = static_cast<int64_t>(r.Uleb());
        row->cfa_expression = false;
        break;
      case 0x0d:
        row->cfa_reg = static_cast<uint32_t>(r.Uleb());
        row->cfa_expression = false;
        break;
      case 0x0e:
        row->cfa_offset = static_cast<int64_t>(r.Uleb());
        break;
      case 0x0f: {  // def_cfa_expression
        uint64_t n = r.Uleb();
        if (!r.Need(n)) return false;
        r.p += n;
        row->cfa_expression = true;
        break;
      }
      case 0x10:    // expression
      case 0x16: {  // val_expression
        uint32_t reg = static_cast<uint32_t>(r.Uleb());
        uint64_t n = r.Uleb();
        if (!r.Need(n)) return false;
        r.p += n;
        set(reg, {RegRule::kOther, 0});
        break;
      }
      case 0x11: {  // offset_extended_sf
        uint32_t reg = static_cast<uint32_t>(r.Uleb());
        set(reg, {RegRule::kOffset, r.Sleb() * cie.data_align});
        break;
      }
      case 0x12:
        row->cfa_reg = static_cast<uint32_t>(r.Uleb());
        row->cfa_offset = r.Sleb() * cie.data_align;
        row->cfa_expression = false;
        break;
      case 0x13:
        row->cfa_offset = r.Sleb() * cie.data_align;
        break;
      case 0x14:    // val_offset
      case 0x15: {  // val_offset_sf
        uint32_t reg = static_cast<uint32_t>(r.Uleb());
        if (op == 0x14)
          r.Uleb();
        else
          r.Sleb();
        set(reg, {RegRule::kOther, 0});
        break;
      }
      case 0x2e:
        r.Uleb();
        break;  // GNU_args_size: no bearing on the CFA
      default:
        return false;  // GNU_negative_offset_extended, vendor ops
    }
  }
  return r.ok;
}

}  // namespace

bool FindFrameRule(uintptr_t pc, FrameRule* out) {
  HdrSearch s{pc};
  dl_iterate_phdr(FindHdr, &s);
  if (!s.hdr) return false;
  const uint8_t* fde = FindFde(s);
  if (!fde) return false;

  Reader r{fde, fde + 8};
  uint32_t length = r.Fixed<uint32_t>();
  if (!r.ok || length == 0 || length == 0xffffffffu) return false;
  r.end = fde + 4 + length;
  const uint8_t* cie_field = r.p;
  uint32_t cie_delta = r.Fixed<uint32_t>();
  if (!r.ok || cie_delta == 0) return false;
  Cie cie;
  if (!ParseCie(cie_field - cie_delta, &cie) || cie.signal_frame) return false;
  uint64_t begin = r.Pointer(cie.fde_enc);
  uint64_t range = r.Pointer(static_cast<uint8_t>(cie.fde_enc & 0x0f));
  if (!r.ok || pc < begin || pc - begin >= range) return false;  // a hole in the table
  if (cie.has_aug_data) {
    uint64_t n = r.Uleb();
    if (!r.Need(n)) return false;
    r.p += n;
  }

  Row row;
  uint64_t loc = begin;
  Row unset;
  if (!Execute(Reader{cie.insns, cie.end}, cie, &loc, ~uint64_t{0}, unset, &row)) return false;
  Row initial = row;  // DW_CFA_restore goes back to the CIE's rules
  loc = begin;
  if (!Execute(r, cie, &loc, pc, initial, &row)) return false;

  if (row.ra.kind == RegRule::kUndefined) {
    *out = FrameRule{FrameRule::kOutermost, false, 0, 0};
    return true;
  }
  if (row.cfa_expression || (row.cfa_reg != kRsp && row.cfa_reg != kRbp)) return false;
  if (row.ra.kind != RegRule::kOffset || row.ra.offset != -8) return false;
  if (row.cfa_offset < 8 || row.cfa_offset > INT32_MAX) return false;
  FrameRule rule{FrameRule::kFrame, row.cfa_reg == kRbp, 0, static_cast<int32_t>(row.cfa_offset)};
  if (row.rbp.kind == RegRule::kOffset) {
    if (row.rbp.offset >= 0 || row.rbp.offset < INT16_MIN) return false;
    rule.rbp_offset = static_cast<int16_t>(row.rbp.offset);
  } else if (row.rbp.kind != RegRule::kSame) {
    return false;
  }
  *out = rule;
  return true;
}

// ---- cache ------------------------------------------------------------------------------

bool FrameRuleCache::Map() {
  if (__atomic_load_n(&slots_, __ATOMIC_ACQUIRE)) return true;
  if (__atomic_load_n(&map_failed_, __ATOMIC_RELAXED)) return false;
  void* m = mmap(nullptr, sizeof(Slot) << kBits, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) {
    __atomic_store_n(&map_failed_, 1, __ATOMIC_RELAXED);
    return false;
  }
  Slot* expected = nullptr;
  if (!__atomic_compare_exchange_n(&slots_, &expected, static_cast<Slot*>(m), false,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    munmap(m, sizeof(Slot) << kBits);  // another thread mapped it first
  return true;
}

namespace {
inline uint32_t Home(uintptr_t ra) {
  uint64_t h = ra * 0x9e3779b97f4a7c15ull;
  return static_cast<uint32_t>(h >> (64 - FrameRuleCache::kBits));
}
}  // namespace

void FrameRuleCache::File(uintptr_t ra, uint64_t value, uint32_t epoch) {
  // A try-lock: when another thread is filing, this rule is simply not kept (it is
  // computed again next time). Nothing can then wait on a holder that a signal
  // interrupted, or that fork left behind in the child (which also resets it).
  if (__atomic_exchange_n(&lock_, 1, __ATOMIC_ACQUIRE)) return;
  // Up to 3/4 full: probe runs stay short. A rule read before a Forget may be from the
  // unmapped code: not kept.
  if (used_ < kFull && __atomic_load_n(&epoch_, __ATOMIC_RELAXED) == epoch) {
    uint32_t mask = (1u << kBits) - 1;
    for (uint32_t i = 0, at = Home(ra); i < kProbes; i++, at = (at + 1) & mask) {
      uint64_t key = __atomic_load_n(&slots_[at].key, __ATOMIC_RELAXED);
      if (key == ra) break;  // filed by another thread meanwhile
      if (key != 0) continue;
      __atomic_store_n(&slots_[at].value, value, __ATOMIC_RELAXED);
      __atomic_store_n(&slots_[at].key, ra, __ATOMIC_RELEASE);
      __atomic_store_n(&used_, used_ + 1, __ATOMIC_RELAXED);
      break;
    }
  }
  __atomic_store_n(&lock_, 0, __ATOMIC_RELEASE);
}

void FrameRuleCache::Forget() {
  while (__atomic_exchange_n(&lock_, 1, __ATOMIC_ACQUIRE)) sched_yield();
  if (Slot* slots = __atomic_load_n(&slots_, __ATOMIC_ACQUIRE)) {
    // Keys only: a reader that still sees its key reads a value of that key (it checks
    // the key again after the value); a cleared key ends every probe run through it.
    for (uint32_t i = 0; i < (1u << kBits); i++)
      __atomic_store_n(&slots[i].key, 0, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&used_, 0, __ATOMIC_RELAXED);
  __atomic_fetch_add(&epoch_, 1, __ATOMIC_RELEASE);
  __atomic_store_n(&lock_, 0, __ATOMIC_RELEASE);
}

bool FrameRuleCache::Lookup(uintptr_t ra, FrameRule* out) {
  if (!Map()) return false;
  uint32_t epoch = __atomic_load_n(&epoch_, __ATOMIC_ACQUIRE);
  uint32_t mask = (1u << kBits) - 1;
  for (uint32_t i = 0, at = Home(ra); i < kProbes; i++, at = (at + 1) & mask) {
    uint64_t key = __atomic_load_n(&slots_[at].key, __ATOMIC_ACQUIRE);
    if (key == ra) {
      uint64_t v = __atomic_load_n(&slots_[at].value, __ATOMIC_ACQUIRE);
      // Forgotten and filed for another address meanwhile: not this key's value.
      if (__atomic_load_n(&slots_[at].key, __ATOMIC_RELAXED) != ra) break;
      if (v == kNoRule) return false;
      *out = FrameRule::Unpack(v);
      return true;
    }
    if (key == 0) break;
  }
  // A full table (a program with over 24 K call sites on its sampled stacks) files no
  // more: a new address then goes to libunwind instead of costing a CFI search (a walk of
  // the loaded modules and a binary search) at every sample that meets it.
  if (__atomic_load_n(&used_, __ATOMIC_RELAXED) >= kFull) return false;
  bool found = FindFrameRule(ra - 1, out);
  File(ra, found ? out->Pack() : kNoRule, epoch);
  return found;
}

}  // namespace fathom::heapprof
