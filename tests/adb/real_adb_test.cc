// Debian's real adb (server + CLI) talking to our fake device over TCP: exercises our
// message codec, signature verification and public-key parsing against real adb traffic,
// the key file we write being usable by Google's adb, and our smart-socket, shell v2 and
// sync clients through the real server.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "adb/key_store.h"
#include "adb/shell_protocol.h"
#include "adb/sync_protocol.h"
#include "adb_server_fixture.h"
#include "fake_device.h"

namespace fathom::adb {
namespace {

using testing::FakeDeviceOptions;
using testing::FakeDeviceServer;
using testing::FakeFile;
using testing::RealAdbServer;
using testing::RunCommand;

constexpr Millis kTimeout{10000};

// Connects the server to the fake device and waits for the wanted state.
std::string ConnectAndWait(RealAdbServer& server, uint16_t port, const std::string& want) {
  const std::string serial = "127.0.0.1:" + std::to_string(port);
  // Raw query: with a pending key prompt the reply says "failed to authenticate" although the
  // device comes online once the user allows it.
  auto text = server.Client().Query("host:connect:" + serial);
  EXPECT_TRUE(text.ok()) << text.status().message();
  for (int i = 0; i < 100; ++i) {
    auto devices = server.Client().Devices();
    if (devices.ok()) {
      for (const auto& d : *devices) {
        if (d.serial == serial && d.state == want) return serial;
      }
    }
    std::this_thread::sleep_for(Millis(100));
  }
  ADD_FAILURE() << "device never reached state " << want;
  return serial;
}

class RealAdbToFakeDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::HaveRealAdb()) GTEST_SKIP() << "adb not installed";
    // Our key store writes the key before the server starts, so Google's adb uses our file.
    server_home_ = std::make_unique<testing::TempDir>();
    key_dir_ = server_home_->path() / ".android";
    auto key = LoadOrCreateUserKey(key_dir_);
    ASSERT_TRUE(key.ok()) << key.status().message();
    key_ = std::make_unique<AuthKey>(*key);
  }
  std::unique_ptr<RealAdbServer> StartServerWithKey() {
    // The server loads its keys when it starts: copy ours into its private HOME first.
    return std::make_unique<RealAdbServer>([this](const std::filesystem::path& dir) {
      std::filesystem::copy_file(key_dir_ / "adbkey", dir / "adbkey");
      std::filesystem::copy_file(key_dir_ / "adbkey.pub", dir / "adbkey.pub");
    });
  }
  std::unique_ptr<testing::TempDir> server_home_;
  std::filesystem::path key_dir_;
  std::unique_ptr<AuthKey> key_;
};

