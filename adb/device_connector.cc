#include "adb/device_connector.h"

#include <cctype>

#include "adb/key_store.h"
#include "adb/tcp_transport.h"
#ifdef FATHOM_ADB_HAVE_LIBUSB
#include "adb/usb_transport.h"
#endif

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
    auto t = TcpTransport::Connect(serial, Deadline::After(options.handshake_timeout), cancel);
    if (!t.ok()) return t.status();
    transport = std::move(*t);
  } else {
#ifdef FATHOM_ADB_HAVE_LIBUSB
    auto t = UsbTransport::Open(serial);
    if (!t.ok()) return t.status();
    transport = std::move(*t);
#else
    return ErrorStatus("adb: this build has no USB support (libusb missing)");
#endif
  }
  return Connection::Open(std::move(transport), std::move(options), cancel);
}

}  // namespace fathom::adb
