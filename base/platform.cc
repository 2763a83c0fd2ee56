#include "base/platform.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#if defined(_WIN32)
#include <io.h>
#else
#include <unistd.h>
#endif
#if defined(__linux__)
#include <dirent.h>
#include <sched.h>
#include <sys/mman.h>
#endif

namespace fathom::platform {

uint64_t FileSizeAndRewind(FILE* f) {
  uint64_t size = 0;
#if defined(_WIN32)
  if (_fseeki64(f, 0, SEEK_END) == 0) size = static_cast<uint64_t>(_ftelli64(f));
  _fseeki64(f, 0, SEEK_SET);
#else
  if (fseeko(f, 0, SEEK_END) == 0) size = static_cast<uint64_t>(ftello(f));
  fseeko(f, 0, SEEK_SET);
#endif
  return size;
}

bool StderrIsTerminal() {
#if defined(_WIN32)
  return _isatty(_fileno(stderr)) != 0;
#else
  return isatty(fileno(stderr)) != 0;
#endif
}

#if defined(__linux__)
namespace {
constexpr size_t kHugePage = size_t{2} << 20;
size_t RoundToHugePage(size_t bytes) { return (bytes + kHugePage - 1) & ~(kHugePage - 1); }
constexpr const char* kBalloonDriver = "/sys/bus/virtio/drivers/virtio_balloon";

const char* DecideHugePages() {
  if (const char* e = getenv("FATHOM_HUGE_PAGES"))
    return strcmp(e, "0") == 0 ? "off (FATHOM_HUGE_PAGES=0)" : "on (FATHOM_HUGE_PAGES)";
  if (VirtioBalloonReportsFreePages(kBalloonDriver))
    return "off (VM balloon reports free pages; FATHOM_HUGE_PAGES=1 forces them)";
  return "on";
}
const char* HugePagesState() {
  static const char* const state = DecideHugePages();
  return state;
}
bool HugePagesOn() { return strncmp(HugePagesState(), "on", 2) == 0; }
}  // namespace

bool VirtioBalloonReportsFreePages(const char* driver_dir) {
  DIR* dir = opendir(driver_dir);
  if (!dir) return false;
  bool reports = false;
  while (dirent* e = readdir(dir)) {
    if (strncmp(e->d_name, "virtio", 6) != 0) continue;  // the bound devices
    std::string path = std::string(driver_dir) + "/" + e->d_name + "/features";
    FILE* f = fopen(path.c_str(), "r");
    if (!f) continue;
    char bits[65] = {};
    // One character per feature bit, bit 0 first; bit 5 is VIRTIO_BALLOON_F_REPORTING.
    if (fgets(bits, sizeof bits, f) && strlen(bits) > 5 && bits[5] == '1') reports = true;
    fclose(f);
  }
  closedir(dir);
  return reports;
}

const char* LargeBlockPages() { return HugePagesState(); }

// Blocks are mappings of their own, so growing one moves page mappings (mremap) instead of
// copying bytes into fresh pages. With huge pages, mappings are 2 MiB aligned and advised.
static size_t RoundForBlocks(size_t bytes) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  if (HugePagesOn()) return RoundToHugePage(bytes);
  return (bytes + page - 1) & ~(page - 1);
}

// A fresh mapping of `len` bytes (already rounded), aligned to 2 MiB with huge pages on.
static void* MapBlock(size_t len) {
  if (!HugePagesOn()) {
    void* m = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? nullptr : m;
  }
  // Map one huge page more than needed and trim both ends to an aligned block: a huge
  // page can only back a 2 MiB-aligned range.
  size_t mapped = len + kHugePage;
  void* m = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  auto base = reinterpret_cast<uintptr_t>(m);
  uintptr_t aligned = (base + kHugePage - 1) & ~uintptr_t{kHugePage - 1};
  if (aligned > base) munmap(m, aligned - base);
  if (uintptr_t tail = base + mapped - (aligned + len))
    munmap(reinterpret_cast<void*>(aligned + len), tail);
  // Advice only: with THP off in the kernel the block is ordinary memory.
  madvise(reinterpret_cast<void*>(aligned), len, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

void* AllocateLarge(size_t bytes, size_t small_pages_prefix) {
  size_t len = RoundForBlocks(bytes);
  if (len < bytes) return nullptr;
  void* p = MapBlock(len);
  if (!p || !HugePagesOn()) return p;
  if (size_t prefix = small_pages_prefix & ~(kHugePage - 1))
    madvise(p, prefix < len ? prefix : len, MADV_NOHUGEPAGE);
  return p;
}

void* ReallocateLarge(void* p, size_t old_bytes, size_t new_bytes) {
  size_t old_len = RoundForBlocks(old_bytes), new_len = RoundForBlocks(new_bytes);
  if (new_len < new_bytes) return nullptr;
  if (new_len == old_len) return p;
  // In place when shrinking, or when the address space after the block is free.
  void* q = mremap(p, old_len, new_len, 0);
  if (q != MAP_FAILED) return q;
  if (!HugePagesOn()) {
    q = mremap(p, old_len, new_len, MREMAP_MAYMOVE);
    return q == MAP_FAILED ? nullptr : q;
  }
  // Elsewhere, but 2 MiB aligned: onto a fresh aligned mapping, which the move replaces.
  void* target = MapBlock(new_len);
  if (!target) return nullptr;
  q = mremap(p, old_len, new_len, MREMAP_MAYMOVE | MREMAP_FIXED, target);
  if (q == MAP_FAILED) {
    munmap(target, new_len);
    return nullptr;
  }
  return q;
}

void FreeLarge(void* p, size_t bytes) {
  if (p) munmap(p, RoundForBlocks(bytes));
}

// Whether the kernel knows MADV_POPULATE_WRITE (5.14+), asked once on a page of our own:
// an error from a real request may come from the range (asynchronous requests can name
// memory that has since been unmapped or reused) and must not switch prefaulting off.
static bool KernelPopulatesWrites() {
#if defined(MADV_POPULATE_WRITE)
  static const bool works = [] {
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void* m = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return false;
    bool ok = madvise(m, page, MADV_POPULATE_WRITE) == 0;
    munmap(m, page);
    return ok;
  }();
  return works;
#else
  return false;
#endif
}

bool PrefaultLargeWorks() { return KernelPopulatesWrites(); }

void RunOnlyWhenIdle() {
  sched_param param{};
  param.sched_priority = 0;
  (void)sched_setscheduler(0, SCHED_IDLE, &param);  // 0: the calling thread
}

void PrefaultLarge(void* p, size_t bytes) {
#if defined(MADV_POPULATE_WRITE)
  if (bytes == 0 || !KernelPopulatesWrites()) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t lo = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
  uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes + page - 1) & ~(page - 1);
  // A hint: on failure (out of memory, a range no longer mapped) pages fault on first write.
  (void)madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)bytes;
#endif
}
#else
void* AllocateLarge(size_t bytes, size_t) { return std::malloc(bytes); }
void* ReallocateLarge(void* p, size_t, size_t new_bytes) { return std::realloc(p, new_bytes); }
void FreeLarge(void* p, size_t) { std::free(p); }
void PrefaultLarge(void*, size_t) {}
bool PrefaultLargeWorks() { return false; }
void RunOnlyWhenIdle() {}
bool VirtioBalloonReportsFreePages(const char*) { return false; }
const char* LargeBlockPages() { return "malloc (huge pages only on Linux)"; }
#endif

}  // namespace fathom::platform
