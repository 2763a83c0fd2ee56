// Device selection for direct connections (no adb server): "HOST:PORT" serials go over TCP,
// everything else is looked up on USB. Loads the user's keys as Google's adb does.
#pragma once

#include <memory>
#include <string>

#include "adb/connection.h"
#include "adb/server_client.h"
#include "adb/usb_backend.h"

namespace fathom::adb {

// True for serials that name a TCP device: "host:port", "[v6]:port" (emulator-NNNN is an
// adb-server name, not a direct address).
bool IsTcpSerial(const std::string& serial);

// Opens the transport for `serial` and runs the handshake. If options.keys is empty the
// keys from LoadAllKeys() (adbkey, creating it if needed, plus ADB_VENDOR_KEYS) are used.
Result<std::shared_ptr<Connection>> ConnectDirect(const std::string& serial,
                                                  ConnectionOptions options,
                                                  const CancelToken& cancel = {});

// How a USB device was reached: our own Connection, or — when another program (an adb server)
// holds its interface — that server, which the caller then uses for `serial` (ServerClient).
struct DeviceRoute {
  std::shared_ptr<Connection> connection;  // set when direct
  bool via_server = false;
  std::string note;  // for the user when via_server: "device held by the adb server; using it"
};

// Opens `serial` on USB through `usb` (DefaultUsbBackend() when null). A claim failing with
// LIBUSB_ERROR_BUSY falls back to the adb server at `server` when it lists the serial as a
// usable device; otherwise the error says both why USB failed and why the server cannot help.
// A permission error (LIBUSB_ERROR_ACCESS) names the udev rule to install.
Result<DeviceRoute> ConnectUsbOrServer(const std::string& serial, ConnectionOptions options,
                                       std::shared_ptr<UsbBackend> usb, const ServerAddress& server,
                                       const CancelToken& cancel = {});

}  // namespace fathom::adb
