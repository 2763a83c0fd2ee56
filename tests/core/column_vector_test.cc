// Column storage (ColumnVector): values survive growth across the small/large boundary,
// growing a large block does not hold old and new copies at once, large blocks are 2 MiB
// aligned and (where the kernel offers transparent huge pages) advised to use them; trace
// blobs with headroom still prepend and free. With async prefault on, the step after the
// usable room is faulted in by the helper thread, and stale requests do no harm.
#include "core/base/column_vector.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "core/base/async_prefault.h"
#include "base/platform.h"
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

TEST(ColumnVectorTest, GrowsAcrossTheThresholdKeepingValues) {
#if defined(__linux__)
  // Under ctest each test has its own process, so this decides the policy before the
  // first large block. In a run of the whole binary an earlier test may have decided it
  // already (off on a VM whose balloon reports free pages): the mapping checks below
  // then do not apply.
  setenv("FATHOM_HUGE_PAGES", "1", 1);
#endif
  ColumnVector<uint64_t> v;
  const size_t n = 3 * ColumnVector<uint64_t>::kLargeBytes / sizeof(uint64_t);
  for (size_t i = 0; i < n; i++) v.push_back(i * 2654435761u);
  for (size_t i = 0; i < n; i += 997) ASSERT_EQ(v[i], i * 2654435761u) << i;
  ASSERT_EQ(v.size(), n);
#if defined(__linux__)
  const bool huge = std::string(platform::LargeBlockPages()).rfind("on", 0) == 0;
  if (huge) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % (2u << 20), 0u);
  }
  std::string smaps = SmapsOf(v.data());
  ASSERT_FALSE(smaps.empty());
  // "hg": the mapping was advised MADV_HUGEPAGE.
  size_t flags = smaps.find("VmFlags:");
  ASSERT_NE(flags, std::string::npos) << smaps;
  if (huge && KernelOffersHugePages()) {
    EXPECT_NE(smaps.find(" hg", flags), std::string::npos) << smaps;
  }
#endif
  // Small vectors stay with malloc (no 2 MiB mapping per tiny column).
  ColumnVector<uint32_t> small(100, 7);
  EXPECT_EQ(small[99], 7u);
  v.clear();
  v.shrink_to_fit();
  EXPECT_EQ(v.capacity(), 0u);
}

TEST(ColumnVectorTest, BehavesAsAVectorAcrossTheBoundary) {
  struct Row {
    uint32_t a;
    int64_t b;
  };
  ColumnVector<Row> v;
  const size_t n = ColumnVector<Row>::kLargeBytes / sizeof(Row) + 12345;
  for (size_t i = 0; i < n; i++) v.push_back({static_cast<uint32_t>(i), -static_cast<int64_t>(i)});
  // An element of the vector itself pushed while it grows (std::vector allows this).
  while (v.size() != v.capacity()) v.push_back(v[0]);
  v.push_back(v[7]);
  EXPECT_EQ(v.back().a, 7u);
  EXPECT_EQ(v.back().b, -7);
  ColumnVector<Row> copy = v;
  v.resize(10);
  v.shrink_to_fit();  // large to small: copied into a malloc block
  EXPECT_EQ(v.capacity(), 10u);
  EXPECT_EQ(v[9].b, -9);
  EXPECT_EQ(copy[n - 1].a, n - 1);
  ColumnVector<Row> moved = std::move(copy);
  EXPECT_EQ(copy.size(), 0u);
  EXPECT_EQ(moved[n / 2].b, -static_cast<int64_t>(n / 2));
  const size_t m = moved.size();
  moved.resize(m + 5, Row{1, 2});
  EXPECT_EQ(moved[m + 4].b, 2);
  EXPECT_EQ(moved[m - 1].a, 7u);
  EXPECT_EQ(moved[n - 1].a, n - 1);
  moved.assign(3, Row{4, 5});
  EXPECT_EQ(moved.size(), 3u);
  EXPECT_EQ(moved[2].a, 4u);
}

#if defined(__linux__)
uint64_t PeakRssKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6));
  return 0;
}

