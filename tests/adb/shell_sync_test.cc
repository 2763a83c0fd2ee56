// Shell v2 framing and the sync client, over the fake device (frames split across WRTEs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "adb/connection.h"
#include "adb/device_services.h"
#include "adb/shell_protocol.h"
#include "adb/sync_protocol.h"
#include "fake_device.h"

namespace fathom::adb {
namespace {

using testing::FakeDevice;
using testing::FakeDeviceOptions;
using testing::FakeFile;
using testing::MakePipe;

constexpr Millis kTimeout{5000};

TEST(ShellProtocolTest, EncodesAndReassemblesByteByByte) {
  EXPECT_EQ(EncodeShellPacket(ShellId::kStdout, "hi\n"), std::string("\x01\x03\0\0\0hi\n", 8));
  EXPECT_EQ(EncodeShellPacket(ShellId::kCloseStdin, ""), std::string("\x04\0\0\0\0", 5));
  std::string wire = EncodeShellPacket(ShellId::kStdout, "hello") +
                     EncodeShellPacket(ShellId::kStderr, "") +
                     EncodeShellPacket(ShellId::kExit, "\x07");
  ShellDecoder dec;
  std::vector<ShellPacket> got;
  for (char c : wire) {
    dec.Feed(std::string_view(&c, 1));
    while (auto p = dec.Next()) got.push_back(*p);
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].id, ShellId::kStdout);
  EXPECT_EQ(got[0].data, "hello");
  EXPECT_EQ(got[1].id, ShellId::kStderr);
  EXPECT_EQ(got[2].id, ShellId::kExit);
  EXPECT_EQ(got[2].data, "\x07");
  EXPECT_EQ(ShellServiceName("ls", true), "shell,v2,raw:ls");
  EXPECT_EQ(ShellServiceName("ls", false), "shell:ls");
  EXPECT_EQ(ExecServiceName("cat x"), "exec:cat x");
}

class DeviceTest : public ::testing::TestWithParam<size_t> {
 protected:
  void Start(FakeDeviceOptions o) {
    o.max_wrte = GetParam();
    auto [h, d] = MakePipe();
    device_ = std::make_unique<FakeDevice>(std::move(d), std::move(o));
    auto c = Connection::Open(std::move(h), {});
    ASSERT_TRUE(c.ok()) << c.status().message();
    conn_ = *c;
  }
  std::unique_ptr<AdbStream> Open(const std::string& service) {
    auto s = conn_->OpenStream(service, Deadline::After(kTimeout));
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? std::move(*s) : nullptr;
  }
  std::unique_ptr<FakeDevice> device_;
  std::shared_ptr<Connection> conn_;
};

TEST_P(DeviceTest, ShellV2StdoutStderrExitAndStdin) {
  Start({});
  auto s = Open(ShellServiceName("fail 3", true));
  ASSERT_TRUE(s);
  auto r = RunShellV2(*s, "", Deadline::After(kTimeout), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->out, "");
  EXPECT_EQ(r->err, "failing\n");
  EXPECT_EQ(r->exit_code, 3);

  std::string input(GetParam() == 0 ? 300000 : 20000, '\0');
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<char>(i * 7);
  auto cat = Open(ShellServiceName("cat", true));
  ASSERT_TRUE(cat);
  auto r2 = RunShellV2(*cat, input, Deadline::After(kTimeout), {});
  ASSERT_TRUE(r2.ok()) << r2.status().message();
  EXPECT_EQ(r2->out, input);
  EXPECT_EQ(r2->exit_code, 0);
  EXPECT_EQ(device_->services().back(), "shell,v2,raw:cat");
}

TEST_P(DeviceTest, ExecIsRaw) {
  Start({});
  auto s = Open(ExecServiceName("big 5000"));
  ASSERT_TRUE(s);
  auto r = ReadToEnd(*s, Deadline::After(kTimeout), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->out.size(), 5000u);
  EXPECT_EQ(r->out.substr(0, 3), "abc");
}

void SyncRoundTrip(FakeDevice* device, Connection* conn, bool v2, size_t size) {
  auto s = conn->OpenStream("sync:", Deadline::After(kTimeout));
  ASSERT_TRUE(s.ok());
  SyncClient sync(**s, v2, v2);
  Deadline d = Deadline::After(kTimeout);
  std::string payload(size, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i % 251);
  ASSERT_TRUE(sync.Push(payload, "/data/local/tmp/a.bin", 0100640, 1700000000, d, {}).ok());
  ASSERT_TRUE(sync.Push("", "/data/local/tmp/empty", 0100644, 5, d, {}).ok());
  FakeFile f;
  ASSERT_TRUE(device->GetFile("/data/local/tmp/a.bin", &f));
  EXPECT_EQ(f.data, payload);
  EXPECT_EQ(f.mode, 0100640u);
  EXPECT_EQ(f.mtime, 1700000000u);

  auto st = sync.Stat("/data/local/tmp/a.bin", d, {});
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->size, payload.size());
  EXPECT_EQ(st->mode, 0100640u);
  EXPECT_EQ(st->mtime, 1700000000);
  if (v2) {
    EXPECT_EQ(st->uid, 2000u);
  }
  auto lst = sync.Lstat("/data/local/tmp/a.bin", d, {});
  ASSERT_TRUE(lst.ok()) << lst.status().message();
  EXPECT_EQ(lst->size, payload.size());
  auto missing = sync.Stat("/nope", d, {});
  EXPECT_FALSE(missing.ok());

