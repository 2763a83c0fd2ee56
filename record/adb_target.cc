// TargetShell over adb: a direct Connection (our own transport) or streams
// bound to the device by a running adb server.
#include <fstream>
#include <vector>

#include "adb/device_connector.h"
#include "adb/device_services.h"
#include "adb/server_client.h"
#include "record/target_shell.h"

namespace fathom::record {
namespace {

Status PushFile(adb::SyncClient& sync, const std::string& local, const std::string& remote,
                uint32_t mode, Deadline d, const CancelToken& c) {
  std::ifstream in(local, std::ios::binary);
  if (!in) return ErrorStatus(local + ": cannot read");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return sync.Push(data, remote, mode, 0, d, c);
}

Status PullFile(adb::SyncClient& sync, const std::string& remote, const std::string& local,
                const std::function<void(uint64_t)>& progress, Deadline d, const CancelToken& c) {
  std::ofstream out(local, std::ios::binary | std::ios::trunc);
  if (!out) return ErrorStatus(local + ": cannot write");
  uint64_t got = 0;
  Status st = sync.Pull(
      remote,
      [&](std::string_view chunk) -> Status {
        out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        if (!out) return ErrorStatus(local + ": write failed (disk full?)");
        got += chunk.size();
        if (progress) progress(got);
        return Status::Ok();
      },
      d, c);
  out.close();
  if (st.ok() && !out) return ErrorStatus(local + ": write failed");
  return st;
}

class DirectTarget : public TargetShell {
 public:
  DirectTarget(std::string serial, std::shared_ptr<adb::Connection> conn)
      : serial_(std::move(serial)), conn_(std::move(conn)) {}
  std::string Describe() const override { return serial_ + " (adb, direct)"; }
  Result<adb::ShellResult> Run(const std::string& command, std::string_view stdin_data,
                               Deadline d, const CancelToken& c) override {
    return adb::RunShell(*conn_, command, stdin_data, d, c);
  }
  Status Push(const std::string& local, const std::string& remote, uint32_t mode, Deadline d,
              const CancelToken& c) override {
    auto sync = adb::OpenSync(*conn_, d, c);
    if (!sync.ok()) return sync.status();
    Status st = PushFile(*sync->client, local, remote, mode, d, c);
    sync->client->Quit(d, c);
    return st;
  }
  Status Pull(const std::string& remote, const std::string& local,
              const std::function<void(uint64_t)>& progress, Deadline d,
              const CancelToken& c) override {
    auto sync = adb::OpenSync(*conn_, d, c);
    if (!sync.ok()) return sync.status();
    Status st = PullFile(*sync->client, remote, local, progress, d, c);
    sync->client->Quit(d, c);
    return st;
  }

 private:
  std::string serial_;
  std::shared_ptr<adb::Connection> conn_;
};

class ServerTarget : public TargetShell {
 public:
  ServerTarget(std::string serial, std::string features)
      : serial_(std::move(serial)), features_(std::move(features)) {}
  std::string Describe() const override { return serial_ + " (adb server)"; }
  bool Has(std::string_view f) const {
    // Features arrive as a comma list.
    size_t at = 0;
    while (at <= features_.size()) {
      size_t end = features_.find(',', at);
      if (end == std::string::npos) end = features_.size();
      if (std::string_view(features_).substr(at, end - at) == f) return true;
      at = end + 1;
    }
    return false;
  }
  Result<adb::ShellResult> Run(const std::string& command, std::string_view stdin_data,
                               Deadline d, const CancelToken& c) override {
    const bool v2 = Has("shell_v2");
    auto stream = adb::ServerClient().OpenService(serial_, adb::ShellServiceName(command, v2));
    if (!stream.ok()) return stream.status();
    if (v2) return adb::RunShellV2(**stream, stdin_data, d, c);
    if (!stdin_data.empty()) return ErrorStatus("device has no shell v2: cannot send stdin");
    return adb::ReadToEnd(**stream, d, c);
  }
  Result<std::unique_ptr<adb::ServerStream>> OpenSyncStream() {
    return adb::ServerClient().OpenService(serial_, "sync:");
  }
  Status Push(const std::string& local, const std::string& remote, uint32_t mode, Deadline d,
              const CancelToken& c) override {
    auto stream = OpenSyncStream();
    if (!stream.ok()) return stream.status();
    adb::SyncClient sync(**stream, Has("stat_v2"), Has("ls_v2"));
    Status st = PushFile(sync, local, remote, mode, d, c);
    sync.Quit(d, c);
    return st;
  }
  Status Pull(const std::string& remote, const std::string& local,
              const std::function<void(uint64_t)>& progress, Deadline d,
              const CancelToken& c) override {
    auto stream = OpenSyncStream();
    if (!stream.ok()) return stream.status();
    adb::SyncClient sync(**stream, Has("stat_v2"), Has("ls_v2"));
    Status st = PullFile(sync, remote, local, progress, d, c);
    sync.Quit(d, c);
    return st;
  }

 private:
  std::string serial_;
  std::string features_;
};

}  // namespace

Result<std::unique_ptr<TargetShell>> OpenAdbTarget(const std::string& serial,
                                                   const CancelToken& cancel) {
  // A server that already holds the device owns its USB interface: go through it.
  adb::ServerClient server(adb::ServerAddress::FromEnvironment(), Millis(2000));
  if (auto devices = server.Devices(); devices.ok()) {
    for (const adb::DeviceEntry& d : *devices) {
      if (d.serial != serial) continue;
      if (d.state == "unauthorized") {
        return ErrorStatus(serial +
                           ": unauthorized — unlock the device and accept the \"Allow USB "
                           "debugging\" prompt, then try again");
      }
      if (d.state != "device") return ErrorStatus(serial + ": device is " + d.state);
      auto features = server.Features(serial);
      return std::unique_ptr<TargetShell>(
          new ServerTarget(serial, features.ok() ? *features : std::string()));
    }
  }
  adb::ConnectionOptions options;
  auto conn = adb::ConnectDirect(serial, options, cancel);
  if (!conn.ok()) return conn.status();
  return std::unique_ptr<TargetShell>(new DirectTarget(serial, *conn));
}

}  // namespace fathom::record
