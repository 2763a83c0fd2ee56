// Sync v2 (SND2/RCV2) against fathom-test-adbd's device side (HostAdbdServer, real files):
// the standard file set pushed and pulled byte-identically with v1, v2 uncompressed and v2 with
// every codec this build has; compressible data really travels compressed; the codec choice
// follows both sides' features; a corrupt compressed stream is an error, not a crash.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "adb/device_connector.h"
#include "adb/device_services.h"
#include "test_adbd/host_adbd.h"
#include "test_util.h"

namespace fathom::adb {
namespace {

using testing::ReadFileOrEmpty;
using testing::TempDir;

// Half random, half repeated text per 4 KiB: compressors find work, but not a trivial one.
std::string MixedBytes(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) {
    s[i] = (i / 2048) % 2 ? static_cast<char>(rng()) : "fathom adb sync v2 "[i % 19];
  }
  return s;
}

// Counts what crosses the stream, to see compression on the wire.
class CountingStream : public ByteStream {
 public:
  explicit CountingStream(ByteStream& s) : s_(s) {}
  Status Write(std::string_view d, Deadline dl, const CancelToken& c) override {
    written += d.size();
    return s_.Write(d, dl, c);
  }
  Result<size_t> Read(std::string* out, Deadline dl, const CancelToken& c) override {
    auto n = s_.Read(out, dl, c);
    if (n.ok()) read += *n;
    return n;
  }
  void Close() override { s_.Close(); }
  size_t written = 0, read = 0;

 private:
  ByteStream& s_;
};

std::string AllFeatures() {
  return "shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,sendrecv_v2,sendrecv_v2_brotli,"
         "sendrecv_v2_lz4,sendrecv_v2_zstd";
}

class SyncV2Test : public ::testing::Test {
 protected:
  void Connect(const std::string& features, bool delayed_ack = false) {
    testing::HostAdbdOptions o;
    o.require_auth = false;
    o.banner = "device::features=" + features + ";";
    server_ = std::make_unique<testing::HostAdbdServer>(0, o);
    ASSERT_TRUE(server_->ok());
    ConnectionOptions co;
    co.keys.push_back(*AuthKey::Generate());
    co.delayed_ack = delayed_ack;
    co.receive_window = 1u << 20;  // small: the window must really throttle the device
    auto c = ConnectDirect("127.0.0.1:" + std::to_string(server_->port()), co);
    ASSERT_TRUE(c.ok()) << c.status().message();
    conn_ = *c;
  }
  Deadline Soon() { return Deadline::After(Millis(50000)); }

  // Push then pull with `mode`; returns bytes written for the push and read for the pull.
  void RoundTrip(const SyncTransferMode& mode, const std::string& data, const std::string& remote,
                 size_t* sent = nullptr, size_t* received = nullptr) {
    auto stream = conn_->OpenStream("sync:", Soon());
    ASSERT_TRUE(stream.ok()) << stream.status().message();
    CountingStream counting(**stream);
    SyncClient client(counting, true, true, mode);
    Status pushed = client.Push(data, remote, 0100640, 1700000000, Soon(), {});
    ASSERT_TRUE(pushed.ok()) << pushed.message();
    if (sent) *sent = counting.written;
    ASSERT_TRUE(ReadFileOrEmpty(remote) == data) << remote;
    auto st = client.Stat(remote, Soon(), {});
    ASSERT_TRUE(st.ok());
    EXPECT_EQ(st->mode & 0777, 0640u);  // mode travels in the SND2 setup message
    EXPECT_EQ(st->mtime, 1700000000);
    const size_t before = counting.read;
    std::string back;
    Status pulled = client.Pull(remote,
                                [&](std::string_view b) {
                                  back.append(b);
                                  return Status::Ok();
                                },
                                Soon(), {});
    ASSERT_TRUE(pulled.ok()) << pulled.message();
    if (received) *received = counting.read - before;
    EXPECT_TRUE(back == data) << remote << ": " << back.size() << " vs " << data.size();
    client.Quit(Soon(), {});
  }

