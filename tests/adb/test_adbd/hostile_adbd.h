// fathom-test-adbd --misbehave MODE: an adbd that breaks the protocol on purpose, one way per
// mode, so client tests can check that every misbehaviour ends in a clear error within its
// deadline and leaves nothing outside a pull's destination. The modes and what each does
// follow QA's hostile_adbd.py (shared/reliability/): the same names, the same bytes on the
// wire, except that a listing gives regular files their real size (3 MiB) where the Python
// double says 10 bytes for every entry. Test-only code; it speaks raw bytes on a socket because
// several modes send what a well-formed Transport could not (bad magic, lying lengths).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adb/cancel.h"
#include "adb/platform_socket.h"

namespace fathom::adb::testing {

// Every mode, in hostile_adbd.py's order.
const std::vector<std::string>& HostileModes();
bool IsHostileMode(const std::string& mode);

// Knobs hostile_adbd.py reads from its environment (HOSTILE_FEATURES, HOSTILE_N, HOSTILE_GB).
struct HostileOptions {
  std::string features = "shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir";
  uint64_t count = 0;      // list_huge entries, shell_flood_no_ack WRTEs (0: the mode's default)
  uint64_t gigabytes = 2;  // shell_frame_4gb: how much of the frame is sent
  static HostileOptions FromEnvironment();
};

// Listens on 127.0.0.1:port and misbehaves on every connection, each on its own thread.
class HostileAdbdServer {
 public:
  HostileAdbdServer(uint16_t port, std::string mode, HostileOptions options);
  ~HostileAdbdServer();
  bool ok() const { return ok_; }
  uint16_t port() const { return port_; }

 private:
  std::string mode_;
  HostileOptions options_;
  Listener listener_;
  bool ok_ = false;
  uint16_t port_ = 0;
  CancelToken cancel_;
  std::thread accept_thread_;
  std::mutex mu_;
  std::vector<std::thread> sessions_;
};

}  // namespace fathom::adb::testing
