// Writes seed inputs for the adb fuzz targets from real exchanges: the
// client session of adb_client_session.h runs against tests/adb's FakeDevice
// (the in-process adbd double) in several configurations, and what the
// device sent is saved in each target's input format. Sync v2 transfers,
// which FakeDevice does not speak, are encoded here with the library's own
// codecs.
//
//   fathom_fuzz_adb_seeds OUTDIR  ->  OUTDIR/{adb_client,adb_message,adb_sync}/
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "adb/auth_key.h"
#include "adb/connection.h"
#include "adb/shell_protocol.h"
#include "adb/sync_compression.h"
#include "adb/sync_protocol.h"
#include "adb_client_session.h"
#include "fake_device.h"

namespace {

using namespace fathom::adb;
using fathom::Result;
using fathom::Status;
namespace fs = std::filesystem;

// Everything one run saw: device messages, each with the number of host
// messages other than OKAY the device received since its previous one (the
// client target's gate: what the device was answering).
struct Capture {
  std::mutex mu;
  std::atomic<uint32_t> host_messages_since_send{0};
  std::string gated;                  // adb_client input
  std::vector<std::string> messages;  // both directions, encoded
  std::string sync_bytes;             // what the sync client read
};

// The device's end of the pipe, logging what the device sends.
class DeviceTap : public Transport {
 public:
  DeviceTap(std::unique_ptr<Transport> inner, Capture* cap) : inner_(std::move(inner)), cap_(cap) {}
  Status Send(const Message& m, uint32_t version, Deadline d, const CancelToken& c) override {
    std::string wire = EncodeMessage(m, version);
    {
      std::lock_guard<std::mutex> l(cap_->mu);
      cap_->gated.push_back(
          static_cast<char>(std::min<uint32_t>(cap_->host_messages_since_send, 255)));
      cap_->host_messages_since_send = 0;
      cap_->gated += wire;
      cap_->messages.push_back(wire);
    }
    return inner_->Send(m, version, d, c);
  }
  Result<Message> Receive(uint32_t max_payload, Deadline d, const CancelToken& c) override {
    auto m = inner_->Receive(max_payload, d, c);
    if (m.ok()) {
      if (m->command != kCmdOkay) ++cap_->host_messages_since_send;
      std::lock_guard<std::mutex> l(cap_->mu);
      cap_->messages.push_back(EncodeMessage(*m, kVersion));
    }
    return m;
  }
  void Close() override { inner_->Close(); }
  std::string Describe() const override { return inner_->Describe(); }

