// The USB transport against the fake USB layer (fake_usb.h): interface discovery, the real
// Connection + shell + sync on top, ZLP rules at several max packet sizes, short reads, stalls,
// timeouts with partial progress, unplugging, and BUSY/ACCESS handling (with Debian's adb
// server when installed).
#include "adb/usb_transport.h"

#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "adb/device_connector.h"
#include "adb/device_services.h"
#include "adb_server_fixture.h"
#include "fake_usb.h"

namespace fathom::adb {
namespace {

using testing::FakeUsbBackend;
using testing::FakeUsbOptions;

std::string RandomBytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

ConnectionOptions Options() {
  static const AuthKey key = *AuthKey::Generate();
  ConnectionOptions o;
  o.keys.push_back(key);
  o.handshake_timeout = Millis(5000);
  return o;
}

Deadline Soon() { return Deadline::After(Millis(20000)); }

Result<std::shared_ptr<Connection>> ConnectFake(std::shared_ptr<FakeUsbBackend> usb,
                                                UsbTransport** raw = nullptr) {
  auto t = UsbTransport::Open(usb, "FAKEUSB0001");
  if (!t.ok()) return t.status();
  if (raw) *raw = t->get();
  return Connection::Open(std::move(*t), Options());
}

// Pushes `data` to `path` on the fake device, checks it arrived, pulls it back and compares.
void RoundTrip(Connection& conn, testing::FakeDevice& dev, const std::string& path,
               const std::string& data) {
  auto sync = OpenSync(conn, Soon(), {}, "v1");
  ASSERT_TRUE(sync.ok()) << sync.status().message();
  Status pushed = sync->client->Push(data, path, 0100644, 1700000000, Soon(), {});
  ASSERT_TRUE(pushed.ok()) << pushed.message();
  testing::FakeFile f;
  ASSERT_TRUE(dev.GetFile(path, &f));
  EXPECT_EQ(f.data.size(), data.size());
  EXPECT_TRUE(f.data == data) << path;
  std::string back;
  Status pulled = sync->client->Pull(path,
                                     [&](std::string_view b) {
                                       back.append(b);
                                       return Status::Ok();
                                     },
                                     Soon(), {});
  ASSERT_TRUE(pulled.ok()) << pulled.message();
  EXPECT_TRUE(back == data) << path << ": " << back.size() << " vs " << data.size();
  sync->client->Quit(Soon(), {});
}

TEST(UsbTransportTest, ListFindsTheAdbInterfaceAndSerial) {
  FakeUsbBackend usb({});
  auto list = UsbTransport::List(usb);
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_EQ(list->size(), 1u);  // the keyboard has no ADB interface
  EXPECT_EQ((*list)[0].serial, "FAKEUSB0001");
  EXPECT_EQ((*list)[0].path, "3-1.4");
  EXPECT_EQ((*list)[0].vendor_id, 0x18d1);
  EXPECT_TRUE((*list)[0].problem.empty());
  UsbDeviceDescriptor d;
  UsbAdbInterface itf;
  std::vector<UsbDeviceDescriptor> devices;
  usb.ListDevices(&devices);
  ASSERT_TRUE(FindAdbInterface(devices[1], &itf));
  EXPECT_EQ(itf.number, 1);  // not the MTP interface
  EXPECT_EQ(itf.in, 0x81);
  EXPECT_EQ(itf.out, 0x01);
  EXPECT_FALSE(FindAdbInterface(devices[0], &itf));
}

TEST(UsbTransportTest, OpensByPathToo) {
  auto usb = std::make_shared<FakeUsbBackend>(FakeUsbOptions{});
  EXPECT_TRUE(UsbTransport::Open(usb, "usb:3-1.4").ok());
  auto missing = UsbTransport::Open(usb, "OTHER");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("not found"), std::string::npos);
}

class UsbPacketSizeTest : public ::testing::TestWithParam<int> {};

TEST_P(UsbPacketSizeTest, ShellAndSyncWithZlpExactlyOnMultiples) {
  FakeUsbOptions o;
  o.max_packet = static_cast<uint16_t>(GetParam());
  o.device.require_auth = true;
  o.device.trusted.push_back(
      *AuthPublicKey::FromAndroidText(*Options().keys[0].AndroidPublicKeyText("t@fathom")));
  auto usb = std::make_shared<FakeUsbBackend>(o);
  auto conn = ConnectFake(usb);
  ASSERT_TRUE(conn.ok()) << conn.status().message();
  EXPECT_EQ((*conn)->state(), ConnectionState::kOnline);
  EXPECT_EQ((*conn)->Describe(), "usb:3-1.4");

  auto r = RunShell(**conn, "echo over usb", "", Soon());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->out, "over usb\n");
  EXPECT_EQ(r->exit_code, 0);
  auto f = RunShell(**conn, "fail 3", "", Soon());
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->exit_code, 3);
  EXPECT_EQ(f->err, "failing\n");
  // stdin frame = 5 bytes + data: a WRTE payload of exactly one/two/eight packets needs a ZLP.
  for (size_t payload :
       {size_t(o.max_packet), size_t(2 * o.max_packet), size_t(8 * o.max_packet)}) {
    std::string in = RandomBytes(payload - 5, static_cast<unsigned>(payload));
    auto c = RunShell(**conn, "cat", in, Soon());
    ASSERT_TRUE(c.ok()) << c.status().message();
    EXPECT_TRUE(c->out == in);
  }
  // Push payload = data + 8 (DATA) + 8 (DONE): sizes around the packet multiples.
  const size_t m = o.max_packet;
  for (size_t n : {size_t(0), size_t(1), m - 16, m - 15, 2 * m - 16, size_t(65536), size_t(65537),
                   size_t((1 << 20) + 3)}) {
    RoundTrip(**conn, *usb->device(), "/data/local/tmp/f" + std::to_string(n),
              RandomBytes(n, static_cast<unsigned>(n)));
  }
  auto stats = usb->stats();
  EXPECT_EQ(stats.zlp_violations, 0);
  EXPECT_GT(stats.out_payloads_multiple, 3);
  EXPECT_EQ(stats.zlps, stats.out_payloads_multiple);
  EXPECT_EQ(stats.overflows, 0);
}

