// libFuzzer target: the adb client state machine (Connection: handshake with
// AUTH, stream multiplexing, flow control, floods) and the services on top of
// it (shell v2 and legacy shell, sync), fed what a device sends after our
// CNXN through FakeDeviceTransport (see there for the input format). The
// host runs the session of adb_client_session.h, then closes. Every wait is bounded: the transport
// ends when the input does, and the connection's limits are cut to fractions of a second.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "adb/auth_key.h"
#include "adb/connection.h"
#include "adb_client_session.h"
#include "fake_device_transport.h"

namespace {

using namespace fathom::adb;
using fathom::Status;

void Check(bool ok) {
  if (!ok) abort();
}

// RSA key generation costs ~0.1 s: one key for the whole run.
const AuthKey& Key() {
  static const AuthKey key = [] {
    auto k = AuthKey::Generate();
    if (!k.ok()) abort();
    return *k;
  }();
  return key;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)Key();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  ConnectionOptions options;
  options.keys = {Key()};
  options.user_info = "fuzz@host";
  options.handshake_timeout = Millis(300);
  options.user_confirm_timeout = Millis(300);
  options.open_timeout = Millis(300);
  options.idle_timeout = Millis(300);
  auto conn =
      Connection::Open(std::make_unique<fathom::fuzz::FakeDeviceTransport>(in), std::move(options));
  if (!conn.ok()) return 0;
  Check((*conn)->max_payload() >= kMinMaxPayload && (*conn)->max_payload() <= kMaxPayload);
  fathom::fuzz::RunSession(**conn, size);
  (*conn)->Close();
  Check((*conn)->state() == ConnectionState::kClosed);
  return 0;
}
