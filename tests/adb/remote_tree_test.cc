// Names from a device listing and the directory walk of `pull DIR` (adb/device_names.h,
// adb/remote_tree.h): unsafe names are never handed out, the walk is iterative and bounded,
// and whatever it leaves out is reported.
#include "adb/remote_tree.h"

#include <gtest/gtest.h>

#include <map>

#include "adb/device_names.h"

namespace fathom::adb {
namespace {

TEST(DeviceNames, RejectsEveryNameThatIsNotOneComponent) {
  using namespace std::string_literals;
  for (const std::string& bad :
       {""s, "."s, ".."s, "..\0"s, "a\0b"s, "../x"s, "/etc/passwd"s, "a/b"s, "a\\b"s, "\\x"s, "C:"s,
        "c:evil"s, std::string(256, 'n')}) {
    EXPECT_FALSE(UnsafeEntryNameReason(bad).empty()) << EscapeForTerminal(bad);
  }
  for (const std::string& good :
       {"a"s, "..."s, ".hidden"s, "a..b"s, "ab:c"s, "1:2"s, "sp ace"s, std::string(255, 'n')}) {
    EXPECT_EQ(UnsafeEntryNameReason(good), "") << good;
  }
}

TEST(DeviceNames, EscapeKeepsPrintableAsciiOnly) {
  EXPECT_EQ(EscapeForTerminal(std::string("..\0", 3)), "..\\x00");
  EXPECT_EQ(EscapeForTerminal("\x1b[2Jok\\"), "\\x1b[2Jok\\x5c");
  EXPECT_EQ(EscapeForTerminal(std::string(300, 'm'), 4), "mmmm...");
}

SyncDirEntry Entry(std::string name, uint32_t mode) {
  SyncDirEntry e;
  e.name = std::move(name);
  e.stat.mode = mode;
  return e;
}
constexpr uint32_t kDir = 040755, kFile = 0100644;

struct Walk {
  std::vector<std::string> visited;  // relative paths joined with '/'
  RemoteTreeReport report;
  Status status;
};

Walk WalkTree(const RemoteListFn& list, RemoteTreeLimits limits = {}) {
  Walk w;
  w.status = WalkRemoteTree(
      "/r", list,
      [&](const RemoteTreeEntry& e) {
        std::string rel;
        for (const auto& p : e.relative) rel += (rel.empty() ? "" : "/") + p;
        w.visited.push_back(rel);
        return Status::Ok();
      },
      limits, &w.report, CancelToken());
  return w;
}

TEST(RemoteTree, HostileNamesAreReportedNotVisited) {
  using namespace std::string_literals;
  Walk w = WalkTree([](const std::string& dir) -> Result<std::vector<SyncDirEntry>> {
    if (dir != "/r") return std::vector<SyncDirEntry>{Entry("f", kFile)};
    return std::vector<SyncDirEntry>{
        Entry(".", kDir),     Entry("..", kDir),        Entry("..\0"s, kDir),   Entry("", kDir),
        Entry("../e", kFile), Entry("/tmp/abs", kFile), Entry("ok.txt", kFile), Entry("sub", kDir)};
  });
  ASSERT_TRUE(w.status.ok()) << w.status.message();
  EXPECT_EQ(w.visited, (std::vector<std::string>{"ok.txt", "sub", "sub/f"}));
  EXPECT_EQ(w.report.dropped_count, 4u);
  ASSERT_EQ(w.report.dropped.size(), 4u);
  EXPECT_NE(w.report.dropped[0].find("/r/..\\x00: unsafe name (contains a NUL byte)"),
            std::string::npos)
      << w.report.dropped[0];
}

TEST(RemoteTree, EndlessDepthStopsAtTheLimitWithoutRecursion) {
  // Every directory holds another one: 100,000 levels would overflow a recursive walk; the
  // limit stops it at 64 and says so.
  int listings = 0;
  Walk w = WalkTree([&](const std::string&) -> Result<std::vector<SyncDirEntry>> {
    ++listings;
    return std::vector<SyncDirEntry>{Entry("d", kDir)};
  });
  ASSERT_TRUE(w.status.ok());
  EXPECT_EQ(listings, 65);
  EXPECT_EQ(w.visited.size(), 65u);
  ASSERT_EQ(w.report.dropped.size(), 1u);
  EXPECT_NE(w.report.dropped[0].find("more than 64 levels deep (--max-depth)"), std::string::npos);

  RemoteTreeLimits deep;
  deep.max_depth = 100000;
  deep.max_entries = 1u << 30;
  listings = 0;
  w = WalkTree(
      [&](const std::string& dir) -> Result<std::vector<SyncDirEntry>> {
        ++listings;
        if (dir.size() > 200000) return std::vector<SyncDirEntry>{};
        return std::vector<SyncDirEntry>{Entry("d", kDir)};
      },
      deep);
  // Paths stop at kSyncPathMax long before: each level adds 2 bytes.
  EXPECT_EQ(w.report.dropped_count, 1u);
  EXPECT_NE(w.report.dropped[0].find("path longer than 1024 bytes"), std::string::npos);
}

TEST(RemoteTree, EntryLimitSaysWhatWasLeftOut) {
  RemoteTreeLimits limits;
  limits.max_entries = 10;
  Walk w = WalkTree(
      [](const std::string& dir) -> Result<std::vector<SyncDirEntry>> {
        std::vector<SyncDirEntry> v;
        if (dir == "/r") v.push_back(Entry("a", kDir));
        for (int i = 0; i < 30; ++i) v.push_back(Entry("f" + std::to_string(i), kFile));
        return v;
      },
      limits);
  ASSERT_TRUE(w.status.ok());
  EXPECT_EQ(w.visited.size(), 10u);
  EXPECT_EQ(w.report.entries, 10u);
  ASSERT_EQ(w.report.dropped.size(), 1u);
  EXPECT_NE(w.report.dropped[0].find("limit of 10 entries (--max-entries): 21 more in /r and 1 "
                                     "directories not listed"),
            std::string::npos)
      << w.report.dropped[0];
}

TEST(RemoteTree, ListErrorsEndTheWalk) {
  Walk w = WalkTree(
      [](const std::string&) -> Result<std::vector<SyncDirEntry>> { return ErrorStatus("boom"); });
  EXPECT_FALSE(w.status.ok());
}

}  // namespace
}  // namespace fathom::adb
