#include "adb/remote_tree.h"

#include <utility>

#include "adb/device_names.h"

namespace fathom::adb {
namespace {

bool IsDirectoryMode(uint32_t mode) { return (mode & 0170000) == 0040000; }

struct PendingDir {
  std::string remote;
  std::vector<std::string> relative;
};

}  // namespace

void RemoteTreeReport::Drop(std::string line) {
  ++dropped_count;
  if (dropped.size() < kMaxDroppedLines) dropped.push_back(std::move(line));
}

std::string JoinRemotePath(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

Status WalkRemoteTree(const std::string& root, const RemoteListFn& list, const RemoteVisitFn& visit,
                      const RemoteTreeLimits& limits, RemoteTreeReport* report,
                      const CancelToken& cancel) {
  // Depth-first with an explicit stack: a device can nest directories without end (or
  // list a directory inside itself), and recursion once overflowed the stack here.
  std::vector<PendingDir> stack;
  stack.push_back({root, {}});
  while (!stack.empty()) {
    if (cancel.cancelled()) return ErrorStatus("cancelled");
    PendingDir dir = std::move(stack.back());
    stack.pop_back();
    auto entries = list(dir.remote);
    if (!entries.ok()) return entries.status();
    std::vector<PendingDir> subdirs;
    for (size_t i = 0; i < entries->size(); ++i) {
      SyncDirEntry& e = (*entries)[i];
      if (e.name == "." || e.name == "..") continue;
      const std::string shown = EscapeForTerminal(JoinRemotePath(dir.remote, e.name));
      if (report->entries >= limits.max_entries) {
        // Everything not taken yet: the rest of this listing and the directories queued.
        report->Drop("stopped at the limit of " + std::to_string(limits.max_entries) +
                     " entries (--max-entries): " + std::to_string(entries->size() - i) +
                     " more in " + EscapeForTerminal(dir.remote) + " and " +
                     std::to_string(stack.size() + subdirs.size()) +
                     " directories not listed were left out");
        return Status::Ok();
      }
      ++report->entries;
      if (std::string why = UnsafeEntryNameReason(e.name); !why.empty()) {
        report->Drop(shown + ": unsafe name (" + why + ")");
        continue;
      }
      RemoteTreeEntry item{JoinRemotePath(dir.remote, e.name), dir.relative, e.stat};
      if (item.remote.size() > kSyncPathMax) {
        report->Drop(shown + ": path longer than " + std::to_string(kSyncPathMax) + " bytes");
        continue;
      }
      item.relative.push_back(std::move(e.name));
      if (Status s = visit(item); !s.ok()) return s;
      if (!IsDirectoryMode(item.stat.mode)) continue;
      if (item.relative.size() > limits.max_depth) {
        report->Drop(shown + ": not listed, more than " + std::to_string(limits.max_depth) +
                     " levels deep (--max-depth)");
        continue;
      }
      subdirs.push_back({std::move(item.remote), std::move(item.relative)});
    }
    // Reversed, so directories are listed in the device's order.
    for (auto it = subdirs.rbegin(); it != subdirs.rend(); ++it) stack.push_back(std::move(*it));
  }
  return Status::Ok();
}

}  // namespace fathom::adb
