#include <windows.h>

#include <algorithm>
#include <string>

#include "base/read_only_file.h"

namespace fathom::platform {
namespace {

// Paths are UTF-8 everywhere in Fathom.
std::wstring Wide(const std::string& s) {
  const int n = MultiByteToWideChar(CP_UTF8, 0, s.data(), int(s.size()), nullptr, 0);
  std::wstring w(size_t(n), L'\0');
  if (n > 0) MultiByteToWideChar(CP_UTF8, 0, s.data(), int(s.size()), w.data(), n);
  return w;
}

HANDLE OpenShared(const std::string& path) {
  // Others may read, rename or delete it meanwhile, as on POSIX.
  return CreateFileW(Wide(path).c_str(), GENERIC_READ,
                     FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_EXISTING,
                     FILE_ATTRIBUTE_NORMAL, nullptr);
}

struct Identity {
  uint64_t device, file, size;
  int64_t mtime;
};

bool IdentityOf(HANDLE h, Identity* out) {
  BY_HANDLE_FILE_INFORMATION info;
  if (!GetFileInformationByHandle(h, &info)) return false;
  out->device = info.dwVolumeSerialNumber;
  out->file = (uint64_t(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
  out->size = (uint64_t(info.nFileSizeHigh) << 32) | info.nFileSizeLow;
  out->mtime = int64_t((uint64_t(info.ftLastWriteTime.dwHighDateTime) << 32) |
                       info.ftLastWriteTime.dwLowDateTime);
  return true;
}

}  // namespace

ReadOnlyFile::ReadOnlyFile(const std::string& path) : path_(path) {
  HANDLE h = OpenShared(path);
  Identity id{};
  if (h == INVALID_HANDLE_VALUE) return;
  if (!IdentityOf(h, &id)) {
    CloseHandle(h);
    return;
  }
  handle_ = reinterpret_cast<intptr_t>(h);
  open_ = true;
  size_ = id.size;
  device_ = id.device;
  file_ = id.file;
  mtime_ = id.mtime;
}

ReadOnlyFile::~ReadOnlyFile() {
  if (open_) CloseHandle(reinterpret_cast<HANDLE>(handle_));
}

ReadOnlyFile::PathState ReadOnlyFile::CheckPath(std::string* error) const {
  HANDLE h = OpenShared(path_);
  if (h == INVALID_HANDLE_VALUE) {
    const DWORD e = GetLastError();
    if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND) return PathState::kMissing;
    *error = "Windows error " + std::to_string(e);
    return PathState::kError;
  }
  Identity now{};
  const bool ok = IdentityOf(h, &now);
  CloseHandle(h);
  if (!ok || !open_ || now.device != device_ || now.file != file_ || now.size != size_ ||
      now.mtime != mtime_)
    return PathState::kChanged;
  return PathState::kSame;
}

bool ReadOnlyFile::ReadAt(uint64_t offset, void* out, size_t size) const {
  if (!open_) return false;
  auto* dst = static_cast<char*>(out);
  size_t got = 0;
  while (got < size) {
    // An OVERLAPPED of its own gives the offset without moving a shared file
    // pointer, so threads may read at once.
    OVERLAPPED at{};
    const uint64_t pos = offset + got;
    at.Offset = DWORD(pos);
    at.OffsetHigh = DWORD(pos >> 32);
    const DWORD want = DWORD(std::min<size_t>(size - got, 1u << 30));
    DWORD n = 0;
    if (!ReadFile(reinterpret_cast<HANDLE>(handle_), dst + got, want, &n, &at) || n == 0)
      return false;
    got += n;
  }
  return true;
}

}  // namespace fathom::platform