TEST_F(RealAdbToFakeDeviceTest, SignsWithOurKeyFileAndRunsServices) {
  auto server = StartServerWithKey();
  ASSERT_TRUE(server->started());
  FakeDeviceOptions o;
  o.require_auth = true;
  o.trusted.push_back(*AuthPublicKey::FromAndroidText(*key_->AndroidPublicKeyText("x@y")));
  o.max_wrte = 1000;  // our shell/sync parsers must reassemble across WRTEs
  FakeDeviceServer device(o);
  ASSERT_NE(device.port(), 0);
  auto tracker = server->Client().TrackDevices();
  ASSERT_TRUE(tracker.ok()) << tracker.status().message();
  auto initial = tracker->Next(Deadline::After(kTimeout), {});
  ASSERT_TRUE(initial.ok());
  EXPECT_TRUE(initial->empty());
  const std::string serial = ConnectAndWait(*server, device.port(), "device");
  // The tracker reports the new device (possibly after intermediate states).
  bool tracked = false;
  for (int i = 0; i < 5 && !tracked; ++i) {
    auto update = tracker->Next(Deadline::After(kTimeout), {});
    ASSERT_TRUE(update.ok()) << update.status().message();
    for (const auto& d : *update) tracked |= d.serial == serial && d.state == "device";
  }
  EXPECT_TRUE(tracked);
  ASSERT_NE(device.last_device(), nullptr);
  // Real adb signed the token with the key we wrote; our verifier accepted it.
  EXPECT_GE(device.last_device()->signatures_seen(), 1);
  EXPECT_TRUE(device.last_device()->public_keys().empty());

  // Banner we sent is parsed by the server into devices-l attributes.
  auto devices = server->Client().Devices();
  ASSERT_TRUE(devices.ok());
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_EQ((*devices)[0].Attr("product"), "fakeprod");
  EXPECT_EQ((*devices)[0].Attr("model"), "FakeModel");
  EXPECT_EQ((*devices)[0].Attr("device"), "fakedev");
  auto features = server->Client().Features(serial);
  ASSERT_TRUE(features.ok());
  EXPECT_NE(features->find("shell_v2"), std::string::npos);
  auto state = server->Client().GetState(serial);
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(*state, "device");

  // Shell v2 through the server.
  auto shell =
      server->Client().OpenService(serial, ShellServiceName("echo via-smart-socket", true));
  ASSERT_TRUE(shell.ok()) << shell.status().message();
  auto r = RunShellV2(**shell, "", Deadline::After(kTimeout), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->out, "via-smart-socket\n");
  EXPECT_EQ(r->exit_code, 0);
  auto fail = server->Client().OpenService(serial, ShellServiceName("fail 42", true));
  ASSERT_TRUE(fail.ok());
  auto r2 = RunShellV2(**fail, "", Deadline::After(kTimeout), {});
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->exit_code, 42);
  EXPECT_EQ(r2->err, "failing\n");
  // The real CLI renders our fake device's shell v2 frames and exit code.
  int rc = 0;
  std::string cli = RunCommand(server->Env() + " adb -s " + serial + " shell echo from-cli", &rc);
  EXPECT_EQ(cli, "from-cli\n");
  EXPECT_EQ(rc, 0);

  // Our sync client through the real server (v2 requests, server forwards bytes).
  auto sync_stream = server->Client().OpenService(serial, "sync:");
  ASSERT_TRUE(sync_stream.ok()) << sync_stream.status().message();
  SyncClient sync(**sync_stream, true, true);
  Deadline d = Deadline::After(kTimeout);
  std::string payload(200000, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 13);
  ASSERT_TRUE(sync.Push(payload, "/data/local/tmp/ours.bin", 0100600, 1234567, d, {}).ok());
  auto st = sync.Stat("/data/local/tmp/ours.bin", d, {});
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->size, payload.size());
  std::string back;
  ASSERT_TRUE(sync.Pull("/data/local/tmp/ours.bin",
                        [&](std::string_view c) {
                          back += c;
                          return Status::Ok();
                        },
                        d, {})
                  .ok());
  EXPECT_EQ(back, payload);
  ASSERT_TRUE(sync.Quit(d, {}).ok());

  // Google's push packs many sync messages per WRTE; our fake device (and its use of our
  // framing constants) must store exactly what it sent, and adb pull must read it back.
  testing::TempDir local;
  std::string file_data(300000, 'z');
  { std::ofstream(local.path() / "in.bin", std::ios::binary) << file_data; }
  RunCommand(server->Env() + " adb -s " + serial + " push " + (local.path() / "in.bin").string() +
                 " /data/local/tmp/theirs.bin >/dev/null 2>&1",
             &rc);
  EXPECT_EQ(rc, 0);
  FakeFile f;
  ASSERT_TRUE(device.last_device()->GetFile("/data/local/tmp/theirs.bin", &f));
  EXPECT_EQ(f.data, file_data);
  RunCommand(server->Env() + " adb -s " + serial + " pull /data/local/tmp/ours.bin " +
                 (local.path() / "out.bin").string() + " >/dev/null 2>&1",
             &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(testing::ReadFileOrEmpty(local.path() / "out.bin"), payload);
}

TEST_F(RealAdbToFakeDeviceTest, UnknownKeyMakesAdbSendItsPublicKeyInOurFormat) {
  auto server = StartServerWithKey();
  ASSERT_TRUE(server->started());
  FakeDeviceOptions o;
  o.require_auth = true;
  o.accept_public_key = true;  // "Allow USB debugging" tapped
  FakeDeviceServer device(o);
  ConnectAndWait(*server, device.port(), "device");
  ASSERT_NE(device.last_device(), nullptr);
  auto keys = device.last_device()->public_keys();
  ASSERT_EQ(keys.size(), 1u);
  // Same base64 as our encoding of that key; adb adds its own " user@host" and a NUL.
  std::string ours = *key_->AndroidPublicKeyText("");
  ours.pop_back();  // drop the separating space
  EXPECT_EQ(keys[0].substr(0, ours.size()), ours);
  EXPECT_EQ(keys[0][ours.size()], ' ');
  EXPECT_EQ(keys[0].back(), '\0');
  EXPECT_TRUE(AuthPublicKey::FromAndroidText(keys[0]).ok());
}

}  // namespace
}  // namespace fathom::adb
