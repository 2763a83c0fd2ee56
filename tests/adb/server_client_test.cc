// Smart-socket client: parsing units, then against Debian's real adb server.
#include "adb/server_client.h"

#include <gtest/gtest.h>

#include <memory>

#include "adb_server_fixture.h"
#include "test_util.h"

namespace fathom::adb {
namespace {

using testing::RealAdbServer;
using testing::RunCommand;
using testing::ScopedEnv;

TEST(ServerClientUnitTest, EncodesRequests) {
  EXPECT_EQ(EncodeSmartRequest("host:version"), "000chost:version");
  EXPECT_EQ(EncodeSmartRequest(""), "0000");
}

TEST(ServerClientUnitTest, ParsesDeviceLists) {
  auto l = ParseDeviceList(
      "emulator-5554          device product:sdk_gphone model:sdk device:generic transport_id:1\n"
      "0123456789ABCDEF       unauthorized usb:1-2 transport_id:2\n"
      "abc\tdevice\n"
      "5ZD1             no permissions (user in plugdev group); see [http://x] usb:3-1\n");
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0].serial, "emulator-5554");
  EXPECT_EQ(l[0].state, "device");
  EXPECT_EQ(l[0].Attr("model"), "sdk");
  EXPECT_EQ(l[0].Attr("transport_id"), "1");
  EXPECT_EQ(l[1].state, "unauthorized");
  EXPECT_EQ(l[1].Attr("usb"), "1-2");
  EXPECT_EQ(l[2].serial, "abc");
  EXPECT_EQ(l[3].state.rfind("no permissions", 0), 0u);
  EXPECT_TRUE(ParseDeviceList("").empty());
}

TEST(ServerClientUnitTest, AddressFromEnvironment) {
  {
    ScopedEnv p("ANDROID_ADB_SERVER_PORT", "5099");
    ScopedEnv s("ADB_SERVER_SOCKET", "");
    EXPECT_EQ(ServerAddress::FromEnvironment().port, 5099);
  }
  {
    ScopedEnv s("ADB_SERVER_SOCKET", "tcp:10.1.2.3:6000");
    auto a = ServerAddress::FromEnvironment();
    EXPECT_EQ(a.host, "10.1.2.3");
    EXPECT_EQ(a.port, 6000);
  }
}

TEST(ServerClientUnitTest, NoServerIsAClearError) {
  ServerAddress a;
  a.port = static_cast<uint16_t>(testing::FreePort());
  ServerClient c(a, Millis(2000));
  auto v = c.Version();
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("not reachable"), std::string::npos);
}

class RealServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (testing::HaveRealAdb()) server_ = std::make_unique<RealAdbServer>();
  }
  static void TearDownTestSuite() { server_.reset(); }
  void SetUp() override {
    if (!server_) GTEST_SKIP() << "adb not installed";
    ASSERT_TRUE(server_->started());
  }
  static std::unique_ptr<RealAdbServer> server_;
};
std::unique_ptr<RealAdbServer> RealServerTest::server_;

TEST_F(RealServerTest, VersionMatchesAdbVersion) {
  auto v = server_->Client().Version();
  ASSERT_TRUE(v.ok()) << v.status().message();
  // "Android Debug Bridge version 1.0.41": the server version is the last number.
  std::string text = RunCommand("adb version");
  size_t at = text.find("version 1.0.");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_EQ(*v, std::stoi(text.substr(at + 12)));
  EXPECT_EQ(*v, 41);
}

TEST_F(RealServerTest, DevicesWithNoDevices) {
  auto d = server_->Client().Devices();
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_TRUE(d->empty());
  // The CLI agrees: only the header line.
  std::string cli = RunCommand(server_->Env() + " adb devices -l 2>/dev/null");
  EXPECT_EQ(cli.find('\t'), std::string::npos) << cli;
}

TEST_F(RealServerTest, TrackDevicesSendsInitialList) {
  auto t = server_->Client().TrackDevices();
  ASSERT_TRUE(t.ok()) << t.status().message();
  auto first = t->Next(Deadline::After(Millis(5000)), {});
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(first->empty());
  // Nothing changes: the next read times out instead of hanging.
  EXPECT_FALSE(t->Next(Deadline::After(Millis(200)), {}).ok());
}

TEST_F(RealServerTest, ErrorsComeBackAsText) {
  auto s = server_->Client().OpenService("nosuch", "shell:ls");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("device 'nosuch' not found"), std::string::npos)
      << s.status().message();
  auto host_features = server_->Client().Query("host:host-features");
  ASSERT_TRUE(host_features.ok()) << host_features.status().message();
  EXPECT_NE(host_features->find("shell_v2"), std::string::npos);
  auto c = server_->Client().ConnectDevice("127.0.0.1:1");
  EXPECT_FALSE(c.ok());  // OKAY on the wire, but the text says it failed
}

}  // namespace
}  // namespace fathom::adb
