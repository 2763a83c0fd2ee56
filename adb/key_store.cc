#include "adb/key_store.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "base/utf8_path.h"

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace fs = std::filesystem;

namespace fathom::adb {
namespace {

Result<std::string> ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrorStatus("cannot read " + PathToUtf8(path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Result<fs::path> AndroidUserHome() {
#ifdef _WIN32
  // The UTF-16 environment: a profile folder such as C:\Users\José is right whatever
  // the process's code page.
  if (const wchar_t* v = _wgetenv(L"ANDROID_USER_HOME"); v && *v) return fs::path(v);
  const wchar_t* home = _wgetenv(L"USERPROFILE");
#else
  if (const char* v = std::getenv("ANDROID_USER_HOME"); v && *v) return fs::path(v);
  const char* home = std::getenv("HOME");
#endif
  if (!home || !*home) return ErrorStatus("adb: no home directory to keep adb keys in");
  return fs::path(home) / ".android";
}

Status WritePrivateFile(const fs::path& path, const std::string& content) {
#ifdef _WIN32
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out || !out.write(content.data(), static_cast<std::streamsize>(content.size()))) {
    return ErrorStatus("cannot write " + PathToUtf8(path));
  }
  return Status::Ok();
#else
  // Created 0600 from the start so the private key is never briefly world-readable.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return ErrorStatus("cannot create " + PathToUtf8(path));
  ::fchmod(fd, 0600);  // O_CREAT does not change the mode of an existing file
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n <= 0) {
      ::close(fd);
      return ErrorStatus("cannot write " + PathToUtf8(path));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return ErrorStatus("cannot write " + PathToUtf8(path));
  return Status::Ok();
#endif
}

Result<AuthKey> LoadOrCreateUserKey(const fs::path& dir) {
  const fs::path key_path = dir / "adbkey";
  std::error_code ec;
  if (fs::exists(key_path, ec)) {
    auto pem = ReadFile(key_path);
    if (!pem.ok()) return pem.status();
    auto key = AuthKey::FromPem(*pem);
    if (!key.ok()) return ErrorStatus(PathToUtf8(key_path) + ": " + key.status().message());
    return key;
  }
  if (!fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) return ErrorStatus("cannot create " + PathToUtf8(dir) + ": " + ec.message());
#ifndef _WIN32
    ::chmod(dir.c_str(), 0750);
#endif
  }
  auto key = AuthKey::Generate();
  if (!key.ok()) return key;
  auto pem = key->ToPem();
  if (!pem.ok()) return pem.status();
  auto pub = key->AndroidPublicKeyText(DefaultUserInfo());
  if (!pub.ok()) return pub.status();
  if (Status s = WritePrivateFile(key_path, *pem); !s.ok()) return s;
  if (Status s = WritePrivateFile(dir / "adbkey.pub", *pub); !s.ok()) return s;
  return key;
}

std::vector<AuthKey> LoadVendorKeys() {
  std::vector<AuthKey> keys;
  const char* env = std::getenv("ADB_VENDOR_KEYS");
  if (!env) return keys;
#ifdef _WIN32
  const char sep = ';';
#else
  const char sep = ':';
#endif
  auto load = [&](const fs::path& p) {
    auto pem = ReadFile(p);
    if (!pem.ok()) return;
    auto key = AuthKey::FromPem(*pem);
    if (key.ok()) keys.push_back(std::move(*key));
  };
  std::string list(env);
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(sep, start);
    if (end == std::string::npos) end = list.size();
    fs::path entry = PathFromUtf8(list.substr(start, end - start));
    start = end + 1;
    if (entry.empty()) continue;
    std::error_code ec;
    if (fs::is_directory(entry, ec)) {
      std::vector<fs::path> files;
      for (const auto& f : fs::directory_iterator(entry, ec)) {
        if (PathToUtf8(f.path()).ends_with(".adb_key")) files.push_back(f.path());
      }
      std::sort(files.begin(), files.end());  // stable order across runs
      for (const auto& f : files) load(f);
    } else {
      load(entry);
    }
  }
  return keys;
}

Result<std::vector<AuthKey>> LoadAllKeys() {
  auto home = AndroidUserHome();
  if (!home.ok()) return home.status();
  auto user = LoadOrCreateUserKey(*home);
  if (!user.ok()) return user.status();
  std::vector<AuthKey> keys{std::move(*user)};
  for (auto& k : LoadVendorKeys()) keys.push_back(std::move(k));
  return keys;
}

}  // namespace fathom::adb
