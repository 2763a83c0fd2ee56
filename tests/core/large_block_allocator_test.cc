// Column storage from LargeBlockAllocator: values survive growth across the small/large
// boundary, large blocks are 2 MiB aligned and (where the kernel offers transparent huge
// pages) advised to use them; trace blobs with headroom still prepend and free.
#include "core/base/large_block_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "core/import/trace_blob.h"

namespace fathom {
namespace {

#if defined(__linux__)
// The smaps block of the mapping that holds `p`.
std::string SmapsOf(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line, block;
  auto addr = reinterpret_cast<uintptr_t>(p);
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t lo = 0, hi = 0;
    if (sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find(' ') != std::string::npos &&
        line.find('-') < line.find(' ')) {
      if (inside) break;
      inside = addr >= lo && addr < hi;
    }
    if (inside) block += line + "\n";
  }
  return block;
}

bool KernelOffersHugePages() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string s;
  std::getline(f, s);
  return !s.empty() && s.find("[never]") == std::string::npos;
}
#endif

TEST(LargeBlockAllocatorTest, GrowsAcrossTheThresholdKeepingValues) {
  ColumnVector<uint64_t> v;
  const size_t n = 3 * LargeBlockAllocator<uint64_t>::kLargeBytes / sizeof(uint64_t);
  for (size_t i = 0; i < n; i++) v.push_back(i * 2654435761u);
  for (size_t i = 0; i < n; i += 997) ASSERT_EQ(v[i], i * 2654435761u) << i;
  ASSERT_EQ(v.size(), n);
#if defined(__linux__)
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % (2u << 20), 0u);
  std::string smaps = SmapsOf(v.data());
  ASSERT_FALSE(smaps.empty());
  // "hg": the mapping was advised MADV_HUGEPAGE.
  size_t flags = smaps.find("VmFlags:");
  ASSERT_NE(flags, std::string::npos) << smaps;
  if (KernelOffersHugePages()) {
    EXPECT_NE(smaps.find(" hg", flags), std::string::npos) << smaps;
  }
#endif
  // Small vectors stay with operator new (no 2 MiB mapping per tiny column).
  ColumnVector<uint32_t> small(100, 7);
  EXPECT_EQ(small[99], 7u);
  v.clear();
  v.shrink_to_fit();
  EXPECT_EQ(v.capacity(), 0u);
}

TEST(LargeBlockAllocatorTest, LargeTraceBlobPrependsAndFrees) {
  const size_t n = TraceBlob::kLargeBytes;
  auto blob = TraceBlob::AllocateWithHeadroom(4 << 20, n);
  ASSERT_TRUE(blob);
  memset(blob->data.get(), 0xab, n);
  const uint8_t tail[5] = {1, 2, 3, 4, 5};
  ASSERT_TRUE(blob->Prepend(tail, sizeof tail));
  EXPECT_EQ(blob->size, n + sizeof tail);
  EXPECT_EQ(blob->data[0], 1);
  EXPECT_EQ(blob->data[sizeof tail], 0xab);
  EXPECT_EQ(blob->data[n + sizeof tail - 1], 0xab);
  blob.reset();  // frees the whole mapping from its start, not from the prepended data
  auto small = TraceBlob::AllocateWithHeadroom(16, 100);
  EXPECT_TRUE(small->Prepend(tail, 3));
}

}  // namespace
}  // namespace fathom
