// linux.inode_file_map: InodeFileMap packets (block device, its mount points, and
// inode number -> path(s) and type) from a bounded walk of the configured roots.
//
// Upstream's producer resolves only the inodes that ftrace file events named, scanning
// for the ones it cannot find; fathom-recorder has no such event feed, so it maps every
// inode under the roots instead (see README, "Recording"):
//   roots = scan_mount_points, each replaced by its mount_point_mapping scan_roots;
//           with no scan_mount_points, every mapping's scan_roots; with neither, "/".
//   do_not_scan: no walk; one InodeFileMap per root's device with its mount points only.
// The walk starts scan_delay_ms after the start, maps at most scan_batch_size inodes per
// batch and pauses scan_interval_ms between batches (0 = upstream's defaults: 10 s, 10 s,
// 15000). It stops at the trace's end or when every root is done.
//
// Bounds: it never follows a symlink (symlinks are entries of type UNKNOWN), never leaves
// the root's filesystem or enters another mount point (like find -xdev), and skips
// directories it cannot read (counted, reported once). Each call of Step() also stops
// after a few milliseconds so the single-threaded recorder still drains ftrace on time; a
// batch then continues at the next tick. Memory: one open directory, the paths of the
// directories still to visit, and the hard-linked files seen so far (a file with several
// links gets one entry with all its paths, written when the walk ends or the trace stops).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "config.h"
#include "proto_writer.h"
#include "trace_writer.h"

namespace fathom::recorder {

// Mount points by device number, from /proc/self/mountinfo (major:minor of each mount).
std::multimap<dev_t, std::string> ReadMountPoints(const std::string& mountinfo_path);

// The roots the config asks for (see the header comment); deduplicated, nested roots on
// the same path prefix dropped.
std::vector<std::string> InodeScanRoots(const InodeFileSourceConfig& config);

class InodeFileSource {
 public:
  struct Counts {
    uint64_t inodes = 0;           // entries written (a hard-linked file counts once)
    uint64_t unreadable_dirs = 0;  // opendir failed (EACCES and others)
    uint64_t skipped_mounts = 0;   // other filesystems / mount points not entered
    uint64_t batches = 0;
  };

  InodeFileSource(const InodeFileSourceConfig& config, device::TraceWriter* writer,
                  uint32_t sequence_id, std::string mountinfo_path = "/proc/self/mountinfo");
  ~InodeFileSource();

  // Reads the mount table and schedules the first batch at now + scan_delay_ms.
  void Start(int64_t now_mono_ns);
  // Does the work due at `now`: a slice of the current batch, at most `budget_ns` long.
  // Returns true while there is more to walk.
  bool Step(int64_t now_mono_ns, int64_t budget_ns = 20 * 1000000);
  // Writes what is pending (the current packet and the held hard-linked files).
  void Stop();
  bool done() const { return done_; }
  const Counts& counts() const { return counts_; }
  // Milliseconds the main loop should sleep at most while a batch is in progress.
  uint32_t tick_ms() const;

 private:
  struct PendingDir {
    std::string path;
    dev_t dev;
    ino_t ino;
  };
  struct HeldEntry {
    uint64_t ino;
    std::vector<std::string> paths;
    nlink_t links;
  };
  bool OpenNextDir();
  void CloseDir();
  // Maps one directory entry; false when the batch or the time slice is used up.
  void MapEntry(const char* name);
  void AddEntry(dev_t dev, uint64_t ino, int type, const std::string& path);
  void AddEntryPaths(dev_t dev, uint64_t ino, int type, const std::vector<std::string>& paths);
  void BeginPacket(dev_t dev);
  void EndPacket();
  void WriteMountPointsOnly();
  void FlushHeld();

  InodeFileSourceConfig config_;
  device::TraceWriter* writer_;
  uint32_t sequence_id_;
  std::string mountinfo_path_;
  std::multimap<dev_t, std::string> mounts_;
  std::vector<std::string> mount_paths_;  // sorted, to tell a mount point while walking
  std::vector<std::string> roots_;
  size_t next_root_ = 0;
  dev_t root_dev_ = 0;
  std::vector<PendingDir> pending_;  // DFS stack of directories still to read
  void* dir_ = nullptr;              // DIR* being read
  std::string dir_path_;
  int64_t next_batch_ns_ = 0;
  uint64_t batch_left_ = 0;
  bool started_ = false, done_ = false;
  // dev -> (inode -> entry) for files with more than one link, until all links are seen.
  std::map<dev_t, std::unordered_map<uint64_t, HeldEntry>> held_;
  size_t held_count_ = 0;
  device::ProtoWriter packet_;
  size_t packet_token_ = 0;
  bool packet_open_ = false;
  dev_t packet_dev_ = 0;
  Counts counts_;
};

}  // namespace fathom::recorder
