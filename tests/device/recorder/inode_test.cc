// fathom-recorder's linux.inode_file_map on this machine's filesystem: a tree made here
// (files, subdirectories, hard links, symlinks in and out of the tree, a loop, an
// unreadable directory) mapped by the real binary and checked against lstat(2); the
// batch bound and the stop checked on InodeFileSource directly.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "core/sql/result_printer.h"
#include "inode_file_source.h"
#include "test_util.h"
#include "trace_writer.h"

namespace fathom::recorder_test {
namespace {

namespace fs = std::filesystem;
using perfetto::protos::InodeFileMap;

struct Mapped {
  uint64_t ino = 0, dev = 0;
  int type = -1;
  int entries = 0;  // entries naming this path (must be 1)
};

// path -> what the trace says about it; `mount_points` of every packet.
struct TraceMap {
  std::map<std::string, Mapped> by_path;
  std::map<uint64_t, std::vector<std::string>> paths_of_ino;  // per entry, in order
  std::set<std::string> mount_points;
  size_t packets = 0, entries = 0;
};

TraceMap ReadMap(const std::string& trace_path) {
  perfetto::protos::Trace trace;
  TraceMap m;
  EXPECT_TRUE(ParseTrace(trace_path, &trace));
  for (const auto& p : trace.packet()) {
    if (!p.has_inode_file_map()) continue;
    m.packets++;
    const InodeFileMap& ifm = p.inode_file_map();
    for (const auto& mp : ifm.mount_points()) m.mount_points.insert(mp);
    for (const auto& e : ifm.entries()) {
      m.entries++;
      for (const auto& path : e.paths()) {
        Mapped& x = m.by_path[path];
        x.ino = e.inode_number();
        x.dev = ifm.block_device_id();
        x.type = e.type();
        x.entries++;
      }
      if (e.paths_size() > 1)
        m.paths_of_ino[e.inode_number()].assign(e.paths().begin(), e.paths().end());
    }
  }
  return m;
}

int ExpectedType(const struct stat& st) {
  if (S_ISREG(st.st_mode)) return InodeFileMap::Entry::FILE;
  if (S_ISDIR(st.st_mode)) return InodeFileMap::Entry::DIRECTORY;
  return InodeFileMap::Entry::UNKNOWN;
}

// The tree: root/{f1, sub/{f2, deeper/f3, hard2}, hard1, link_in -> sub, loop -> .,
// link_out -> OUTSIDE, locked/secret (mode 000)}.
void MakeTree(const std::string& root, const std::string& outside) {
  MakeDirs(root + "/sub/deeper");
  MakeDirs(root + "/locked");
  MakeDirs(outside);
  WriteStringToFile(root + "/f1", "1");
  WriteStringToFile(root + "/sub/f2", "2");
  WriteStringToFile(root + "/sub/deeper/f3", "3");
  WriteStringToFile(root + "/hard1", "h");
  ASSERT_EQ(link((root + "/hard1").c_str(), (root + "/sub/hard2").c_str()), 0);
  ASSERT_EQ(symlink("sub", (root + "/link_in").c_str()), 0);
  ASSERT_EQ(symlink(".", (root + "/loop").c_str()), 0);
  ASSERT_EQ(symlink(outside.c_str(), (root + "/link_out").c_str()), 0);
  WriteStringToFile(outside + "/must_not_appear", "x");
  WriteStringToFile(root + "/locked/secret", "s");
  ASSERT_EQ(chmod((root + "/locked").c_str(), 0), 0);
}

TEST(RecorderInode, MapsATreeAsStatSeesIt) {
  TempDir dir;
  // Root reads a mode-000 directory anyway: the recorder then runs as nobody, as an app
  // user would, so the unreadable directory is really unreadable.
  const bool as_root = geteuid() == 0;
  if (as_root && system("command -v setpriv >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "running as root needs setpriv to become another user";
  fs::permissions(dir.path(), fs::perms::all);
  const std::string root = dir / "tree", outside = dir / "outside";
  MakeTree(root, outside);
  for (const char* d : {"tree", "tree/sub", "tree/sub/deeper", "outside"})
    fs::permissions(dir / d, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                 fs::perms::others_read | fs::perms::others_exec);
  WriteStringToFile(dir / "config.txt",
                    "duration_ms: 1500\n"
                    "data_sources { config { name: \"linux.inode_file_map\" inode_file_config {\n"
                    "  scan_delay_ms: 1 scan_interval_ms: 1 scan_batch_size: 4\n"
                    "  scan_mount_points: \"" +
                        root + "\" } } }\n");
  const std::string as_nobody =
      as_root ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  std::string cmd = as_nobody + FATHOM_RECORDER + " --txt -c " + dir / "config.txt" + " -o " +
                    dir / "trace.pftrace" + " 2>" + dir / "stderr";
  int status = system(cmd.c_str());
  std::string err = ReadFileOrDie(dir / "stderr");
  ASSERT_EQ(WEXITSTATUS(status), 0) << err;
  EXPECT_NE(err.find("could not read 1 directories"), std::string::npos) << err;
  EXPECT_EQ(err.find("ended before the walk"), std::string::npos) << err;

  TraceMap m = ReadMap(dir / "trace.pftrace");
  // Batches of 4 inodes: several packets, none bigger than a batch.
  EXPECT_GE(m.packets, 3u);
  std::set<std::string> expected;
  for (const char* rel : {"", "/f1", "/sub", "/sub/deeper", "/sub/deeper/f3", "/sub/f2", "/hard1",
                          "/sub/hard2", "/link_in", "/loop", "/link_out", "/locked"})
    expected.insert(root + rel);
  std::set<std::string> got;
  for (const auto& [path, x] : m.by_path) got.insert(path);
  EXPECT_EQ(got, expected);
  for (const std::string& path : expected) {
    struct stat st;
    ASSERT_EQ(lstat(path.c_str(), &st), 0) << path;
    const Mapped& x = m.by_path[path];
    EXPECT_EQ(x.ino, static_cast<uint64_t>(st.st_ino)) << path;
    EXPECT_EQ(x.dev, static_cast<uint64_t>(st.st_dev)) << path;
    EXPECT_EQ(x.type, ExpectedType(st)) << path;
    EXPECT_EQ(x.entries, 1) << path;
  }
  // The hard-linked file is one entry with both paths.
  struct stat hard;
  ASSERT_EQ(lstat((root + "/hard1").c_str(), &hard), 0);
  std::vector<std::string> links = m.paths_of_ino[hard.st_ino];
  std::sort(links.begin(), links.end());
  EXPECT_EQ(links, (std::vector<std::string>{root + "/hard1", root + "/sub/hard2"}));
  // Nothing behind a symlink, nothing inside the unreadable directory.
  for (const auto& [path, x] : m.by_path) {
    EXPECT_EQ(path.find("must_not_appear"), std::string::npos) << path;
    EXPECT_EQ(path.find("/secret"), std::string::npos) << path;
    EXPECT_EQ(path.rfind(root + "/link_in/", 0), std::string::npos) << path;
    EXPECT_EQ(path.rfind(root + "/loop/", 0), std::string::npos) << path;
  }
  // The mount points are those of the tree's filesystem: one of them holds the tree.
  struct stat rs;
  ASSERT_EQ(stat(root.c_str(), &rs), 0);
  bool holds = false;
  for (const std::string& mp : m.mount_points) {
    struct stat ms;
    if (stat(mp.c_str(), &ms) == 0 && ms.st_dev == rs.st_dev && S_ISDIR(ms.st_mode) &&
        (mp == "/" || root.rfind(mp + "/", 0) == 0))
      holds = true;
  }
  EXPECT_TRUE(holds) << "no mount point of the tree's device among " << m.mount_points.size();
  chmod((root + "/locked").c_str(), 0755);  // so TempDir can remove it
}

// The recorder's own output, loaded by Fathom and by trace_processor_shell v58.2: the
// same answers (upstream imports InodeFileMap into nothing: no table, no stat, no bounds).
TEST(RecorderInode, CoreAnswersAsTheOracleOnTheRecordersTrace) {
  const std::string oracle = std::string(FATHOM_SHARED_DIR) + "/oracle/trace_processor_shell";
  if (!fs::exists(oracle)) GTEST_SKIP() << "no oracle at " << oracle;
  TempDir dir;
  MakeDirs(dir / "tree/a/b");
  WriteStringToFile(dir / "tree/a/b/f", "f");
  WriteStringToFile(dir / "config.txt",
                    "duration_ms: 300\n"
                    "data_sources { config { name: \"linux.inode_file_map\" inode_file_config {\n"
                    "  scan_delay_ms: 1 scan_mount_points: \"" +
                        dir / "tree" + "\" } } }\n");
  std::string err;
  ASSERT_EQ(RunRecorder({"--txt", "-c", dir / "config.txt", "-o", dir / "t.pftrace"}, &err), 0)
      << err;
  ASSERT_EQ(ReadMap(dir / "t.pftrace").entries, 4u);
  const std::string sql =
      "select name, idx, severity, source, value from stats where value > 0 and "
      "source != 'analysis' order by name, idx;\n"
      "select start_ts > 0 as started, end_ts >= start_ts as ordered from trace_bounds;\n";
  WriteStringToFile(dir / "q.sql", sql);
  std::string want;
  FILE* p = popen(
      (oracle + " query -f " + dir / "q.sql" + " " + dir / "t.pftrace" + " 2>/dev/null").c_str(),
      "r");
  ASSERT_TRUE(p);
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) want.append(buf, n);
  pclose(p);
  ASSERT_NE(want.find("\"started\",\"ordered\""), std::string::npos) << "oracle: " << want;
  TraceProcessor tp;
  ASSERT_TRUE(tp.LoadFile(dir / "t.pftrace").ok());
  std::string got;
  auto it = tp.Query(sql);
  ASSERT_TRUE(PrintResults(it.get(), ResultFormat::kCsv, &got).ok());
  EXPECT_EQ(got, want);
}

// Walks `root` with InodeFileSource into `trace`, calling Step as the recorder's loop.
struct Harness {
  std::unique_ptr<device::TraceWriter> writer;
  std::unique_ptr<recorder::InodeFileSource> source;
  Harness(const std::string& trace, const recorder::InodeFileSourceConfig& c) {
    auto w = device::TraceWriter::Open(trace, {});
    EXPECT_TRUE(w.ok());
    writer = std::move(*w);
    source = std::make_unique<recorder::InodeFileSource>(c, writer.get(), 1);
  }
};

TEST(RecorderInode, OneBatchAtATimeAndStopEndsTheWalk) {
  TempDir dir;
  const std::string root = dir / "many";
  MakeDirs(root);
  for (int i = 0; i < 50; i++) WriteStringToFile(root + "/f" + std::to_string(i), "");
  recorder::InodeFileSourceConfig c;
  c.scan_mount_points = {root};
  c.scan_delay_ms = 5;
  c.scan_batch_size = 10;
  c.scan_interval_ms = 3600 * 1000;  // the second batch never comes
  Harness h(dir / "t.pftrace", c);
  h.source->Start(0);
  EXPECT_TRUE(h.source->Step(1000000));  // before the delay: nothing
  EXPECT_EQ(h.source->counts().inodes, 0u);
  EXPECT_TRUE(h.source->Step(10 * 1000000));
  EXPECT_EQ(h.source->counts().inodes, 10u);  // the root and 9 files
  EXPECT_EQ(h.source->counts().batches, 1u);
  EXPECT_TRUE(h.source->Step(20 * 1000000));  // the interval has not passed
  EXPECT_EQ(h.source->counts().inodes, 10u);
  h.source->Stop();  // the trace ends mid-walk
  EXPECT_TRUE(h.source->done());
  EXPECT_FALSE(h.source->Step(INT64_MAX / 2));
  EXPECT_EQ(h.source->counts().inodes, 10u);
  ASSERT_TRUE(h.writer->Close().ok());
  TraceMap m = ReadMap(dir / "t.pftrace");
  EXPECT_EQ(m.entries, 10u);
}

TEST(RecorderInode, DoNotScanWritesTheDeviceAndMountPointsOnly) {
  TempDir dir;
  recorder::InodeFileSourceConfig c;
  c.scan_mount_points = {dir.path()};
  c.do_not_scan = true;
  Harness h(dir / "t.pftrace", c);
  h.source->Start(0);
  EXPECT_TRUE(h.source->done());
  ASSERT_TRUE(h.writer->Close().ok());
  perfetto::protos::Trace trace;
  ASSERT_TRUE(ParseTrace(dir / "t.pftrace", &trace));
  ASSERT_EQ(trace.packet_size(), 1);
  struct stat st;
  ASSERT_EQ(stat(dir.path().c_str(), &st), 0);
  EXPECT_EQ(trace.packet(0).inode_file_map().block_device_id(), static_cast<uint64_t>(st.st_dev));
  EXPECT_EQ(trace.packet(0).inode_file_map().entries_size(), 0);
  EXPECT_GT(trace.packet(0).inode_file_map().mount_points_size(), 0);
}

TEST(RecorderInode, RootsFollowTheConfig) {
  recorder::InodeFileSourceConfig c;
  EXPECT_EQ(recorder::InodeScanRoots(c), std::vector<std::string>{"/"});
  c.mount_point_mapping = {{"/data", {"/data/app", "/data/local/tmp/"}}};
  EXPECT_EQ(recorder::InodeScanRoots(c),
            (std::vector<std::string>{"/data/app", "/data/local/tmp"}));
  c.scan_mount_points = {"/system", "/data"};
  EXPECT_EQ(recorder::InodeScanRoots(c),
            (std::vector<std::string>{"/system", "/data/app", "/data/local/tmp"}));
}

TEST(RecorderInode, MountInfoIsParsedWithEscapes) {
  TempDir dir;
  WriteStringToFile(dir / "mountinfo",
                    "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"
                    "23 22 8:1 /x /mnt/with\\040space rw - ext4 /dev/sda1 rw\n"
                    "24 22 0:5 / /proc rw - proc proc rw\n"
                    "garbage\n");
  auto m = recorder::ReadMountPoints(dir / "mountinfo");
  ASSERT_EQ(m.size(), 3u);
  auto r = m.equal_range(makedev(8, 1));
  std::vector<std::string> sda;
  for (auto it = r.first; it != r.second; ++it) sda.push_back(it->second);
  EXPECT_EQ(sda, (std::vector<std::string>{"/", "/mnt/with space"}));
}

}  // namespace
}  // namespace fathom::recorder_test
