// Walking a directory tree on a device (recursive `pull DIR`). The device decides the depth,
// the breadth and every name, so the walk is iterative (an explicit stack, not recursion),
// bounded in depth and entries, and hands out only names that are safe as local path
// components; whatever it leaves out is reported, never dropped silently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "adb/cancel.h"
#include "adb/sync_protocol.h"
#include "base/status.h"

namespace fathom::adb {

struct RemoteTreeLimits {
  size_t max_depth = 64;           // directory levels below the root that are listed
  uint64_t max_entries = 1000000;  // entries taken from all listings together
};

struct RemoteTreeEntry {
  std::string remote;                 // path on the device
  std::vector<std::string> relative;  // components below the root, each checked safe
  SyncStat stat;
};

// What a walk left out. `dropped` names each entry (device text escaped) and why; only the
// first kMaxDroppedLines are kept, `dropped_count` counts them all.
struct RemoteTreeReport {
  static constexpr size_t kMaxDroppedLines = 20;
  std::vector<std::string> dropped;
  uint64_t dropped_count = 0;
  uint64_t entries = 0;  // entries taken (not counting "." and "..")
  void Drop(std::string line);
};

using RemoteListFn = std::function<Result<std::vector<SyncDirEntry>>(const std::string& dir)>;
using RemoteVisitFn = std::function<Status(const RemoteTreeEntry&)>;

// Visits every entry below `root`, a directory before its contents. "." and ".." are skipped
// quietly (every listing has them). Unsafe names (UnsafeEntryNameReason), paths over
// kSyncPathMax bytes, directories more than limits.max_depth levels down (visited, not
// listed) and everything past limits.max_entries are recorded in *report instead. An error
// from `list` or `visit` ends the walk.
Status WalkRemoteTree(const std::string& root, const RemoteListFn& list, const RemoteVisitFn& visit,
                      const RemoteTreeLimits& limits, RemoteTreeReport* report,
                      const CancelToken& cancel);

// "dir/name", with one '/' between them.
std::string JoinRemotePath(const std::string& dir, const std::string& name);

}  // namespace fathom::adb
