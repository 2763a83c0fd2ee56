// Service helpers on a direct Connection that pick the protocol variant from the device's
// features: shell v2 with fallback to legacy shell:, sync with stat_v2/ls_v2 when advertised.
#pragma once

#include <memory>
#include <string>

#include "adb/connection.h"
#include "adb/shell_protocol.h"
#include "adb/sync_protocol.h"

namespace fathom::adb {

// Runs `command` to completion. With shell_v2: separate stdout/stderr and the exit code.
// Without it: legacy "shell:" — output merged into `out`, exit_code -1, and stdin_data must
// be empty (the legacy service cannot signal end of input, so the command would never end).
Result<ShellResult> RunShell(Connection& conn, const std::string& command,
                             std::string_view stdin_data, Deadline deadline,
                             const CancelToken& cancel = {});

// Picks the SEND/RECV form for a device. `preference`: "auto" (v2 with the best codec both
// sides have — zstd, lz4, brotli — else v2 uncompressed, else v1), "v1", "v2" (uncompressed),
// or a codec name ("zstd", …: an error if the device or this build lacks it). Empty means
// $FATHOM_ADB_SYNC, else "auto".
Result<SyncTransferMode> ChooseSyncTransfer(const Banner& device, std::string_view preference);

// An open "sync:" stream and the client bound to it (the client refers to the stream).
struct SyncSession {
  std::unique_ptr<AdbStream> stream;
  std::unique_ptr<SyncClient> client;
};
Result<SyncSession> OpenSync(Connection& conn, Deadline deadline, const CancelToken& cancel = {},
                             std::string_view preference = {});

}  // namespace fathom::adb
