// fathom-test-adbd's device side: an adbd whose "device" is this machine.
// Shell commands really run (/bin/sh -c, streamed, stdin forwarded, killed
// when the host closes the stream) and sync reads and writes the real
// filesystem, so `fathom-cli record` can push the recorder, run it, and pull
// the trace exactly as it would on a Linux target. Test-only code (POSIX).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adb/auth_key.h"
#include "adb/platform_socket.h"
#include "adb/transport.h"

namespace fathom::adb::testing {

struct HostAdbdOptions {
  // A Linux target: no ro.* properties, no getprop.
  std::string banner = "device::features=shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir;";
  bool require_auth = true;
  std::vector<AuthPublicKey> trusted;
  bool accept_any_key = false;  // "Allow USB debugging" tapped for any key
};

class HostAdbdSession {
 public:
  HostAdbdSession(std::unique_ptr<Transport> transport, const HostAdbdOptions& options);
  ~HostAdbdSession();
  bool finished() const { return finished_; }

 private:
  struct Stream;
  void Run();
  void Handle(const Message& m);
  void Send(const Message& m);
  // An OKAY payload: the 4-byte count with delayed_ack, else nothing.
  std::string AckPayload(uint32_t n) const;
  void OnOpen(uint32_t host_id, uint32_t host_window, const std::string& service);
  void OnData(Stream& s, const std::string& data);
  void StartChild(Stream& s);
  void HandleSync(Stream& s);
  void Output(uint32_t dev_id, std::string bytes, bool then_close);
  void Pump(Stream& s);         // with mu_ held
  void ProduceRecv(Stream& s);  // with mu_ held: queue the next WRTE of a RECV
  void CloseStream(uint32_t dev_id);

  std::unique_ptr<Transport> transport_;
  HostAdbdOptions options_;
  CancelToken cancel_;
  std::thread thread_;
  std::atomic<bool> finished_{false};
  uint32_t version_ = kVersionMin;
  uint32_t max_payload_ = kMaxPayloadV1;
  bool delayed_ack_ = false;  // both banners list delayed_ack (spec §7)
  bool authed_ = false;
  std::string token_;
  uint32_t next_id_ = 1;
  std::mutex mu_;  // streams_ and their queues; child readers post output from their threads
  std::map<uint32_t, std::shared_ptr<Stream>> streams_;
  std::vector<std::shared_ptr<Stream>> children_;  // every stream that started a process
};

// Listens on 127.0.0.1:port and serves every connection.
class HostAdbdServer {
 public:
  HostAdbdServer(uint16_t port, HostAdbdOptions options);
  ~HostAdbdServer();
  bool ok() const { return ok_; }
  uint16_t port() const { return port_; }

 private:
  HostAdbdOptions options_;
  Listener listener_;
  bool ok_ = false;
  uint16_t port_ = 0;
  CancelToken cancel_;
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::unique_ptr<HostAdbdSession>> sessions_;
};

}  // namespace fathom::adb::testing
