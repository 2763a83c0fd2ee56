// Starts Debian's real adb server on a private port with a private HOME, and kills it after.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>

#include "adb/server_client.h"
#include "test_util.h"

namespace fathom::adb::testing {

class RealAdbServer {
 public:
  // before_start may put files (an adbkey) into HOME/.android before the server reads them.
  explicit RealAdbServer(const std::function<void(const std::filesystem::path&)>& before_start = {})
      : port_(FreePort()) {
    std::filesystem::create_directories(home_.path() / ".android");
    if (before_start) before_start(home_.path() / ".android");
    // FreePort's port is free when asked, not reserved: another test running at the same
    // time can take it before the server binds it. Then start on another one.
    for (int attempt = 0; attempt < 3 && !started_; ++attempt) {
      if (attempt > 0) port_ = FreePort();
      int rc = 0;
      RunCommand(Env() + " adb start-server >/dev/null 2>&1", &rc);
      started_ = rc == 0;
    }
  }
  ~RealAdbServer() { RunCommand(Env() + " adb kill-server >/dev/null 2>&1"); }
  bool started() const { return started_; }
  int port() const { return port_; }
  const std::filesystem::path& home() const { return home_.path(); }
  // Environment prefix so `adb` CLI calls talk to this server.
  std::string Env() const {
    // A max emulator port below 5555 stops the server from probing 5555..5585 at start, so
    // other programs on this machine cannot show up as emulators in our device lists.
    return "HOME=" + home_.path().string() + " ANDROID_ADB_SERVER_PORT=" + std::to_string(port_) +
           " ADB_LOCAL_TRANSPORT_MAX_PORT=5553";
  }
  ServerClient Client() const {
    ServerAddress a;
    a.port = static_cast<uint16_t>(port_);
    return ServerClient(a, Millis(10000));
  }

 private:
  TempDir home_;
  int port_;
  bool started_ = false;
};

}  // namespace fathom::adb::testing
