// A file kept open for reads at any offset, from several threads at once
// (pread; ReadFile with an offset on Windows), that can tell whether its path
// still names the same file, unchanged since it was opened. For readers that
// come back to a big file long after loading it (a heap dump's strings and
// bitmaps): a moved, deleted or rewritten file is reported, never read from
// its old copy or misread from a new one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace fathom::platform {

class ReadOnlyFile {
 public:
  enum class PathState { kSame, kMissing, kChanged, kError };

  explicit ReadOnlyFile(const std::string& path);
  ~ReadOnlyFile();
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;

  bool is_open() const { return open_; }
  // Its size when it was opened.
  uint64_t size() const { return size_; }
  // Whether the path still names the opened file with the same size and
  // modification time; *error says why on kError.
  PathState CheckPath(std::string* error) const;
  // Reads exactly `size` bytes at `offset`; false on a short read or error.
  bool ReadAt(uint64_t offset, void* out, size_t size) const;

 private:
  std::string path_;
  bool open_ = false;
  uint64_t size_ = 0;
  // The platform's handle and the file's identity when opened (device and
  // inode, or volume serial and file index, and the modification time).
  intptr_t handle_ = -1;
  uint64_t device_ = 0, file_ = 0;
  int64_t mtime_ = 0;
};

}  // namespace fathom::platform