INSTANTIATE_TEST_SUITE_P(MaxPacket, UsbPacketSizeTest, ::testing::Values(64, 512, 1024));

TEST(UsbTransportTest, ShortReadsReassemble) {
  for (size_t piece : {size_t(100), size_t(1024), size_t(4097)}) {
    FakeUsbOptions o;
    o.in_piece = piece;  // every device payload arrives in several IN transfers
    auto usb = std::make_shared<FakeUsbBackend>(o);
    auto conn = ConnectFake(usb);
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    auto r = RunShell(**conn, "big 300000", "", Soon());
    ASSERT_TRUE(r.ok()) << r.status().message();
    ASSERT_EQ(r->out.size(), 300000u);
    EXPECT_EQ(r->out[299999], static_cast<char>('a' + 299999 % 26));
    RoundTrip(**conn, *usb->device(), "/sdcard/short", RandomBytes(200000, 7));
    EXPECT_EQ(usb->stats().zlp_violations, 0);
  }
}

TEST(UsbTransportTest, StallsAreClearedAndRetried) {
  FakeUsbOptions o;
  o.stall_in_every = 7;
  o.stall_out_every = 5;
  auto usb = std::make_shared<FakeUsbBackend>(o);
  UsbTransport* raw = nullptr;
  auto conn = ConnectFake(usb, &raw);
  ASSERT_TRUE(conn.ok()) << conn.status().message();
  auto r = RunShell(**conn, "echo stalled", "", Soon());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->out, "stalled\n");
  RoundTrip(**conn, *usb->device(), "/sdcard/stall", RandomBytes(300000, 11));
  auto stats = usb->stats();
  EXPECT_GT(stats.stalls_injected, 2);
  EXPECT_EQ(stats.halts_cleared, stats.stalls_injected);
  EXPECT_EQ(raw->stalls_cleared(), stats.stalls_injected);
  EXPECT_EQ(stats.zlp_violations, 0);
}

TEST(UsbTransportTest, TimeoutsWithPartialProgressLoseNothing) {
  FakeUsbOptions o;
  o.partial_timeout_every = 3;
  o.in_piece = 5000;
  auto usb = std::make_shared<FakeUsbBackend>(o);
  auto conn = ConnectFake(usb);
  ASSERT_TRUE(conn.ok()) << conn.status().message();
  RoundTrip(**conn, *usb->device(), "/sdcard/slow", RandomBytes(500000, 13));
  EXPECT_GT(usb->stats().timeouts_injected, 0);
}

