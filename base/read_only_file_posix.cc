#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/read_only_file.h"

namespace fathom::platform {

ReadOnlyFile::ReadOnlyFile(const std::string& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0) return;
  if (fstat(fd, &st) != 0) {
    ::close(fd);
    return;
  }
  handle_ = fd;
  open_ = true;
  size_ = uint64_t(st.st_size);
  device_ = uint64_t(st.st_dev);
  file_ = uint64_t(st.st_ino);
  mtime_ = int64_t(st.st_mtime);
}

ReadOnlyFile::~ReadOnlyFile() {
  if (open_) ::close(int(handle_));
}

ReadOnlyFile::PathState ReadOnlyFile::CheckPath(std::string* error) const {
  struct stat now {};
  if (::stat(path_.c_str(), &now) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return PathState::kMissing;
    *error = strerror(errno);
    return PathState::kError;
  }
  if (!open_ || uint64_t(now.st_ino) != file_ || uint64_t(now.st_dev) != device_ ||
      uint64_t(now.st_size) != size_ || int64_t(now.st_mtime) != mtime_)
    return PathState::kChanged;
  return PathState::kSame;
}

bool ReadOnlyFile::ReadAt(uint64_t offset, void* out, size_t size) const {
  if (!open_) return false;
  auto* dst = static_cast<char*>(out);
  size_t got = 0;
  while (got < size) {
    const ssize_t n = ::pread(int(handle_), dst + got, size - got, off_t(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += size_t(n);
  }
  return true;
}

}  // namespace fathom::platform
