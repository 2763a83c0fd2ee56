#include "inode_file_source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "gen/perfetto_fields.h"
#include "util.h"

namespace fathom::recorder {
namespace {

using IFM = pf::InodeFileMap;

// InodeFileMap.Entry.Type values (part of the wire format).
constexpr int kTypeUnknown = 0, kTypeFile = 1, kTypeDirectory = 2;

// Packets stay well below the trace writer's flush threshold; a batch of 15000 entries
// becomes a few packets rather than one of several megabytes.
constexpr size_t kMaxPacketBytes = 256 * 1024;
// Hard-linked files are held back until all their links are seen; past this many they are
// written with the paths found so far (so a tree of many hard links cannot grow memory).
constexpr size_t kMaxHeld = 65536;

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
        s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

// "/a/b/" -> "/a/b"; "/" stays.
std::string StripTrailingSlashes(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

bool IsUnder(const std::string& path, const std::string& ancestor) {
  if (ancestor == "/") return path.size() > 1 && path[0] == '/';
  return path.size() > ancestor.size() && path.compare(0, ancestor.size(), ancestor) == 0 &&
         path[ancestor.size()] == '/';
}

int TypeOf(mode_t mode) {
  if (S_ISREG(mode)) return kTypeFile;
  if (S_ISDIR(mode)) return kTypeDirectory;
  return kTypeUnknown;  // symlinks, sockets, fifos, device nodes
}

}  // namespace

std::multimap<dev_t, std::string> ReadMountPoints(const std::string& mountinfo_path) {
  std::multimap<dev_t, std::string> out;
  Result<std::string> text = ReadFile(mountinfo_path);
  if (!text.ok()) return out;
  std::string_view rest = *text;
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
    // "ID PARENT MAJOR:MINOR ROOT MOUNT_POINT OPTIONS ..."
    std::string_view field[5];
    size_t n = 0;
    while (n < 5 && !line.empty()) {
      size_t sp = line.find(' ');
      field[n++] = line.substr(0, sp);
      line.remove_prefix(sp == std::string_view::npos ? line.size() : sp + 1);
    }
    if (n < 5) continue;
    const char* p = field[2].data();
    const char* end = p + field[2].size();
    uint64_t major = ParseU64(&p, end);
    if (p >= end || *p != ':') continue;
    p++;
    uint64_t minor = ParseU64(&p, end);
    out.emplace(makedev(static_cast<unsigned>(major), static_cast<unsigned>(minor)),
                Unescape(field[4]));
  }
  return out;
}

std::vector<std::string> InodeScanRoots(const InodeFileSourceConfig& config) {
  std::vector<std::string> roots;
  auto add_mapped = [&](const std::string& mount_point) {
    for (const InodeFileSourceConfig::Mapping& m : config.mount_point_mapping) {
      if (StripTrailingSlashes(m.mountpoint) != StripTrailingSlashes(mount_point)) continue;
      roots.insert(roots.end(), m.scan_roots.begin(), m.scan_roots.end());
      return;
    }
    roots.push_back(mount_point);
  };
  if (!config.scan_mount_points.empty()) {
    for (const std::string& m : config.scan_mount_points) add_mapped(m);
  } else {
    for (const InodeFileSourceConfig::Mapping& m : config.mount_point_mapping)
      roots.insert(roots.end(), m.scan_roots.begin(), m.scan_roots.end());
  }
  if (roots.empty() && config.scan_mount_points.empty() && config.mount_point_mapping.empty())
    roots.push_back("/");
  std::vector<std::string> out;
  for (std::string& r : roots) {
    if (r.empty()) continue;
    r = StripTrailingSlashes(std::move(r));
    if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  }
  return out;
}

InodeFileSource::InodeFileSource(const InodeFileSourceConfig& config, device::TraceWriter* writer,
                                 uint32_t sequence_id, std::string mountinfo_path)
    : config_(config),
      writer_(writer),
      sequence_id_(sequence_id),
      mountinfo_path_(std::move(mountinfo_path)) {}

InodeFileSource::~InodeFileSource() { CloseDir(); }

void InodeFileSource::Start(int64_t now) {
  started_ = true;
  mounts_ = ReadMountPoints(mountinfo_path_);
  for (const auto& [dev, path] : mounts_) mount_paths_.push_back(path);
  std::sort(mount_paths_.begin(), mount_paths_.end());
  // A root inside another root on the same filesystem would be walked twice: drop it
  // (a root that is itself a mount point is not reached from its parent, so it stays).
  std::vector<std::string> wanted = InodeScanRoots(config_);
  for (const std::string& r : wanted) {
    struct stat rs;
    bool nested = false;
    if (stat(r.c_str(), &rs) == 0 &&
        !std::binary_search(mount_paths_.begin(), mount_paths_.end(), r)) {
      for (const std::string& p : wanted) {
        struct stat ps;
        if (IsUnder(r, p) && stat(p.c_str(), &ps) == 0 && ps.st_dev == rs.st_dev) nested = true;
      }
    }
    if (!nested) roots_.push_back(r);
  }
  if (config_.do_not_scan) {
    WriteMountPointsOnly();
    done_ = true;
    return;
  }
  next_batch_ns_ = now + static_cast<int64_t>(config_.scan_delay_ms) * 1000000;
}

void InodeFileSource::WriteMountPointsOnly() {
  std::vector<dev_t> devs;
  for (const std::string& r : roots_) {
    struct stat st;
    if (stat(r.c_str(), &st) != 0) continue;
    if (std::find(devs.begin(), devs.end(), st.st_dev) != devs.end()) continue;
    devs.push_back(st.st_dev);
    BeginPacket(st.st_dev);
    EndPacket();
  }
}

uint32_t InodeFileSource::tick_ms() const { return batch_left_ > 0 ? 1 : 100; }

bool InodeFileSource::Step(int64_t now, int64_t budget_ns) {
  if (done_ || !started_) return !done_;
  if (batch_left_ == 0) {
    if (now < next_batch_ns_) return true;
    batch_left_ = config_.scan_batch_size;
    counts_.batches++;
  }
  int64_t deadline = now + budget_ns;
  uint32_t since_check = 0;
  while (batch_left_ > 0) {
    if (!dir_ && !OpenNextDir()) {
      // Every root is done.
      EndPacket();
      FlushHeld();
      EndPacket();
      batch_left_ = 0;
      done_ = true;
      return false;
    }
    errno = 0;
    dirent* e = readdir(static_cast<DIR*>(dir_));
    if (!e) {
      CloseDir();
      continue;
    }
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    MapEntry(e->d_name);
    batch_left_--;
    // The clock is read every 64 entries: cheap, and a slice overshoots by microseconds.
    if (++since_check == 64) {
      since_check = 0;
      if (MonoNs() >= deadline) break;
    }
  }
  EndPacket();
  if (batch_left_ == 0)
    next_batch_ns_ = MonoNs() + static_cast<int64_t>(config_.scan_interval_ms) * 1000000;
  return true;
}

bool InodeFileSource::OpenNextDir() {
  for (;;) {
    bool is_root = false;
    if (pending_.empty()) {
      if (next_root_ >= roots_.size()) return false;
      const std::string& root = roots_[next_root_++];
      struct stat st;
      // The root itself may be a symlink the user named (e.g. /sdcard): followed once.
      if (stat(root.c_str(), &st) != 0) {
        counts_.unreadable_dirs++;
        continue;
      }
      root_dev_ = st.st_dev;
      AddEntry(st.st_dev, st.st_ino, TypeOf(st.st_mode), root);
      if (batch_left_ > 0) batch_left_--;  // the root is one of the batch's inodes
      if (!S_ISDIR(st.st_mode)) continue;
      pending_.push_back({root, st.st_dev, st.st_ino});
      is_root = true;
    }
    PendingDir d = std::move(pending_.back());
    pending_.pop_back();
    // O_NOFOLLOW: a directory swapped for a symlink since it was seen is not entered.
    int fd = open(d.path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | (is_root ? 0 : O_NOFOLLOW));
    if (fd < 0) {
      counts_.unreadable_dirs++;
      continue;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_dev != d.dev || st.st_ino != d.ino) {
      close(fd);  // replaced while we walked: not the directory we mapped
      continue;
    }
    DIR* dir = fdopendir(fd);
    if (!dir) {
      close(fd);
      counts_.unreadable_dirs++;
      continue;
    }
    dir_ = dir;
    dir_path_ = std::move(d.path);
    return true;
  }
}

void InodeFileSource::CloseDir() {
  if (dir_) closedir(static_cast<DIR*>(dir_));
  dir_ = nullptr;
}

void InodeFileSource::MapEntry(const char* name) {
  std::string path = dir_path_;
  if (path.back() != '/') path += '/';
  path += name;
  struct stat st;
  if (fstatat(dirfd(static_cast<DIR*>(dir_)), name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return;  // removed since readdir
  if (st.st_dev != root_dev_ ||
      (S_ISDIR(st.st_mode) && std::binary_search(mount_paths_.begin(), mount_paths_.end(), path))) {
    counts_.skipped_mounts++;  // another filesystem or a bind mount: not this walk's tree
    return;
  }
  if (S_ISDIR(st.st_mode)) {
    AddEntry(st.st_dev, st.st_ino, kTypeDirectory, path);
    pending_.push_back({std::move(path), st.st_dev, st.st_ino});
    return;
  }
  if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
    HeldEntry& h = held_[st.st_dev][st.st_ino];
    if (h.paths.empty()) {
      h.ino = st.st_ino;
      h.links = st.st_nlink;
      held_count_++;
    }
    h.paths.push_back(std::move(path));
    if (h.paths.size() >= h.links) {
      AddEntryPaths(st.st_dev, st.st_ino, kTypeFile, h.paths);
      held_[st.st_dev].erase(st.st_ino);
      held_count_--;
    } else if (held_count_ > kMaxHeld) {
      FlushHeld();
    }
    return;
  }
  AddEntry(st.st_dev, st.st_ino, TypeOf(st.st_mode), path);
}

void InodeFileSource::AddEntry(dev_t dev, uint64_t ino, int type, const std::string& path) {
  AddEntryPaths(dev, ino, type, {path});
}

void InodeFileSource::AddEntryPaths(dev_t dev, uint64_t ino, int type,
                                    const std::vector<std::string>& paths) {
  if (packet_open_ && (packet_dev_ != dev || packet_.size() > kMaxPacketBytes)) EndPacket();
  if (!packet_open_) BeginPacket(dev);
  size_t e = packet_.BeginNested(IFM::kEntriesFieldNumber);
  packet_.Varint(IFM::Entry::kInodeNumberFieldNumber, ino);
  for (const std::string& p : paths) packet_.String(IFM::Entry::kPathsFieldNumber, p);
  packet_.Varint(IFM::Entry::kTypeFieldNumber, static_cast<uint64_t>(type));
  packet_.EndNested(e);
  counts_.inodes++;
}

void InodeFileSource::BeginPacket(dev_t dev) {
  packet_.Clear();
  packet_.Varint(pf::TracePacket::kTimestampFieldNumber, static_cast<uint64_t>(BootNs()));
  packet_.Varint(pf::TracePacket::kTrustedPacketSequenceIdFieldNumber, sequence_id_);
  packet_token_ = packet_.BeginNested(pf::TracePacket::kInodeFileMapFieldNumber);
  packet_.Varint(IFM::kBlockDeviceIdFieldNumber, static_cast<uint64_t>(dev));
  auto range = mounts_.equal_range(dev);
  for (auto it = range.first; it != range.second; ++it)
    packet_.String(IFM::kMountPointsFieldNumber, it->second);
  packet_open_ = true;
  packet_dev_ = dev;
}

void InodeFileSource::EndPacket() {
  if (!packet_open_) return;
  packet_.EndNested(packet_token_);
  writer_->AppendPacket(packet_.data());
  packet_open_ = false;
}

void InodeFileSource::FlushHeld() {
  for (auto& [dev, entries] : held_)
    for (auto& [ino, h] : entries) AddEntryPaths(dev, ino, kTypeFile, h.paths);
  held_.clear();
  held_count_ = 0;
}

void InodeFileSource::Stop() {
  if (!started_ || done_) return;
  CloseDir();
  EndPacket();
  FlushHeld();
  EndPacket();
  done_ = true;
}

}  // namespace fathom::recorder
