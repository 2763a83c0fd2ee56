#include "core/base/platform.h"

#include <new>

#if defined(_WIN32)
#include <io.h>
#else
#include <unistd.h>
#endif
#if defined(__linux__)
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
}  // namespace

void* AllocateLarge(size_t bytes, size_t small_pages_prefix) {
  size_t len = RoundToHugePage(bytes);
  if (len < bytes) return nullptr;
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
  // Advice only: without THP (or with it off) the block is ordinary memory.
  madvise(reinterpret_cast<void*>(aligned), len, MADV_HUGEPAGE);
  if (size_t prefix = small_pages_prefix & ~(kHugePage - 1))
    madvise(reinterpret_cast<void*>(aligned), prefix < len ? prefix : len, MADV_NOHUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

void FreeLarge(void* p, size_t bytes) {
  if (p) munmap(p, RoundToHugePage(bytes));
}
#else
void* AllocateLarge(size_t bytes, size_t) { return ::operator new(bytes, std::nothrow); }
void FreeLarge(void* p, size_t) { ::operator delete(p); }
#endif

}  // namespace fathom::platform
