// The host state machine (handshake, auth, streams, flow control) against the fake device
// over an in-memory pipe.
#include "adb/connection.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "adb/shell_protocol.h"
#include "fake_device.h"

namespace fathom::adb {
namespace {

using testing::FakeDevice;
using testing::FakeDeviceOptions;
using testing::MakePipe;
using testing::WireLog;

constexpr Millis kTimeout{5000};

AuthKey NewKey() {
  auto k = AuthKey::Generate();
  EXPECT_TRUE(k.ok());
  return std::move(*k);
}

struct Rig {
  std::shared_ptr<WireLog> log = std::make_shared<WireLog>();
  std::unique_ptr<FakeDevice> device;
  std::unique_ptr<Transport> host;
  explicit Rig(FakeDeviceOptions o) {
    auto [h, d] = MakePipe(log);
    host = std::move(h);
    device = std::make_unique<FakeDevice>(std::move(d), std::move(o));
  }
};

TEST(ConnectionTest, HandshakeWithoutAuthParsesBanner) {
  Rig s({});
  ConnectionOptions o;
  o.keys.push_back(NewKey());
  auto c = Connection::Open(std::move(s.host), std::move(o));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ((*c)->state(), ConnectionState::kOnline);
  EXPECT_EQ((*c)->device_banner().model(), "FakeModel");
  EXPECT_EQ((*c)->device_banner().product(), "fakeprod");
  EXPECT_EQ((*c)->device_banner().device(), "fakedev");
  EXPECT_TRUE((*c)->device_banner().Has("shell_v2"));
  EXPECT_EQ((*c)->version(), kVersion);
  EXPECT_EQ((*c)->max_payload(), kMaxPayload);
  // Our CNXN carried a correct checksum (version unknown yet), and its banner.
  std::lock_guard<std::mutex> l(s.log->mu);
  const std::string& cnxn = s.log->messages.at(0);
  EXPECT_EQ(GetU32(cnxn, 0), kCmdCnxn);
  EXPECT_EQ(GetU32(cnxn, 16), PayloadChecksum(cnxn.substr(24)));
  EXPECT_EQ(cnxn.substr(24), HostBanner(HostFeatures()));
}

TEST(ConnectionTest, SignsTokenWithSecondKeyWhenFirstIsUnknown) {
  AuthKey unknown = NewKey(), trusted = NewKey();
  FakeDeviceOptions d;
  d.require_auth = true;
  d.trusted.push_back(*AuthPublicKey::FromAndroidText(*trusted.AndroidPublicKeyText("a@b")));
  Rig s(std::move(d));
  ConnectionOptions o;
  o.keys = {unknown, trusted};
  std::vector<ConnectionState> states;
  o.on_state = [&](ConnectionState st) { states.push_back(st); };
  auto c = Connection::Open(std::move(s.host), std::move(o));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(s.device->signatures_seen(), 2);
  EXPECT_TRUE(s.device->public_keys().empty());
  EXPECT_EQ(states.back(), ConnectionState::kOnline);
  // AUTH replies before the handshake carry checksums too.
  std::lock_guard<std::mutex> l(s.log->mu);
  for (const auto& m : s.log->messages) {
    if (GetU32(m, 0) == kCmdAuth) {
      EXPECT_EQ(GetU32(m, 16), PayloadChecksum(m.substr(24)));
    }
  }
}

TEST(ConnectionTest, SendsPublicKeyAndWaitsForUser) {
  AuthKey key = NewKey();
  FakeDeviceOptions d;
  d.require_auth = true;
  d.accept_public_key = true;
  Rig s(std::move(d));
  ConnectionOptions o;
  o.keys = {key};
  o.user_info = "tester@fathom";
  bool saw_waiting = false;
  o.on_state = [&](ConnectionState st) { saw_waiting |= st == ConnectionState::kWaitingForUser; };
  auto c = Connection::Open(std::move(s.host), std::move(o));
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(saw_waiting);
  auto keys = s.device->public_keys();
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0], *key.AndroidPublicKeyText("tester@fathom") + '\0');
}

TEST(ConnectionTest, UnauthorizedTimesOutWithClearMessage) {
  FakeDeviceOptions d;
  d.require_auth = true;  // never accepts
  Rig s(std::move(d));
  ConnectionOptions o;
  o.keys = {NewKey()};
  o.user_confirm_timeout = Millis(300);
  auto c = Connection::Open(std::move(s.host), std::move(o));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("allow USB debugging"), std::string::npos)
      << c.status().message();
}

TEST(ConnectionTest, CancelStopsHandshake) {
  FakeDeviceOptions d;
  d.require_auth = true;
  Rig s(std::move(d));
  ConnectionOptions o;
  o.keys = {NewKey()};
  CancelToken cancel;
  std::thread canceller([&] {
    std::this_thread::sleep_for(Millis(200));
    cancel.Cancel();
  });
  auto start = Clock::now();
  auto c = Connection::Open(std::move(s.host), std::move(o), cancel);
  canceller.join();
  EXPECT_FALSE(c.ok());
  EXPECT_LT(Clock::now() - start, Millis(3000));
}