TEST(UsbTransportTest, SilentDeviceTimesOut) {
  auto usb = std::make_shared<FakeUsbBackend>(FakeUsbOptions{});
  auto t = UsbTransport::Open(usb, "FAKEUSB0001");
  ASSERT_TRUE(t.ok()) << t.status().message();
  // Nothing was sent, so the device says nothing.
  auto start = Clock::now();
  auto m = (*t)->Receive(kMaxPayload, Deadline::After(Millis(300)), {});
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("timed out"), std::string::npos) << m.status().message();
  EXPECT_LT(Clock::now() - start, Millis(3000));
  CancelToken cancel;
  cancel.Cancel();
  EXPECT_FALSE((*t)->Receive(kMaxPayload, Deadline::Never(), cancel).ok());
}

TEST(UsbTransportTest, UnplugMidTransferIsAClearError) {
  auto usb = std::make_shared<FakeUsbBackend>(FakeUsbOptions{});
  auto conn = ConnectFake(usb);
  ASSERT_TRUE(conn.ok()) << conn.status().message();
  usb->device()->PutFile("/sdcard/big", {RandomBytes(4 << 20, 5), 0100644, 0});
  auto sync = OpenSync(**conn, Soon(), {}, "v1");
  ASSERT_TRUE(sync.ok()) << sync.status().message();
  // The cable comes out after the first chunk, while the host waits in a bulk IN transfer.
  size_t got = 0;
  Status pulled = sync->client->Pull("/sdcard/big",
                                     [&](std::string_view b) {
                                       if (got == 0) usb->Unplug();
                                       got += b.size();
                                       return Status::Ok();
                                     },
                                     Soon(), {});
  ASSERT_FALSE(pulled.ok());
  EXPECT_LT(got, size_t(4 << 20));
  // The connection says why, with libusb's name for it.
  for (int i = 0; i < 100 && (*conn)->state() != ConnectionState::kClosed; ++i)
    std::this_thread::sleep_for(Millis(20));
  ASSERT_EQ((*conn)->state(), ConnectionState::kClosed);
  const std::string why = (*conn)->close_reason().message();
  EXPECT_NE(why.find("LIBUSB_ERROR_NO_DEVICE"), std::string::npos) << why;
  EXPECT_NE(why.find("disconnected"), std::string::npos) << why;
  // Later calls fail fast instead of hanging.
  auto after = RunShell(**conn, "echo x", "", Deadline::After(Millis(2000)));
  EXPECT_FALSE(after.ok());
  // And the device is no longer listed.
  auto list = UsbTransport::List(*usb);
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->empty());
}

TEST(UsbTransportTest, UnplugDuringHandshake) {
  FakeUsbOptions o;
  o.unplug_after = 2;  // CNXN header and payload go out, then the device is gone
  auto usb = std::make_shared<FakeUsbBackend>(o);
  auto conn = ConnectFake(usb);
  ASSERT_FALSE(conn.ok());
  EXPECT_NE(conn.status().message().find("LIBUSB_ERROR_NO_DEVICE"), std::string::npos)
      << conn.status().message();
}

TEST(UsbTransportTest, PermissionErrorNamesTheUdevRule) {
  FakeUsbOptions o;
  o.open_error = kUsbErrorAccess;
  auto usb = std::make_shared<FakeUsbBackend>(o);
  auto list = UsbTransport::List(*usb);
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].serial, "usb:3-1.4");  // serial unreadable without permission
  EXPECT_NE((*list)[0].problem.find("70-fathom-adb.rules"), std::string::npos);
  int code = 0;
  auto t = UsbTransport::Open(usb, "usb:3-1.4", &code);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(code, kUsbErrorAccess);
  const std::string& msg = t.status().message();
  EXPECT_NE(msg.find("LIBUSB_ERROR_ACCESS"), std::string::npos) << msg;
  EXPECT_NE(msg.find("/lib/udev/rules.d"), std::string::npos) << msg;
  EXPECT_NE(msg.find("udevadm control --reload-rules"), std::string::npos) << msg;
  // ConnectUsbOrServer passes it through unchanged (no server fallback for permissions).
  auto route = ConnectUsbOrServer("usb:3-1.4", Options(), usb, ServerAddress{});
  ASSERT_FALSE(route.ok());
  EXPECT_NE(route.status().message().find("70-fathom-adb.rules"), std::string::npos);
}

