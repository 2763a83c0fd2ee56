#include "test_util.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "adb/platform_socket.h"

namespace fs = std::filesystem;

namespace fathom::adb::testing {

TempDir::TempDir() {
  std::random_device rd;
  path_ = fs::temp_directory_path() / ("fathom-adb-test-" + std::to_string(rd()));
  fs::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

ScopedEnv::ScopedEnv(const char* name, const std::string& value) : name_(name) {
  if (const char* v = std::getenv(name)) {
    had_ = true;
    old_ = v;
  }
  setenv(name, value.c_str(), 1);
}

ScopedEnv::~ScopedEnv() {
  if (had_) {
    setenv(name_.c_str(), old_.c_str(), 1);
  } else {
    unsetenv(name_.c_str());
  }
}

std::string ReadFileOrEmpty(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string RunCommand(const std::string& command_line, int* status) {
  std::string out;
  FILE* f = popen(command_line.c_str(), "r");
  if (!f) {
    if (status) *status = -1;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0) out.append(buf, n);
  int rc = pclose(f);
  if (status) *status = rc;
  return out;
}

bool HaveRealAdb() {
  int rc = 0;
  RunCommand("adb version >/dev/null 2>&1", &rc);
  return rc == 0;
}

int FreePort() {
  auto l = Listener::Listen(0);
  return l.ok() ? l->port() : 0;
}

}  // namespace fathom::adb::testing
