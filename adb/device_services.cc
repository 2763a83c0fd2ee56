#include "adb/device_services.h"

namespace fathom::adb {

Result<ShellResult> RunShell(Connection& conn, const std::string& command,
                             std::string_view stdin_data, Deadline deadline,
                             const CancelToken& cancel) {
  const bool v2 = conn.device_banner().Has("shell_v2");
  if (!v2 && !stdin_data.empty()) {
    return ErrorStatus("adb: device has no shell_v2, so a command cannot be given stdin");
  }
  auto stream = conn.OpenStream(ShellServiceName(command, v2), deadline, cancel);
  if (!stream.ok()) return stream.status();
  if (v2) return RunShellV2(**stream, stdin_data, deadline, cancel);
  return ReadToEnd(**stream, deadline, cancel);
}

Result<SyncSession> OpenSync(Connection& conn, Deadline deadline, const CancelToken& cancel) {
  auto stream = conn.OpenStream("sync:", deadline, cancel);
  if (!stream.ok()) return stream.status();
  // Our banner always lists stat_v2/ls_v2, so the device's list decides.
  const Banner& b = conn.device_banner();
  SyncSession s;
  s.stream = std::move(*stream);
  s.client = std::make_unique<SyncClient>(*s.stream, b.Has("stat_v2"), b.Has("ls_v2"));
  return s;
}

}  // namespace fathom::adb
