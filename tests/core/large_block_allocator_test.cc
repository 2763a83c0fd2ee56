// Column storage from LargeBlockAllocator: values survive growth across the small/large
// boundary, large blocks are 2 MiB aligned and (where the kernel offers transparent huge
// pages) advised to use them; trace blobs with headroom still prepend and free.
#include "core/base/large_block_allocator.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "core/base/platform.h"
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
#if defined(__linux__)
  // Under ctest each test has its own process, so this decides the policy before the
  // first large block. In a run of the whole binary an earlier test may have decided it
  // already (off on a VM whose balloon reports free pages): the mapping checks below
  // then do not apply.
  setenv("FATHOM_HUGE_PAGES", "1", 1);
#endif
  ColumnVector<uint64_t> v;
  const size_t n = 3 * LargeBlockAllocator<uint64_t>::kLargeBytes / sizeof(uint64_t);
  for (size_t i = 0; i < n; i++) v.push_back(i * 2654435761u);
  for (size_t i = 0; i < n; i += 997) ASSERT_EQ(v[i], i * 2654435761u) << i;
  ASSERT_EQ(v.size(), n);
#if defined(__linux__)
  const bool huge = std::string(platform::LargeBlockPages()).rfind("on", 0) == 0;
  if (huge) EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % (2u << 20), 0u);
  std::string smaps = SmapsOf(v.data());
  ASSERT_FALSE(smaps.empty());
  // "hg": the mapping was advised MADV_HUGEPAGE.
  size_t flags = smaps.find("VmFlags:");
  ASSERT_NE(flags, std::string::npos) << smaps;
  if (huge && KernelOffersHugePages()) {
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

#if defined(__linux__)
// A fake sysfs driver directory: bound devices "virtioN" with a features file, one
// character per feature bit (bit 5: free page reporting).
TEST(LargeBlockAllocatorTest, DetectsABalloonThatReportsFreePages) {
  std::string dir = testing::TempDir() + "/fake_balloon_" + std::to_string(getpid());
  std::string dev = dir + "/virtio3";
  ASSERT_EQ(system(("rm -rf " + dir + " && mkdir -p " + dev).c_str()), 0);
  auto features = [&](const char* bits) { std::ofstream(dev + "/features") << bits << "\n"; };
  EXPECT_FALSE(platform::VirtioBalloonReportsFreePages((dir + "/missing").c_str()));
  features("0110000000000000000000000000000010000000");  // stats, deflate-on-oom
  EXPECT_FALSE(platform::VirtioBalloonReportsFreePages(dir.c_str()));
  features("0110010100000000000000000000000010000000");  // + free page reporting
  EXPECT_TRUE(platform::VirtioBalloonReportsFreePages(dir.c_str()));
  std::string other = dir + "/module";  // not a device: ignored
  ASSERT_EQ(system(("mkdir -p " + other + " && echo 1111111 > " + other + "/features").c_str()), 0);
  features("0");
  EXPECT_FALSE(platform::VirtioBalloonReportsFreePages(dir.c_str()));
  system(("rm -rf " + dir).c_str());
}
#endif

}  // namespace
}  // namespace fathom
