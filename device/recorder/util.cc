#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fathom::recorder {

Result<std::string> ReadFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrorStatus("cannot read " + path + ": " + strerror(errno));
  std::string out;
  char buf[16384];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      return ErrorStatus("cannot read " + path + ": " + strerror(e));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

Status WriteFile(const std::string& path, std::string_view value, bool create) {
  int flags = O_WRONLY | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : O_TRUNC);
  int fd = open(path.c_str(), flags, 0644);
  if (fd < 0 && errno == ENOENT && !create) fd = open(path.c_str(), flags | O_CREAT, 0644);
  if (fd < 0) {
    if (errno == EACCES || errno == EPERM)
      return ErrorStatus("permission denied writing " + path +
                         ": run as root (Linux: sudo; Android: adb root, or the shell user on "
                         "a build whose tracefs is writable by shell)");
    return ErrorStatus("cannot write " + path + ": " + strerror(errno));
  }
  ssize_t n = write(fd, value.data(), value.size());
  int e = errno;
  close(fd);
  if (n != static_cast<ssize_t>(value.size()))
    return ErrorStatus("cannot write '" + std::string(value) + "' to " + path + ": " +
                       strerror(n < 0 ? e : EIO));
  return Status::Ok();
}

bool FileExists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

bool PreadAll(int fd, std::string* buf) {
  if (buf->size() < 4096) buf->resize(4096);
  size_t used = 0;
  for (;;) {
    ssize_t n = pread(fd, buf->data() + used, buf->size() - used, static_cast<off_t>(used));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    used += static_cast<size_t>(n);
    if (n == 0 || used < buf->size()) break;
    buf->resize(buf->size() * 2);  // grows once to the file's size, then stays
  }
  buf->resize(used);  // no reallocation: capacity is kept
  return true;
}

}  // namespace fathom::recorder
