// TargetShell over adb: a direct Connection (our own transport) or streams
// bound to the device by a running adb server.
#include <fstream>
#include <thread>
#include <vector>

#include "adb/device_connector.h"
#include "adb/device_services.h"
#include "adb/server_client.h"
#include "base/utf8_path.h"
#include "record/target_shell.h"

namespace fathom::record {
namespace {

Status PushFile(adb::SyncClient& sync, const std::string& local, const std::string& remote,
                uint32_t mode, Deadline d, const CancelToken& c) {
  std::ifstream in(PathFromUtf8(local), std::ios::binary);
  if (!in) return ErrorStatus(local + ": cannot read");
  // Streamed: a 1 GB file costs a few hundred KiB of memory, not 1 GB.
  return sync.PushFrom(
      [&](char* buf, size_t cap) -> Result<size_t> {
        in.read(buf, static_cast<std::streamsize>(cap));
        if (in.bad()) return ErrorStatus(local + ": read failed");
        return static_cast<size_t>(in.gcount());
      },
      remote, mode, 0, d, c);
}

Status PullFile(adb::SyncClient& sync, const std::string& remote, const std::string& local,
                const std::function<void(uint64_t)>& progress, Deadline d, const CancelToken& c) {
  std::ofstream out(PathFromUtf8(local), std::ios::binary | std::ios::trunc);
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
  Result<adb::ShellResult> Run(const std::string& command, std::string_view stdin_data, Deadline d,
                               const CancelToken& c) override {
    return adb::RunShell(*conn_, command, stdin_data, d, c);
  }
  Result<int> RunStreaming(const std::string& command, std::string_view stdin_data,
                           const std::function<void(std::string_view)>& on_stdout,
                           const std::function<void(std::string_view)>& on_stderr, Deadline d,
                           const CancelToken& c) override {
    const bool v2 = conn_->device_banner().Has("shell_v2");
    if (!v2 && !stdin_data.empty()) {
      return ErrorStatus("device has no shell v2: cannot send stdin");
    }
    auto stream = conn_->OpenStream(adb::ShellServiceName(command, v2), d, c);
    if (!stream.ok()) return stream.status();
    if (v2) return adb::RunShellV2Streaming(**stream, stdin_data, on_stdout, on_stderr, d, c);
    return adb::ReadToEndStreaming(**stream, on_stdout, d, c);
  }
  Result<adb::SyncStat> Stat(const std::string& remote, Deadline d, const CancelToken& c) override {
    auto sync = adb::OpenSync(*conn_, d, c);
    if (!sync.ok()) return sync.status();
    auto st = sync->client->Stat(remote, d, c);
    sync->client->Quit(d, c);
    return st;
  }
  Result<std::vector<adb::SyncDirEntry>> List(const std::string& remote, Deadline d,
                                              const CancelToken& c) override {
    auto sync = adb::OpenSync(*conn_, d, c);
    if (!sync.ok()) return sync.status();
    auto entries = sync->client->List(remote, d, c);
    sync->client->Quit(d, c);
    return entries;
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
  Result<adb::ShellResult> Run(const std::string& command, std::string_view stdin_data, Deadline d,
                               const CancelToken& c) override {
    const bool v2 = Has("shell_v2");
    auto stream = adb::ServerClient().OpenService(serial_, adb::ShellServiceName(command, v2));
    if (!stream.ok()) return stream.status();
    if (v2) return adb::RunShellV2(**stream, stdin_data, d, c);
    if (!stdin_data.empty()) return ErrorStatus("device has no shell v2: cannot send stdin");
    return adb::ReadToEnd(**stream, d, c);
  }
  Result<int> RunStreaming(const std::string& command, std::string_view stdin_data,
                           const std::function<void(std::string_view)>& on_stdout,
                           const std::function<void(std::string_view)>& on_stderr, Deadline d,
                           const CancelToken& c) override {
    const bool v2 = Has("shell_v2");
    if (!v2 && !stdin_data.empty()) {
      return ErrorStatus("device has no shell v2: cannot send stdin");
    }
    auto stream = adb::ServerClient().OpenService(serial_, adb::ShellServiceName(command, v2));
    if (!stream.ok()) return stream.status();
    if (v2) return adb::RunShellV2Streaming(**stream, stdin_data, on_stdout, on_stderr, d, c);
    return adb::ReadToEndStreaming(**stream, on_stdout, d, c);
  }
  Result<adb::SyncStat> Stat(const std::string& remote, Deadline d, const CancelToken& c) override {
    auto stream = OpenSyncStream();
    if (!stream.ok()) return stream.status();
    adb::SyncClient sync(**stream, Has("stat_v2"), Has("ls_v2"));
    auto st = sync.Stat(remote, d, c);
    sync.Quit(d, c);
    return st;
  }
  Result<std::vector<adb::SyncDirEntry>> List(const std::string& remote, Deadline d,
                                              const CancelToken& c) override {
    auto stream = OpenSyncStream();
    if (!stream.ok()) return stream.status();
    adb::SyncClient sync(**stream, Has("stat_v2"), Has("ls_v2"));
    auto entries = sync.List(remote, d, c);
    sync.Quit(d, c);
    return entries;
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

// The server's entry for `serial`: a target, an error for unusable states, or
// nullptr when the server is absent or does not list it (`*why` says which).
Result<std::unique_ptr<TargetShell>> FromServer(const std::string& serial, std::string* why) {
  adb::ServerClient server(adb::ServerAddress::FromEnvironment(), Millis(2000));
  auto devices = server.Devices();
  if (!devices.ok()) {
    if (why) *why = "no adb server (" + devices.status().message() + ")";
    return std::unique_ptr<TargetShell>();
  }
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
  if (why) *why = "the adb server does not list " + serial;
  return std::unique_ptr<TargetShell>();
}

std::string ServerName() {
  adb::ServerAddress a = adb::ServerAddress::FromEnvironment();
  return a.host + ":" + std::to_string(a.port);
}

}  // namespace

Result<std::unique_ptr<TargetShell>> OpenAdbTarget(const std::string& serial, AdbRoute route,
                                                   std::string* note, const CancelToken& cancel) {
  if (route == AdbRoute::kAuto) {
    auto via_server = FromServer(serial, nullptr);
    if (!via_server.ok() || *via_server) return via_server;
  }
  if (route == AdbRoute::kServer) {
    std::string why;
    auto via_server = FromServer(serial, &why);
    if (!via_server.ok() || *via_server) return via_server;
    if (!adb::IsTcpSerial(serial)) {
      return ErrorStatus(serial + ": not reachable through the adb server at " + ServerName() +
                         ": " + why);
    }
    // Like `adb connect`: the server then owns the TCP connection.
    adb::ServerClient server(adb::ServerAddress::FromEnvironment(), Millis(5000));
    auto connected = server.ConnectDevice(serial);
    // "failed to authenticate" only means the device has not accepted the
    // server's key yet; the server keeps the connection and retries.
    if (!connected.ok() && connected.status().message().find("authenticate") == std::string::npos) {
      return connected.status();
    }
    if (note) *note = "asked the adb server at " + ServerName() + " to connect " + serial;
    Status last = ErrorStatus(serial + ": the adb server did not bring it online");
    for (int i = 0; i < 300 && !cancel.cancelled(); ++i) {  // 30 s to tap "Allow"
      auto t = FromServer(serial, &why);
      if (t.ok() && *t) return t;
      if (!t.ok()) {
        last = t.status();
        if (last.message().find("unauthorized") == std::string::npos) return last;
      }
      std::this_thread::sleep_for(Millis(100));
    }
    return last;
  }
  const bool tcp = adb::IsTcpSerial(serial);
  if (route == AdbRoute::kTcp && !tcp) {
    return ErrorStatus("--transport tcp needs a HOST:PORT serial, not '" + serial + "'");
  }
  if (route == AdbRoute::kUsb && tcp) {
    return ErrorStatus("--transport usb needs a USB serial, not the address '" + serial + "'");
  }
  adb::ConnectionOptions options;
  auto conn = adb::ConnectDirect(serial, options, cancel);
  if (conn.ok()) return std::unique_ptr<TargetShell>(new DirectTarget(serial, *conn));
  const std::string& msg = conn.status().message();
  if (route == AdbRoute::kAuto && !tcp && msg.find("BUSY") != std::string::npos) {
    // Another program (usually an adb server, maybe one just starting) holds the
    // interface: ask the server again instead of fighting it.
    std::string why;
    auto via_server = FromServer(serial, &why);
    if (!via_server.ok()) return via_server;
    if (*via_server) {
      if (note) {
        *note = "the USB interface of " + serial +
                " is held by another program; using the adb server at " + ServerName();
      }
      return via_server;
    }
    return ErrorStatus(msg + "; " + why);
  }
  return conn.status();
}

Result<std::unique_ptr<TargetShell>> OpenAdbTarget(const std::string& serial,
                                                   const CancelToken& cancel) {
  return OpenAdbTarget(serial, AdbRoute::kAuto, nullptr, cancel);
}

}  // namespace fathom::record
