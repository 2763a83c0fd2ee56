// An in-process adbd stand-in that speaks the device side of the wire protocol from the spec
// (CNXN/AUTH/OPEN/OKAY/WRTE/CLSE, shell v1/v2, exec, sync v1/v2) over any Transport, with a
// tiny in-memory filesystem. Tests drive our host code against it, and Debian's real adb
// server can connect to it over TCP.
#pragma once

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "adb/auth_key.h"
#include "adb/platform_socket.h"
#include "adb/transport.h"

namespace fathom::adb::testing {

struct FakeDeviceOptions {
  std::string banner =
      "device::ro.product.name=fakeprod;ro.product.model=FakeModel;ro.product.device=fakedev;"
      "features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir;";
  uint32_t version = kVersion;
  uint32_t max_payload = kMaxPayload;
  bool require_auth = false;
  std::vector<AuthPublicKey> trusted;
  bool accept_public_key = false;  // the user taps "Allow" when the key arrives
  size_t max_wrte = 0;             // >0: split our stream output into WRTEs this small
};

struct FakeFile {
  std::string data;
  uint32_t mode = 0100644;
  uint32_t mtime = 0;
};

// Bytes each side wrote through a pipe, for checks on exact wire content.
struct WireLog {
  std::mutex mu;
  std::vector<std::string> messages;
};

// Two connected in-memory transports; messages travel as encoded bytes so the codec runs.
std::pair<std::unique_ptr<Transport>, std::unique_ptr<Transport>> MakePipe(
    std::shared_ptr<WireLog> host_log = nullptr);

class FakeDevice {
 public:
  FakeDevice(std::unique_ptr<Transport> transport, FakeDeviceOptions options);
  ~FakeDevice();

  void PutFile(const std::string& path, FakeFile f);
  bool GetFile(const std::string& path, FakeFile* f);
  std::vector<std::string> services();     // OPEN payloads seen, NULs stripped
  std::vector<std::string> public_keys();  // AUTH(RSAPUBLICKEY) payloads
  int signatures_seen() const { return signatures_; }
  void Stop();

 private:
  struct Stream;
  void Run();
  void Handle(const Message& m);
  void Send(const Message& m);
  void OnOpen(uint32_t host_id, std::string service);
  void OnData(Stream& s, const std::string& data);
  void RunShellCommand(Stream& s);
  void HandleSync(Stream& s);
  void Output(Stream& s, const std::string& bytes);
  void Pump(Stream& s);
  void SendToken();

  std::unique_ptr<Transport> transport_;
  FakeDeviceOptions options_;
  CancelToken cancel_;
  std::thread thread_;
  uint32_t version_ = kVersionMin;
  uint32_t max_payload_ = kMaxPayloadV1;
  bool authed_ = false;
  std::string token_;
  std::atomic<int> signatures_{0};
  uint32_t next_id_ = 100;
  std::map<uint32_t, std::unique_ptr<Stream>> streams_;  // by device id

  std::mutex mu_;  // guards the members below (read by tests)
  std::map<std::string, FakeFile> files_;
  std::vector<std::string> services_;
  std::vector<std::string> public_keys_;
};

// Accepts TCP connections on 127.0.0.1 and runs a FakeDevice on each (adb may reconnect).
class FakeDeviceServer {
 public:
  explicit FakeDeviceServer(FakeDeviceOptions options);
  ~FakeDeviceServer();
  uint16_t port() const { return port_; }
  FakeDevice* last_device();

 private:
  FakeDeviceOptions options_;
  Listener listener_;
  uint16_t port_ = 0;
  CancelToken cancel_;
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::unique_ptr<FakeDevice>> devices_;
};

}  // namespace fathom::adb::testing
