#include "adb/device_connector.h"

#include <cctype>

#include "adb/key_store.h"
#include "adb/tcp_transport.h"
#include "adb/usb_transport.h"

namespace fathom::adb {

bool IsTcpSerial(const std::string& serial) {
  size_t colon = serial.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == serial.size()) return false;
  if (serial.rfind("usb:", 0) == 0) return false;
  for (size_t i = colon + 1; i < serial.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(serial[i]))) return false;
  }
  return true;
}

Result<std::shared_ptr<Connection>> ConnectDirect(const std::string& serial,
                                                  ConnectionOptions options,
                                                  const CancelToken& cancel) {
  if (options.keys.empty()) {
    auto keys = LoadAllKeys();
    if (!keys.ok()) return keys.status();
    options.keys = std::move(*keys);
  }
  std::unique_ptr<Transport> transport;
  if (IsTcpSerial(serial)) {
    const Deadline deadline = WithLimit(Deadline::Never(), options.handshake_timeout);
    auto t = TcpTransport::Connect(serial, deadline, cancel);
    if (!t.ok() && deadline.expired() && !cancel.cancelled()) {
      return TimeoutError("cannot connect to " + serial, options.handshake_timeout,
                          "--timeout-connect");
    }
    if (!t.ok()) return t.status();
    transport = std::move(*t);
  } else {
    auto t = UsbTransport::Open(serial);
    if (!t.ok()) return t.status();
    transport = std::move(*t);
  }
  return Connection::Open(std::move(transport), std::move(options), cancel);
}

Result<DeviceRoute> ConnectUsbOrServer(const std::string& serial, ConnectionOptions options,
                                       std::shared_ptr<UsbBackend> usb, const ServerAddress& server,
                                       const CancelToken& cancel) {
  if (!usb) usb = DefaultUsbBackend();
  if (!usb) return ErrorStatus("adb: this build has no USB support (libusb missing)");
  int code = kUsbOk;
  auto t = UsbTransport::Open(usb, serial, &code);
  if (!t.ok()) {
    if (code != kUsbErrorBusy) return t.status();
    // Someone else (nearly always an adb server: Android Studio, scrcpy, `adb`) has the
    // interface. If that server offers the device, use it instead of fighting over it.
    const std::string where = server.host + ":" + std::to_string(server.port);
    auto devices = ServerClient(server, Millis(2000), cancel).Devices();
    if (!devices.ok()) {
      return ErrorStatus(t.status().message() + "; and no adb server answers at " + where);
    }
    for (const DeviceEntry& d : *devices) {
      if (d.serial != serial) continue;
      if (d.state != "device") {
        return ErrorStatus(t.status().message() + "; the adb server at " + where +
                           " has it but it is " + d.state);
      }
      DeviceRoute route;
      route.via_server = true;
      route.note = "device " + serial + " held by the adb server at " + where + "; using it";
      return route;
    }
    return ErrorStatus(t.status().message() + "; the adb server at " + where + " does not list " +
                       serial);
  }
  if (options.keys.empty()) {
    auto keys = LoadAllKeys();
    if (!keys.ok()) return keys.status();
    options.keys = std::move(*keys);
  }
  auto conn = Connection::Open(std::move(*t), std::move(options), cancel);
  if (!conn.ok()) return conn.status();
  DeviceRoute route;
  route.connection = std::move(*conn);
  return route;
}

}  // namespace fathom::adb