 private:
  std::unique_ptr<Transport> inner_;
  Capture* cap_;
};

void Write(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// One session against a FakeDevice with `options`; returns what it saw.
std::unique_ptr<Capture> Record(testing::FakeDeviceOptions options, const AuthKey& key) {
  auto cap = std::make_unique<Capture>();
  auto [host, device] = testing::MakePipe();
  testing::FakeDevice dev(std::make_unique<DeviceTap>(std::move(device), cap.get()),
                          std::move(options));
  std::string text;
  for (int i = 0; i < 120; ++i) text += "line " + std::to_string(i) + " of the pulled file\n";
  dev.PutFile(fathom::fuzz::kSessionFile, {text, 0100644, 1700000000});
  dev.PutFile(std::string(fathom::fuzz::kSessionDir) + "/trace.pftrace", {"x", 0100600, 0});
  ConnectionOptions co;
  co.keys = {key};
  co.user_info = "seed@host";
  auto conn = Connection::Open(std::move(host), std::move(co));
  if (!conn.ok()) {
    fprintf(stderr, "adb_seeds: %s\n", conn.status().message().c_str());
    return cap;
  }
  fathom::fuzz::RunSession(**conn, UINT64_MAX, [&](std::string_view bytes) {
    std::lock_guard<std::mutex> l(cap->mu);
    cap->sync_bytes += bytes;
  });
  (*conn)->Close();
  dev.Stop();
  return cap;
}

// adb_sync input: [flags][piece][4 ops][device bytes].
std::string SyncSeed(uint8_t flags, uint8_t piece, std::string ops, const std::string& bytes) {
  std::string s;
  s.push_back(static_cast<char>(flags));
  s.push_back(static_cast<char>(piece));
  ops.resize(4, '\0');
  return s + ops + bytes;
}

// A RCV2 reply: `content` compressed with `codec` in DATA records, then DONE.
std::string CompressedPull(SyncCompression codec, const std::string& content) {
  auto enc = MakeSyncEncoder(codec);
  if (!enc.ok()) return {};
  std::string out;
  (void)(*enc)->Encode(content, true, [&](std::string_view piece) {
    out += EncodeSyncRequest(kSyncData, piece);
    return Status::Ok();
  });
  return out + EncodeSyncRequest(kSyncDone, {});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    return 2;
  }
  const fs::path out = argv[1];
  for (const char* t : {"adb_client", "adb_message", "adb_sync"}) fs::create_directories(out / t);
  auto key = AuthKey::Generate();
  if (!key.ok()) return 1;
  auto pub = AuthPublicKey::FromAndroidText(*key->AndroidPublicKeyText("seed@host"));

  struct Variant {
    const char* name;
    testing::FakeDeviceOptions options;
  };
  std::vector<Variant> variants;
  variants.push_back({"default", {}});
  {
    testing::FakeDeviceOptions o;  // an old device: legacy shell, sync v1, checksums
    o.banner = "device::ro.product.name=old;ro.product.model=Old;features=cmd;";
    o.version = kVersionMin;
    o.max_payload = kMaxPayloadV1;
    variants.push_back({"legacy", o});
  }
  {
    testing::FakeDeviceOptions o;  // AUTH: our signature accepted
    o.require_auth = true;
    if (pub.ok()) o.trusted = {*pub};
    variants.push_back({"auth_signature", o});
  }
  {
    testing::FakeDeviceOptions o;  // AUTH: signature rejected, public key accepted
    o.require_auth = true;
    o.accept_public_key = true;
    variants.push_back({"auth_public_key", o});
  }
  {
    testing::FakeDeviceOptions o;  // output split into small WRTEs
    o.max_wrte = 100;
    variants.push_back({"small_wrte", o});
  }

  int n = 0;
  for (auto& v : variants) {
    auto cap = Record(v.options, *key);
    Write(out / "adb_client" / (std::string(v.name) + ".bin"), cap->gated);
    std::string all;
    for (size_t i = 0; i < cap->messages.size(); ++i) {
      all += cap->messages[i];
      Write(out / "adb_message" / (std::string(v.name) + "_" + std::to_string(i) + ".bin"),
            cap->messages[i]);
    }
    Write(out / "adb_message" / (std::string(v.name) + "_all.bin"), all);
    // The session's sync ops: stat, list, pull, push.
    const bool v2stat = v.options.banner.find("stat_v2") != std::string::npos;
    const bool v2ls = v.options.banner.find("ls_v2") != std::string::npos;
    const uint8_t flags = (v2stat ? 1 : 0) | (v2ls ? 2 : 0);
    Write(out / "adb_sync" / (std::string(v.name) + ".bin"),
          SyncSeed(flags, 0, std::string("\x00\x02\x03\x04", 4), cap->sync_bytes));
    Write(out / "adb_sync" / (std::string(v.name) + "_pieces.bin"),
          SyncSeed(flags, 7, std::string("\x00\x02\x03\x04", 4), cap->sync_bytes));
    ++n;
  }

  // Sync v2 pulls, one per codec built in.
  std::string content;
  for (int i = 0; i < 2000; ++i) content += "compressible trace bytes " + std::to_string(i % 7);
  for (SyncCompression c : {SyncCompression::kNone, SyncCompression::kBrotli, SyncCompression::kLz4,
                            SyncCompression::kZstd}) {
    if (!SyncCompressionBuilt(c)) continue;
    uint8_t codec = c == SyncCompression::kNone     ? 0
                    : c == SyncCompression::kBrotli ? 1
                    : c == SyncCompression::kLz4    ? 2
                                                    : 3;
    Write(out / "adb_sync" / (std::string("rcv2_") + SyncCompressionName(c) + ".bin"),
          SyncSeed(4 | (codec << 3), 0, std::string("\x03", 1), CompressedPull(c, content)));
  }
  // A directory walk: "/r" holds a file, a subdirectory and hostile names.
  auto dent = [](uint32_t mode, const std::string& name) {
    std::string r;
    PutU32(r, kSyncDent);
    PutU32(r, mode);
    PutU32(r, 4);
    PutU32(r, 0);
    PutU32(r, static_cast<uint32_t>(name.size()));
    return r + name;
  };
  std::string done(20, '\0');
  done.replace(0, 4, "DONE");
  std::string walk = dent(040755, ".") + dent(040755, "..") + dent(0100644, "a") +
                     dent(040755, "sub") + dent(0100644, std::string("..\0", 3)) +
                     dent(0100644, "") + done + dent(0100644, "b") + done;
  Write(out / "adb_sync" / "walk.bin", SyncSeed(0, 0, std::string("\x05", 1), walk));

  // Shell v2 frames and an adb server device list, for adb_message.
  Write(out / "adb_message" / "shell_frames.bin",
        EncodeShellPacket(ShellId::kStdout, "hi\n") + EncodeShellPacket(ShellId::kStderr, "e") +
            EncodeShellPacket(ShellId::kExit, std::string(1, '\0')));
  Write(out / "adb_message" / "devices_l.txt",
        "emulator-5554          device product:sdk model:Pixel device:emu transport_id:1\n"
        "0123456789ABCDEF       unauthorized usb:1-2 transport_id:2\n");
  printf("adb_seeds: %d recorded sessions in %s\n", n, out.c_str());
  return 0;
}