TEST(ConnectionTest, RefusedServiceIsAnError) {
  Rig s({});
  auto c = Connection::Open(std::move(s.host), {});
  ASSERT_TRUE(c.ok());
  auto st = (*c)->OpenStream("nosuchservice:", Deadline::After(kTimeout));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("refused"), std::string::npos);
  EXPECT_EQ(s.device->services().back(), "nosuchservice:");
}

TEST(ConnectionTest, ManyStreamsAtOnceFromThreads) {
  FakeDeviceOptions d;
  d.max_wrte = 7;  // every reply is split over many WRTEs
  Rig s(std::move(d));
  auto c = Connection::Open(std::move(s.host), {});
  ASSERT_TRUE(c.ok());
  std::shared_ptr<Connection> conn = *c;
  std::atomic<int> good{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      auto st = conn->OpenStream(ShellServiceName("echo hello " + std::to_string(i), true),
                                 Deadline::After(kTimeout));
      if (!st.ok()) return;
      auto r = RunShellV2(**st, "", Deadline::After(kTimeout), {});
      if (r.ok() && r->out == "hello " + std::to_string(i) + "\n" && r->exit_code == 0) ++good;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), 8);
}

TEST(ConnectionTest, DeviceGoneFailsPendingRead) {
  Rig s({});
  auto c = Connection::Open(std::move(s.host), {});
  ASSERT_TRUE(c.ok());
  auto st = (*c)->OpenStream("shell,v2,raw:cat", Deadline::After(kTimeout));
  ASSERT_TRUE(st.ok());
  s.device->Stop();
  std::string out;
  auto r = (*st)->Read(&out, Deadline::After(kTimeout), {});
  ASSERT_FALSE(r.ok());  // lost, not a clean end of stream
  EXPECT_NE(r.status().message().find("lost"), std::string::npos) << r.status().message();
  EXPECT_EQ((*c)->state(), ConnectionState::kClosed);
  EXPECT_FALSE((*c)->OpenStream("shell:", Deadline::After(kTimeout)).ok());
}

TEST(ConnectionTest, ReadTimeoutAndCancelLeaveStreamUsable) {
  Rig s({});
  auto c = Connection::Open(std::move(s.host), {});
  ASSERT_TRUE(c.ok());
  auto st = (*c)->OpenStream("shell,v2,raw:cat", Deadline::After(kTimeout));
  ASSERT_TRUE(st.ok());
  std::string out;
  EXPECT_FALSE((*st)->Read(&out, Deadline::After(Millis(100)), {}).ok());
  CancelToken cancel;
  cancel.Cancel();
  EXPECT_FALSE((*st)->Read(&out, Deadline::After(kTimeout), cancel).ok());
  auto r = RunShellV2(**st, "abc", Deadline::After(kTimeout), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->out, "abc");
}

TEST(ConnectionTest, OldDeviceGetsChecksumsAndSmallPayloads) {
  FakeDeviceOptions d;
  d.version = kVersionMin;
  d.max_payload = kMaxPayloadV1;
  d.banner = "device::ro.product.model=Old;features=";
  Rig s(std::move(d));
  auto c = Connection::Open(std::move(s.host), {});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->version(), kVersionMin);
  EXPECT_EQ((*c)->max_payload(), kMaxPayloadV1);
  // Without shell_v2: legacy shell: with merged output and no exit code.
  ASSERT_FALSE((*c)->device_banner().Has("shell_v2"));
  auto st = (*c)->OpenStream(ShellServiceName("big 10000", false), Deadline::After(kTimeout));
  ASSERT_TRUE(st.ok());
  auto r = ReadToEnd(**st, Deadline::After(kTimeout), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out.size(), 10000u);
  EXPECT_EQ(r->exit_code, -1);
  // Writes are split at 4096 and every message after CNXN carries a checksum.
  auto cat = (*c)->OpenStream("exec:cat", Deadline::After(kTimeout));
  ASSERT_TRUE(cat.ok());
  ASSERT_TRUE((*cat)->Write(std::string(10000, 'x'), Deadline::After(kTimeout), {}).ok());
  std::lock_guard<std::mutex> l(s.log->mu);
  int wrtes = 0;
  for (const auto& m : s.log->messages) {
    EXPECT_EQ(GetU32(m, 16), PayloadChecksum(m.substr(24)));
    if (GetU32(m, 0) == kCmdWrte) {
      ++wrtes;
      EXPECT_LE(m.size() - 24, kMaxPayloadV1);
    }
  }
  EXPECT_EQ(wrtes, 3);
  EXPECT_EQ(GetU32(s.log->messages.back(), 0), kCmdWrte);
}

}  // namespace
}  // namespace fathom::adb