  TempDir dir_;
  std::unique_ptr<testing::HostAdbdServer> server_;
  std::shared_ptr<Connection> conn_;
};

TEST_F(SyncV2Test, StandardFileSetIdenticalInEveryForm) {
  Connect(AllFeatures());
  const std::vector<size_t> sizes = {0, 1, 65536, 65537, 50u << 20};
  std::vector<std::string> files;
  for (size_t n : sizes) files.push_back(MixedBytes(n, static_cast<unsigned>(n) + 1));
  std::vector<std::string> forms = {"v1", "v2"};
  for (SyncCompression c : BuiltSyncCompressions()) forms.push_back(SyncCompressionName(c));
  for (const std::string& form : forms) {
    auto mode = ChooseSyncTransfer(conn_->device_banner(), form);
    ASSERT_TRUE(mode.ok()) << form << ": " << mode.status().message();
    EXPECT_EQ(mode->v2, form != "v1");
    for (size_t i = 0; i < sizes.size(); ++i) {
      SCOPED_TRACE(form + " " + std::to_string(sizes[i]));
      size_t sent = 0, received = 0;
      RoundTrip(*mode, files[i], (dir_.path() / (form + "-" + std::to_string(sizes[i]))).string(),
                &sent, &received);
      if (sizes[i] == (50u << 20) && mode->compression != SyncCompression::kNone) {
        // Half of every 4 KiB is one repeated phrase: well under 70 % on the wire both ways.
        EXPECT_LT(sent, sizes[i] * 7 / 10) << form;
        EXPECT_LT(received, sizes[i] * 7 / 10) << form;
      }
      if (sizes[i] == (50u << 20) && mode->compression == SyncCompression::kNone) {
        EXPECT_GT(sent, sizes[i]);
      }
    }
  }
}

TEST_F(SyncV2Test, AutoPicksTheBestCodecBothSidesHave) {
  Connect("shell_v2,stat_v2,ls_v2,sendrecv_v2,sendrecv_v2_brotli");
  auto mode = ChooseSyncTransfer(conn_->device_banner(), "auto");
  ASSERT_TRUE(mode.ok());
  EXPECT_TRUE(mode->v2);
  EXPECT_EQ(mode->compression, SyncCompressionBuilt(SyncCompression::kBrotli)
                                   ? SyncCompression::kBrotli
                                   : SyncCompression::kNone);
  // The device does not list zstd: asking for it is an error, not a silent fallback.
  auto zstd = ChooseSyncTransfer(conn_->device_banner(), "zstd");
  ASSERT_FALSE(zstd.ok());
  EXPECT_NE(zstd.status().message().find("sendrecv_v2_zstd"), std::string::npos);
  EXPECT_FALSE(ChooseSyncTransfer(conn_->device_banner(), "gzip").ok());
  // OpenSync follows the same choice.
  auto sync = OpenSync(*conn_, Soon(), {}, "auto");
  ASSERT_TRUE(sync.ok());
  EXPECT_EQ(sync->client->transfer_mode().compression, mode->compression);
}

TEST_F(SyncV2Test, DeviceWithoutSendRecvV2GetsV1) {
  Connect("shell_v2,stat_v2,ls_v2");
  auto mode = ChooseSyncTransfer(conn_->device_banner(), "auto");
  ASSERT_TRUE(mode.ok());
  EXPECT_FALSE(mode->v2);
  EXPECT_FALSE(ChooseSyncTransfer(conn_->device_banner(), "v2").ok());
  RoundTrip(*mode, MixedBytes(100000, 3), (dir_.path() / "v1only").string());
}

// delayed_ack (spec §7) against the double: windowed WRTEs both ways, byte-identical data.
TEST_F(SyncV2Test, DelayedAckWhenBothSidesWantIt) {
  Connect(AllFeatures() + ",delayed_ack", /*delayed_ack=*/true);
  EXPECT_TRUE(conn_->delayed_ack());
  auto r = RunShell(*conn_, "echo windowed", "", Soon());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->out, "windowed\n");
  const std::string in = MixedBytes(3u << 20, 21);
  auto cat = RunShell(*conn_, "cat", in, Soon());
  ASSERT_TRUE(cat.ok()) << cat.status().message();
  EXPECT_TRUE(cat->out == in);
  for (const char* form : {"v1", "v2"}) {
    auto mode = ChooseSyncTransfer(conn_->device_banner(), form);
    ASSERT_TRUE(mode.ok());
    RoundTrip(*mode, MixedBytes(20u << 20, 22),
              (dir_.path() / (std::string("da-") + form)).string());
  }
}

