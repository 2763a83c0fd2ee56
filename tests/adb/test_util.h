// Helpers shared by the adb tests: temporary directories, running Debian's adb, env vars.
#pragma once

#include <filesystem>
#include <string>

namespace fathom::adb::testing {

// A fresh directory under the system temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Sets an environment variable for the lifetime of the object, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value);
  ~ScopedEnv();

 private:
  std::string name_;
  bool had_ = false;
  std::string old_;
};

std::string ReadFileOrEmpty(const std::filesystem::path& p);
// Runs a shell command line, returns its stdout (stderr is left on the terminal); *status
// gets the exit status.
std::string RunCommand(const std::string& command_line, int* status = nullptr);
bool HaveRealAdb();
// A TCP port on 127.0.0.1 that was free a moment ago.
int FreePort();

}  // namespace fathom::adb::testing
