#include "adb/device_services.h"

#include <cstdlib>

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

Result<SyncTransferMode> ChooseSyncTransfer(const Banner& device, std::string_view preference) {
  std::string pref(preference);
  if (pref.empty()) {
    const char* env = std::getenv("FATHOM_ADB_SYNC");
    pref = env && *env ? env : "auto";
  }
  SyncTransferMode mode;
  if (pref == "v1") return mode;
  const bool v2 = device.Has("sendrecv_v2");
  if (pref == "auto") {
    mode.v2 = v2;
    if (!v2) return mode;
    for (SyncCompression c : BuiltSyncCompressions()) {
      if (device.Has(SyncCompressionFeature(c))) {
        mode.compression = c;
        break;
      }
    }
    return mode;
  }
  auto codec = pref == "v2" ? std::optional<SyncCompression>(SyncCompression::kNone)
                            : ParseSyncCompression(pref);
  if (!codec) {
    return ErrorStatus("adb sync: unknown transfer form '" + pref +
                       "' (use auto, v1, v2, zstd, lz4, brotli or none)");
  }
  if (!v2) return ErrorStatus("adb sync: the device does not support sendrecv_v2 (" + pref + ")");
  if (!SyncCompressionBuilt(*codec)) {
    return ErrorStatus(std::string("adb sync: this build has no ") + SyncCompressionName(*codec));
  }
  if (*codec != SyncCompression::kNone && !device.Has(SyncCompressionFeature(*codec))) {
    return ErrorStatus("adb sync: the device does not list " + SyncCompressionFeature(*codec));
  }
  mode.v2 = true;
  mode.compression = *codec;
  return mode;
}

Result<SyncSession> OpenSync(Connection& conn, Deadline deadline, const CancelToken& cancel,
                             std::string_view preference) {
  auto transfer = ChooseSyncTransfer(conn.device_banner(), preference);
  if (!transfer.ok()) return transfer.status();
  auto stream = conn.OpenStream("sync:", deadline, cancel);
  if (!stream.ok()) return stream.status();
  // Our banner always lists stat_v2/ls_v2, so the device's list decides.
  const Banner& b = conn.device_banner();
  SyncSession s;
  s.stream = std::move(*stream);
  s.client = std::make_unique<SyncClient>(*s.stream, b.Has("stat_v2"), b.Has("ls_v2"), *transfer);
  return s;
}

}  // namespace fathom::adb
