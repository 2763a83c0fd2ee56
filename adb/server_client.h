// Client of a running adb server (Google's, default 127.0.0.1:5037) over its "smart socket"
// protocol (spec §12): hex4-length requests, OKAY/FAIL replies, transport switching.
// Each call opens its own connection, so one ServerClient may be used from several threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "adb/byte_stream.h"
#include "adb/cancel.h"
#include "adb/platform_socket.h"
#include "adb/timeouts.h"
#include "base/status.h"

namespace fathom::adb {

struct ServerAddress {
  std::string host = "127.0.0.1";
  uint16_t port = 5037;
  // ADB_SERVER_SOCKET=tcp:host:port wins over ANDROID_ADB_SERVER_PORT, as in adb.
  static ServerAddress FromEnvironment();
};

// One line of host:devices-l.
struct DeviceEntry {
  std::string serial;
  std::string state;                              // device, unauthorized, offline, recovery, ...
  std::map<std::string, std::string> attributes;  // product, model, device, usb, transport_id
  std::string Attr(const std::string& k) const {
    auto it = attributes.find(k);
    return it == attributes.end() ? std::string() : it->second;
  }
};

// Parses host:devices and host:devices-l bodies (both tolerate the other's format).
std::vector<DeviceEntry> ParseDeviceList(std::string_view text);

// "000chost:version" framing.
std::string EncodeSmartRequest(std::string_view request);

// Stream produced after the server bound a connection to a device service.
class ServerStream : public ByteStream {
 public:
  explicit ServerStream(Socket sock, std::string initial = {})
      : sock_(std::move(sock)), pending_(std::move(initial)) {}
  Status Write(std::string_view data, Deadline deadline, const CancelToken& cancel) override;
  Result<size_t> Read(std::string* out, Deadline deadline, const CancelToken& cancel) override;
  void Close() override { sock_.Close(); }

 private:
  static constexpr size_t kReadSize = 256 << 10;
  // A read without a byte or a write not taken for this long fails (a stalled device
  // behind the server), whatever the caller's deadline.
  Millis idle_ = DefaultTimeouts().idle;
  Socket sock_;
  std::string pending_;                  // bytes read past the OKAY while parsing the reply
  std::unique_ptr<char[]> read_buffer_;  // kReadSize bytes once the first Read() needs it
};

// host:track-devices: one list right away, then one after every change.
class DeviceTracker {
 public:
  explicit DeviceTracker(Socket sock) : sock_(std::move(sock)) {}
  Result<std::vector<DeviceEntry>> Next(Deadline deadline, const CancelToken& cancel);
  void Close() { sock_.Close(); }

 private:
  Socket sock_;
};

class ServerClient {
 public:
  explicit ServerClient(ServerAddress address = ServerAddress::FromEnvironment(),
                        Millis timeout = Millis(10000), CancelToken cancel = {})
      : address_(std::move(address)), timeout_(timeout), cancel_(std::move(cancel)) {}

  // The server's protocol version (41 for every recent adb), from host:version.
  Result<int> Version();
  Result<std::vector<DeviceEntry>> Devices();  // host:devices-l
  Result<std::string> Features(const std::string& serial);
  Result<std::string> GetState(const std::string& serial);
  // host:connect:HOST:PORT. The server answers OKAY even when it failed, so the text is
  // inspected: an error if it says "failed"/"unable"/"cannot".
  Result<std::string> ConnectDevice(const std::string& host_port);
  Status DisconnectDevice(const std::string& host_port);
  Result<DeviceTracker> TrackDevices();
  // Binds a connection to `serial` (empty = the only device) and opens `service` on it.
  Result<std::unique_ptr<ServerStream>> OpenService(const std::string& serial,
                                                    const std::string& service);
  Status Kill();

  // A host request whose reply is OKAY + hex4 length + body.
  Result<std::string> Query(const std::string& request);

 private:
  Result<Socket> Connect(Deadline deadline);
  ServerAddress address_;
  Millis timeout_;
  CancelToken cancel_;
};

}  // namespace fathom::adb