  auto list = sync.List("/data/local/tmp", d, {});
  ASSERT_TRUE(list.ok()) << list.status().message();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].name, "a.bin");
  EXPECT_EQ((*list)[0].stat.size, payload.size());
  EXPECT_EQ((*list)[1].name, "empty");

  std::string pulled;
  ASSERT_TRUE(sync.Pull("/data/local/tmp/a.bin",
                        [&](std::string_view c) {
                          pulled += c;
                          return Status::Ok();
                        },
                        d, {})
                  .ok());
  EXPECT_EQ(pulled, payload);
  Status bad = sync.Pull("/nope", [](std::string_view) { return Status::Ok(); }, d, {});
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("No such file"), std::string::npos);
  EXPECT_TRUE(sync.Quit(d, {}).ok());
  std::string rest;
  auto eof = (*s)->Read(&rest, d, {});
  ASSERT_TRUE(eof.ok());
  EXPECT_EQ(*eof, 0u);
}

TEST_P(DeviceTest, SyncV2) {
  Start({});
  SyncRoundTrip(device_.get(), conn_.get(), true, GetParam() == 0 ? 150000 : 9000);
}

TEST_P(DeviceTest, SyncV1) {
  Start({});
  SyncRoundTrip(device_.get(), conn_.get(), false, GetParam() == 0 ? 150000 : 9000);
}

// PushFrom streams from a source that returns irregular amounts (short reads from a
// file or pipe); the device must still get the bytes in order, and a source error
// must stop the push with that error.
TEST_P(DeviceTest, SyncPushFromStreamsIrregularReads) {
  Start({});
  auto s = conn_->OpenStream("sync:", Deadline::After(kTimeout));
  ASSERT_TRUE(s.ok());
  SyncClient sync(**s, true, true);
  Deadline d = Deadline::After(kTimeout);
  std::string payload(GetParam() == 0 ? 300001 : 20001, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 13 % 256);
  size_t at = 0, calls = 0;
  const size_t steps[] = {1, 65536, 7, 40000, 65536};
  Status st = sync.PushFrom(
      [&](char* buf, size_t cap) -> Result<size_t> {
        size_t n = std::min({cap, steps[calls++ % 5], payload.size() - at});
        std::memcpy(buf, payload.data() + at, n);
        at += n;
        return n;
      },
      "/data/local/tmp/streamed", 0100600, 42, d, {});
  ASSERT_TRUE(st.ok()) << st.message();
  FakeFile f;
  ASSERT_TRUE(device_->GetFile("/data/local/tmp/streamed", &f));
  EXPECT_EQ(f.data, payload);
  EXPECT_EQ(f.mtime, 42u);

  Status failed =
      sync.PushFrom([](char*, size_t) -> Result<size_t> { return ErrorStatus("disk on fire"); },
                    "/data/local/tmp/never", 0100600, 0, d, {});
  EXPECT_EQ(failed.message(), "disk on fire");
}

