// Direct connections: our Connection over our TcpTransport to the fake device on TCP, and
// the USB listing path (no devices in CI: it must just not fail).
#include "adb/device_connector.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "adb/shell_protocol.h"
#include "fake_device.h"
#include "test_util.h"
#ifdef FATHOM_ADB_HAVE_LIBUSB
#include "adb/usb_transport.h"
#endif

namespace fathom::adb {
namespace {

TEST(DeviceConnectorTest, RecognisesTcpSerials) {
  EXPECT_TRUE(IsTcpSerial("192.168.1.20:5555"));
  EXPECT_TRUE(IsTcpSerial("localhost:5037"));
  EXPECT_TRUE(IsTcpSerial("[::1]:5555"));
  EXPECT_FALSE(IsTcpSerial("0123456789ABCDEF"));
  EXPECT_FALSE(IsTcpSerial("emulator-5554"));
  EXPECT_FALSE(IsTcpSerial("usb:1-2"));
  EXPECT_FALSE(IsTcpSerial("host:"));
}

TEST(DeviceConnectorTest, TcpDeviceWithAuth) {
  auto key = AuthKey::Generate();
  ASSERT_TRUE(key.ok());
  testing::FakeDeviceOptions o;
  o.require_auth = true;
  o.trusted.push_back(*AuthPublicKey::FromAndroidText(*key->AndroidPublicKeyText("a@b")));
  testing::FakeDeviceServer device(o);
  ConnectionOptions co;
  co.keys = {*key};
  auto c = ConnectDirect("127.0.0.1:" + std::to_string(device.port()), co);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ((*c)->device_banner().model(), "FakeModel");
  auto s = (*c)->OpenStream(ShellServiceName("echo tcp", true), Deadline::After(Millis(5000)));
  ASSERT_TRUE(s.ok());
  auto r = RunShellV2(**s, "", Deadline::After(Millis(5000)), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->out, "tcp\n");
}

// Over TCP the OKAY for a WRTE goes out when Read() takes its data; a reader that starts
// late must still get everything (the device waits, it is not lost). 6 MB in 64 KiB WRTEs.
TEST(DeviceConnectorTest, LateReaderOverTcpGetsEverything) {
  testing::FakeDeviceOptions o;
  o.max_wrte = 64 * 1024;
  testing::FakeDeviceServer device(o);
  ConnectionOptions co;
  co.keys = {*AuthKey::Generate()};
  auto c = ConnectDirect("127.0.0.1:" + std::to_string(device.port()), co);
  ASSERT_TRUE(c.ok()) << c.status().message();
  constexpr size_t kSize = 6000000;
  auto s = (*c)->OpenStream(ExecServiceName("big " + std::to_string(kSize)),
                            Deadline::After(Millis(5000)));
  ASSERT_TRUE(s.ok()) << s.status().message();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let the buffer fill up
  auto r = ReadToEnd(**s, Deadline::After(Millis(20000)), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->out.size(), kSize);
  for (size_t i = 0; i < kSize; i += 4999) ASSERT_EQ(r->out[i], static_cast<char>('a' + i % 26));
}

TEST(DeviceConnectorTest, RefusedTcpConnectionIsAnError) {
  ConnectionOptions co;
  co.keys.push_back(*AuthKey::Generate());
  co.handshake_timeout = Millis(2000);
  auto c = ConnectDirect("127.0.0.1:" + std::to_string(testing::FreePort()), co);
  EXPECT_FALSE(c.ok());
}

#ifdef FATHOM_ADB_HAVE_LIBUSB
TEST(DeviceConnectorTest, UsbListingWorksWithoutDevices) {
  auto list = UsbTransport::List();
  // No USB bus in containers: libusb_init may fail; either way no crash and no fake devices.
  if (list.ok()) {
    for (const auto& d : *list) EXPECT_FALSE(d.serial.empty());
  }
  EXPECT_FALSE(UsbTransport::Open("no-such-serial").ok());
}
#endif

}  // namespace
}  // namespace fathom::adb