// std::vector doubling from 128 to 256 MiB holds both blocks while it copies (peak 1.33x
// of the 192 MiB filled here); growing by moving mappings peaks at what is filled.
TEST(ColumnVectorTest, GrowingALargeBlockNeverHoldsTwoCopies) {
  std::ofstream("/proc/self/clear_refs") << "5";  // resets VmHWM to the current RSS
  uint64_t before = PeakRssKb();
  ASSERT_GT(before, 0u);
  ColumnVector<uint64_t> v;
  const size_t n = (size_t{192} << 20) / sizeof(uint64_t);
  for (size_t i = 0; i < n; i++) v.push_back(i);
  uint64_t grew_kb = PeakRssKb() - before;
  if (std::string(platform::LargeBlockPages()).rfind("on", 0) != 0) {
    EXPECT_LT(grew_kb, (size_t{192} << 10) * 110 / 100) << "peak RSS grew by " << grew_kb << " KiB";
  }
  EXPECT_GE(grew_kb, (size_t{192} << 10) * 90 / 100);
  // Usable room beyond the last element is faulted in a step at a time, not a doubling.
  EXPECT_LE((v.capacity() - v.size()) * sizeof(uint64_t), ColumnVector<uint64_t>::kPrefaultBytes);
  EXPECT_EQ(v[n - 1], n - 1);
  EXPECT_EQ(v[n / 3], n / 3);
}
#endif

#if defined(__linux__)
// Pages of [p, p + bytes) the kernel has in memory (mincore).
size_t ResidentPages(const void* p, size_t bytes) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t lo = reinterpret_cast<uintptr_t>(p) & ~(page - 1);
  uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes + page - 1) & ~(page - 1);
  std::vector<unsigned char> in((hi - lo) / page);
  if (mincore(reinterpret_cast<void*>(lo), hi - lo, in.data()) != 0) return 0;
  size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}

// With async prefault on (the ftrace table writer's thread), the step after the usable
// room is faulted in by the helper, so the writer finds it present; without it, that
// step stays untouched until appends reach it.
TEST(ColumnVectorTest, AsyncPrefaultFaultsInTheNextStepAhead) {
  if (!platform::PrefaultLargeWorks()) GTEST_SKIP() << "kernel without MADV_POPULATE_WRITE";
  constexpr size_t kStep = ColumnVector<uint64_t>::kPrefaultBytes;
  const size_t n = (size_t{40} << 20) / sizeof(uint64_t);  // past the 16 MiB large-block size
  for (bool async : {false, true}) {
    platform::SetAsyncPrefaultForThisThread(async);
    ColumnVector<uint64_t> v;
    for (size_t i = 0; i < n; i++) v.push_back(i);
    platform::WaitForAsyncPrefaults();
    // The step past the usable room: the helper's, or nobody's yet.
    const uint64_t* ahead = v.data() + v.capacity();
    size_t pages = kStep / static_cast<size_t>(sysconf(_SC_PAGESIZE));
    size_t resident = ResidentPages(ahead, kStep);
    if (async) {
      EXPECT_EQ(resident, pages) << "the helper did not fault in the step ahead";
    } else if (std::string(platform::LargeBlockPages()).rfind("on", 0) != 0) {
      EXPECT_EQ(resident, 0u);  // (a huge page would bring its whole 2 MiB in at once)
    }
    for (size_t i = 0; i < n; i += 4097) ASSERT_EQ(v[i], i);
    EXPECT_EQ(v[n - 1], n - 1);
  }
  platform::SetAsyncPrefaultForThisThread(false);
}

// Requests go stale when a block moves, shrinks or is freed before the helper gets to
// them: values stay intact and nothing crashes (a request only faults in pages).
TEST(ColumnVectorTest, AsyncPrefaultSurvivesMovedAndFreedBlocks) {
  platform::SetAsyncPrefaultForThisThread(true);
  for (int round = 0; round < 8; round++) {
    std::vector<ColumnVector<uint32_t>> columns(6);
    const size_t n = (size_t{20} << 20) / sizeof(uint32_t);
    for (size_t i = 0; i < n; i++)
      for (size_t c = 0; c < columns.size(); c++)
        columns[c].push_back(static_cast<uint32_t>(i + c));
    columns[1].shrink_to_fit();
    columns[2] = ColumnVector<uint32_t>(columns[3]);  // a copy: a fresh block
    columns[4].swap(columns[5]);
    columns[0] = ColumnVector<uint32_t>();  // freed with a request possibly pending
    for (size_t i = 0; i < n; i += 1021) {
      ASSERT_EQ(columns[1][i], i + 1);
      ASSERT_EQ(columns[2][i], i + 3);
      ASSERT_EQ(columns[4][i], i + 5);
      ASSERT_EQ(columns[5][i], i + 4);
    }
    for (size_t i = 0; i < n; i++) columns[1].push_back(7);  // grows the shrunk block
    ASSERT_EQ(columns[1][n - 1], n);
    ASSERT_EQ(columns[1][2 * n - 1], 7u);
  }
  platform::WaitForAsyncPrefaults();
  platform::SetAsyncPrefaultForThisThread(false);
}
#endif

TEST(ColumnVectorTest, LargeTraceBlobPrependsAndFrees) {
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
TEST(ColumnVectorTest, DetectsABalloonThatReportsFreePages) {
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
