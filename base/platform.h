// The few OS-specific calls core/ needs, kept in one place so everything else
// stays portable (Windows, macOS, Linux).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace fathom::platform {

// Size of an open file in bytes (64-bit safe); leaves the position at 0.
uint64_t FileSizeAndRewind(FILE* f);
// Whether stderr is a terminal (progress lines use \r only there).
bool StderrIsTerminal();

// Memory for big, long-lived arrays (table columns, column_vector.h; read chunks,
// trace_blob.h) of at least kLargeBlockBytes. On Linux each block is a mapping of its
// own, so ReallocateLarge grows it by moving page mappings (mremap): no bytes copied, no
// fresh pages touched, no old block alive next to the new one. Huge pages: blocks are
// also 2 MiB aligned and advised to use transparent huge pages: a load writes ~100 bytes
// per event into fresh memory, and one page fault per 2 MiB instead of one per 4 KiB cut
// the CPU time of a compact_sched load by ~30 %. Not in a VM whose balloon reports free
// pages to its host: the host takes back free 2 MiB blocks, and backing a huge page again
// cost the first load after a pause more than huge pages saved (2.4 s vs 1.8 s cold on
// the development VM, 1.5 vs 1.7 s warm). FATHOM_HUGE_PAGES=0/1 overrides. Elsewhere
// malloc/realloc/free. nullptr when out of memory (ReallocateLarge then leaves the block
// as it was). With huge pages, the first `small_pages_prefix` bytes (rounded down to
// 2 MiB) keep ordinary pages: room that is mostly never written (a read chunk's headroom)
// would otherwise cost 2 MiB of memory as soon as one byte of it is.
constexpr size_t kLargeBlockBytes = size_t{16} << 20;
void* AllocateLarge(size_t bytes, size_t small_pages_prefix = 0);
void* ReallocateLarge(void* p, size_t old_bytes, size_t new_bytes);
void FreeLarge(void* p, size_t bytes);
// Faults in [p, p + bytes) of a large block for writing in one call, instead of one page
// fault per page as it is first written (Linux 5.14+; elsewhere nothing).
void PrefaultLarge(void* p, size_t bytes);
// Lets the calling thread run only on a core nothing else wants (Linux SCHED_IDLE;
// elsewhere nothing): for helpers whose work is an optimisation, never a dependency.
void RunOnlyWhenIdle();
// Whether PrefaultLarge does anything here (Linux 5.14+; asked of the kernel once).
bool PrefaultLargeWorks();
// How AllocateLarge backs blocks, for benchmarks and logs: "on", or "off (why)".
const char* LargeBlockPages();
// Whether a virtio balloon bound under `driver_dir` (sysfs) has free page reporting.
bool VirtioBalloonReportsFreePages(const char* driver_dir);

}  // namespace fathom::platform
