// Device selection for direct connections (no adb server): "HOST:PORT" serials go over TCP,
// everything else is looked up on USB. Loads the user's keys as Google's adb does.
#pragma once

#include <memory>
#include <string>

#include "adb/connection.h"

namespace fathom::adb {

// True for serials that name a TCP device: "host:port", "[v6]:port" (emulator-NNNN is an
// adb-server name, not a direct address).
bool IsTcpSerial(const std::string& serial);

// Opens the transport for `serial` and runs the handshake. If options.keys is empty the
// keys from LoadAllKeys() (adbkey, creating it if needed, plus ADB_VENDOR_KEYS) are used.
Result<std::shared_ptr<Connection>> ConnectDirect(const std::string& serial,
                                                  ConnectionOptions options,
                                                  const CancelToken& cancel = {});

}  // namespace fathom::adb