TEST_F(SyncV2Test, DelayedAckOnlyWhenWeAskForIt) {
  Connect(AllFeatures() + ",delayed_ack", /*delayed_ack=*/false);
  EXPECT_FALSE(conn_->delayed_ack());  // OPEN arg1 0: the double would refuse anything else
  RoundTrip(SyncTransferMode{}, MixedBytes(3u << 20, 23), (dir_.path() / "plain").string());
  EXPECT_FALSE(HostFeatures().count("delayed_ack"));
}

TEST_F(SyncV2Test, HostAdvertisesWhatItBuilt) {
  const auto& f = HostFeatures();
  EXPECT_TRUE(f.count("sendrecv_v2"));
  for (SyncCompression c :
       {SyncCompression::kBrotli, SyncCompression::kLz4, SyncCompression::kZstd}) {
    EXPECT_EQ(f.count(SyncCompressionFeature(c)) == 1, SyncCompressionBuilt(c))
        << SyncCompressionName(c);
  }
}

TEST(SyncCompressionTest, CodecsRoundTripAndRejectGarbage) {
  for (SyncCompression c : BuiltSyncCompressions()) {
    SCOPED_TRACE(SyncCompressionName(c));
    const std::string data = MixedBytes(300000, 9);
    auto enc = MakeSyncEncoder(c);
    ASSERT_TRUE(enc.ok());
    std::string packed;
    auto collect = [&](std::string_view b) {
      EXPECT_LE(b.size(), 65536u);
      packed.append(b);
      return Status::Ok();
    };
    ASSERT_TRUE((*enc)->Encode(data.substr(0, 100000), false, collect).ok());
    ASSERT_TRUE((*enc)->Encode(data.substr(100000), true, collect).ok());
    EXPECT_LT(packed.size(), data.size());
    // Fed back one odd-sized piece at a time, as DATA boundaries fall anywhere.
    auto dec = MakeSyncDecoder(c);
    ASSERT_TRUE(dec.ok());
    std::string out;
    for (size_t at = 0; at < packed.size(); at += 777) {
      Status s = (*dec)->Decode(std::string_view(packed).substr(at, 777), [&](std::string_view b) {
        out.append(b);
        return Status::Ok();
      });
      ASSERT_TRUE(s.ok()) << s.message();
    }
    EXPECT_TRUE((*dec)->Finish().ok());
    EXPECT_TRUE(out == data);
    // A truncated stream is reported at DONE; garbage is an error.
    auto cut = MakeSyncDecoder(c);
    (*cut)->Decode(std::string_view(packed).substr(0, packed.size() / 2),
                   [](std::string_view) { return Status::Ok(); });
    EXPECT_FALSE((*cut)->Finish().ok());
    auto bad = MakeSyncDecoder(c);
    Status garbage =
        (*bad)->Decode(std::string(5000, '\x7f'), [](std::string_view) { return Status::Ok(); });
    EXPECT_TRUE(!garbage.ok() || !(*bad)->Finish().ok());
  }
}

}  // namespace
}  // namespace fathom::adb
