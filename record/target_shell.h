// A place to record on, reached one of three ways: an Android/Linux device
// over adb (direct TCP or USB, or through a running adb server), or this
// computer. The recording session only needs these four verbs, so it runs
// the same steps on all of them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "adb/cancel.h"
#include "adb/shell_protocol.h"
#include "adb/sync_protocol.h"
#include "base/status.h"

namespace fathom::record {

using adb::CancelToken;
using adb::Deadline;
using adb::Millis;

class TargetShell {
 public:
  virtual ~TargetShell() = default;
  // "127.0.0.1:5555 (adb)", "this computer".
  virtual std::string Describe() const = 0;
  // Runs `command` with /bin/sh (or the device's shell) to completion.
  virtual Result<adb::ShellResult> Run(const std::string& command, std::string_view stdin_data,
                                       Deadline deadline, const CancelToken& cancel) = 0;
  virtual Status Push(const std::string& local_path, const std::string& remote_path, uint32_t mode,
                      Deadline deadline, const CancelToken& cancel) = 0;
  // Streams the file into `local_path` (created or truncated); `progress`
  // gets the bytes received so far.
  virtual Status Pull(const std::string& remote_path, const std::string& local_path,
                      const std::function<void(uint64_t)>& progress, Deadline deadline,
                      const CancelToken& cancel) = 0;
  // Runs `command` and hands output to the sinks as it arrives (for `fathom-cli
  // shell` on long-running commands). The default buffers through Run().
  virtual Result<int> RunStreaming(const std::string& command, std::string_view stdin_data,
                                   const std::function<void(std::string_view)>& on_stdout,
                                   const std::function<void(std::string_view)>& on_stderr,
                                   Deadline deadline, const CancelToken& cancel) {
    auto r = Run(command, stdin_data, deadline, cancel);
    if (!r.ok()) return r.status();
    on_stdout(r->out);
    on_stderr(r->err);
    return r->exit_code;
  }
  // stat() of a path on the target (push/pull use it to tell directories apart).
  virtual Result<adb::SyncStat> Stat(const std::string& remote_path, Deadline deadline,
                                     const CancelToken& cancel) {
    (void)remote_path, (void)deadline, (void)cancel;
    return ErrorStatus("stat is not supported on " + Describe());
  }
  // Entries of a directory on the target ("." and ".." included as the device sends them),
  // for recursive `fathom-cli pull`.
  virtual Result<std::vector<adb::SyncDirEntry>> List(const std::string& remote_dir,
                                                      Deadline deadline,
                                                      const CancelToken& cancel) {
    (void)remote_dir, (void)deadline, (void)cancel;
    return ErrorStatus("listing directories is not supported on " + Describe());
  }
};

// Opens an adb target. `serial` "HOST:PORT" connects directly over TCP unless
// a running adb server already lists that serial; other serials go through
// the adb server when it has them, else straight to USB.
Result<std::unique_ptr<TargetShell>> OpenAdbTarget(const std::string& serial,
                                                   const CancelToken& cancel);
// How to reach an adb target (`fathom-cli --transport`).
enum class AdbRoute { kAuto, kUsb, kTcp, kServer };
// Same as above with the route forced: kUsb/kTcp always connect directly,
// kServer always goes through the adb server (asking it to connect a
// "HOST:PORT" it does not have yet). kAuto falls back to the server when the
// USB interface is held by another program. `*note`, when given, receives a
// sentence for the user whenever the route differs from what they might expect.
Result<std::unique_ptr<TargetShell>> OpenAdbTarget(const std::string& serial, AdbRoute route,
                                                   std::string* note, const CancelToken& cancel);
// This computer (Linux only; elsewhere an error saying so).
Result<std::unique_ptr<TargetShell>> OpenLocalTarget();

}  // namespace fathom::record