// Without delayed_ack every WRTE costs a round trip, so a push fills each WRTE to the max
// payload: the DATA records of one batch total exactly 1 MiB (the last one shortened), where
// 16 full records (1 MiB + 128 bytes) needed a second, 128-byte WRTE per MiB.
TEST(SyncBatchTest, PushFillsWholeWrtes) {
  auto log = std::make_shared<testing::WireLog>();
  auto [h, dev] = MakePipe(log);
  FakeDevice device(std::move(dev), {});
  auto c = Connection::Open(std::move(h), {});
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ((*c)->max_payload(), kMaxPayload);
  auto s = (*c)->OpenStream("sync:", Deadline::After(kTimeout));
  ASSERT_TRUE(s.ok());
  SyncClient sync(**s, true, true);
  std::string payload(3 * kMaxPayload + 5, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 7 % 253);
  ASSERT_TRUE(
      sync.Push(payload, "/data/local/tmp/big", 0100644, 1, Deadline::After(kTimeout), {}).ok());
  FakeFile f;
  ASSERT_TRUE(device.GetFile("/data/local/tmp/big", &f));
  EXPECT_EQ(f.data, payload);
  std::vector<size_t> wrtes;
  {
    std::lock_guard<std::mutex> l(log->mu);
    for (const std::string& m : log->messages) {
      if (GetU32(m, 0) == kCmdWrte) wrtes.push_back(m.size() - kHeaderSize);
    }
  }
  // SEND request, three full batches, then the tail with DONE.
  ASSERT_EQ(wrtes.size(), 5u);
  EXPECT_LT(wrtes[0], 100u);
  for (size_t i = 1; i <= 3; ++i) EXPECT_EQ(wrtes[i], kMaxPayload) << i;
  EXPECT_LT(wrtes[4], 1000u);
}

TEST_P(DeviceTest, ShellV2StreamingDeliversEachStreamAndExitCode) {
  Start({});
  auto s = Open(ShellServiceName("fail 4", true));
  ASSERT_TRUE(s);
  std::string out, err;
  auto code = RunShellV2Streaming(
      *s, "", [&](std::string_view b) { out += b; }, [&](std::string_view b) { err += b; },
      Deadline::After(kTimeout), {});
  ASSERT_TRUE(code.ok()) << code.status().message();
  EXPECT_EQ(*code, 4);
  EXPECT_EQ(out, "");
  EXPECT_EQ(err, "failing\n");
  auto legacy = Open(ExecServiceName("big 3000"));
  ASSERT_TRUE(legacy);
  std::string all;
  auto none = ReadToEndStreaming(*legacy, [&](std::string_view b) { all += b; },
                                 Deadline::After(kTimeout), {});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, -1);
  EXPECT_EQ(all.size(), 3000u);
}

// 0: one WRTE per reply; 5 and 3: every frame split across WRTEs.
INSTANTIATE_TEST_SUITE_P(WrteSizes, DeviceTest, ::testing::Values(size_t{0}, size_t{5}, size_t{3}));

}  // namespace
}  // namespace fathom::adb

namespace fathom::adb {
namespace {

std::shared_ptr<Connection> ConnectTo(testing::FakeDeviceOptions o,
                                      std::unique_ptr<testing::FakeDevice>* device) {
  auto [h, d] = testing::MakePipe();
  *device = std::make_unique<testing::FakeDevice>(std::move(d), std::move(o));
  auto c = Connection::Open(std::move(h), {});
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : nullptr;
}

TEST(DeviceServicesTest, ShellPicksV2OrFallsBack) {
  std::unique_ptr<testing::FakeDevice> dev;
  auto conn = ConnectTo({}, &dev);
  ASSERT_TRUE(conn);
  auto r = RunShell(*conn, "fail 5", "", Deadline::After(Millis(5000)));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 5);
  EXPECT_EQ(dev->services().back(), "shell,v2,raw:fail 5");

  testing::FakeDeviceOptions old;
  old.banner = "device::ro.product.model=Old;features=cmd;";
  std::unique_ptr<testing::FakeDevice> old_dev;
  auto old_conn = ConnectTo(old, &old_dev);
  ASSERT_TRUE(old_conn);
  auto r2 = RunShell(*old_conn, "fail 5", "", Deadline::After(Millis(5000)));
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->out, "failing\n");  // merged, no exit code
  EXPECT_EQ(r2->exit_code, -1);
  EXPECT_EQ(old_dev->services().back(), "shell:fail 5");
  EXPECT_FALSE(RunShell(*old_conn, "cat", "x", Deadline::After(Millis(5000))).ok());

  // Sync on the old device falls back to v1 requests.
  old_dev->PutFile("/sdcard/f", {"data", 0100644, 7});
  auto sync = OpenSync(*old_conn, Deadline::After(Millis(5000)));
  ASSERT_TRUE(sync.ok());
  auto st = sync->client->Stat("/sdcard/f", Deadline::After(Millis(5000)), {});
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->size, 4u);
  EXPECT_EQ(st->uid, 0u);  // v1 STAT has no owner
}

}  // namespace
}  // namespace fathom::adb