// A vendor driver that is not WinUSB: libusb on Windows cannot open the interface.
TEST(UsbTransportTest, NotSupportedNamesTheWinUsbDriverStep) {
  FakeUsbOptions o;
  o.open_error = kUsbErrorNotSupported;
  auto usb = std::make_shared<FakeUsbBackend>(o);
  int code = 0;
  auto t = UsbTransport::Open(usb, "usb:3-1.4", &code);
  ASSERT_FALSE(t.ok());
  const std::string& msg = t.status().message();
  EXPECT_NE(msg.find("LIBUSB_ERROR_NOT_SUPPORTED"), std::string::npos) << msg;
  EXPECT_NE(msg.find("WinUSB"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Zadig"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Google USB Driver"), std::string::npos) << msg;
}

TEST(UsbTransportTest, BusyWithoutServerSaysBoth) {
  FakeUsbOptions o;
  o.claim_error = kUsbErrorBusy;
  auto usb = std::make_shared<FakeUsbBackend>(o);
  int code = 0;
  auto t = UsbTransport::Open(usb, "FAKEUSB0001", &code);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(code, kUsbErrorBusy);
  ServerAddress nowhere;
  nowhere.port = static_cast<uint16_t>(testing::FreePort());
  auto route = ConnectUsbOrServer("FAKEUSB0001", Options(), usb, nowhere);
  ASSERT_FALSE(route.ok());
  const std::string& msg = route.status().message();
  EXPECT_NE(msg.find("LIBUSB_ERROR_BUSY"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no adb server answers"), std::string::npos) << msg;
}

TEST(UsbTransportTest, NotBusyMeansDirect) {
  auto usb = std::make_shared<FakeUsbBackend>(FakeUsbOptions{});
  ServerAddress nowhere;
  nowhere.port = static_cast<uint16_t>(testing::FreePort());
  auto route = ConnectUsbOrServer("FAKEUSB0001", Options(), usb, nowhere);
  ASSERT_TRUE(route.ok()) << route.status().message();
  EXPECT_FALSE(route->via_server);
  ASSERT_TRUE(route->connection);
  auto r = RunShell(*route->connection, "echo direct", "", Soon());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->out, "direct\n");
}

// With Debian's adb server holding a device (here: connected over TCP to a fake adbd), a USB
// claim failing with BUSY for that serial goes through the server, and says so.
TEST(UsbTransportTest, BusyFallsBackToTheRealAdbServer) {
  if (!testing::HaveRealAdb()) GTEST_SKIP() << "adb not installed";
  testing::RealAdbServer server;
  ASSERT_TRUE(server.started());
  testing::FakeDeviceServer device({});
  const std::string serial = "127.0.0.1:" + std::to_string(device.port());
  auto connected = server.Client().ConnectDevice(serial);
  ASSERT_TRUE(connected.ok()) << connected.status().message();
  bool online = false;
  for (int i = 0; i < 100 && !online; ++i) {
    auto st = server.Client().GetState(serial);
    online = st.ok() && *st == "device";
    if (!online) std::this_thread::sleep_for(Millis(50));
  }
  ASSERT_TRUE(online);

  FakeUsbOptions o;
  o.serial = serial;  // the same device, also "on USB" but held by the server
  o.claim_error = kUsbErrorBusy;
  auto usb = std::make_shared<FakeUsbBackend>(o);
  ServerAddress at;
  at.port = static_cast<uint16_t>(server.port());
  auto route = ConnectUsbOrServer(serial, Options(), usb, at);
  ASSERT_TRUE(route.ok()) << route.status().message();
  EXPECT_TRUE(route->via_server);
  EXPECT_FALSE(route->connection);
  EXPECT_NE(route->note.find("held by the adb server"), std::string::npos) << route->note;
  EXPECT_NE(route->note.find("using it"), std::string::npos) << route->note;
  // The route works: a shell through the server reaches the device.
  auto stream = server.Client().OpenService(serial, ShellServiceName("echo via server", true));
  ASSERT_TRUE(stream.ok()) << stream.status().message();
  auto r = RunShellV2(**stream, "", Soon(), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->out, "via server\n");

  // A serial the server does not have: the error says so.
  FakeUsbOptions other = o;
  other.serial = "NOTONSERVER";
  auto usb2 = std::make_shared<FakeUsbBackend>(other);
  auto none = ConnectUsbOrServer("NOTONSERVER", Options(), usb2, at);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("does not list NOTONSERVER"), std::string::npos)
      << none.status().message();
}

}  // namespace
}  // namespace fathom::adb
