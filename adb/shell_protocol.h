// Shell services (spec §8, §9): service names, shell v2 framing (id u8 + length u32 LE +
// data, independent of WRTE boundaries) and running a command to completion.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "adb/byte_stream.h"
#include "adb/cancel.h"
#include "base/status.h"

namespace fathom::adb {

enum class ShellId : uint8_t {
  kStdin = 0,
  kStdout = 1,
  kStderr = 2,
  kExit = 3,
  kCloseStdin = 4,
  kWindowSize = 5,
  kInvalid = 255,
};

struct ShellPacket {
  ShellId id = ShellId::kInvalid;
  std::string data;
};

std::string EncodeShellPacket(ShellId id, std::string_view data);

// Largest shell v2 stdout/stderr frame accepted from a device: adbd's frames are at most its
// buffer (tens of KiB), so one claiming 4 GiB is a protocol error. Frames within the limit
// are still streamed out piece by piece, never buffered whole.
inline constexpr uint32_t kMaxShellDataFrame = 16u << 20;
// Exit and other control frames carry a few bytes.
inline constexpr uint32_t kMaxShellControlFrame = 256;

// Host side: reads device frames from arbitrary byte chunks, handing stdout/stderr data out
// in the pieces it arrives in (memory stays at one WRTE whatever a frame claims). Unknown
// ids are skipped; reading stops at the exit frame.
class ShellFrameReader {
 public:
  using DataSink = std::function<void(ShellId id, std::string_view piece)>;
  // Consumes `bytes`; an error for a frame above its limit.
  Status Feed(std::string_view bytes, const DataSink& on_data);
  // Set once the exit frame was read: its code, or -1 for an empty one.
  std::optional<int> exit_code() const { return exit_code_; }

 private:
  char header_[5] = {};
  size_t header_len_ = 0;
  ShellId id_ = ShellId::kInvalid;
  uint32_t left_ = 0;  // bytes of the current frame's body still to come
  bool in_body_ = false;
  std::string control_;  // an exit frame's body
  std::optional<int> exit_code_;
};

// Reassembles whole packets from arbitrary byte chunks (the device side and tests; the host
// uses ShellFrameReader). Frames over `max_frame` bytes make Next() fail.
class ShellDecoder {
 public:
  explicit ShellDecoder(uint32_t max_frame = kMaxShellDataFrame) : max_frame_(max_frame) {}
  void Feed(std::string_view bytes) { buffer_.append(bytes); }
  // The next whole packet; nullopt when more bytes are needed or after a frame over the
  // limit (then failed() is true and nothing more comes out).
  std::optional<ShellPacket> Next();
  bool failed() const { return failed_; }
  size_t buffered() const { return buffer_.size(); }

 private:
  uint32_t max_frame_;
  bool failed_ = false;
  std::string buffer_;
  size_t pos_ = 0;
};

// "shell,v2,raw:<cmd>" when the device has shell_v2, else the legacy "shell:<cmd>" (no exit
// code, stdout and stderr merged, stdin cannot be closed).
std::string ShellServiceName(std::string_view command, bool shell_v2);
// "exec:<cmd>": binary-safe raw pipe, stderr merged, no exit code.
std::string ExecServiceName(std::string_view command);

struct ShellResult {
  std::string out;
  std::string err;
  int exit_code = -1;  // -1: unknown (legacy shell or exec)
};

// Runs a shell v2 command on an opened stream: sends stdin_data then close-stdin, collects
// stdout/stderr until the exit packet. Error if the stream ends without one.
Result<ShellResult> RunShellV2(ByteStream& stream, std::string_view stdin_data, Deadline deadline,
                               const CancelToken& cancel);
// The same, handing output to the sinks as it arrives; returns the exit code.
Result<int> RunShellV2Streaming(ByteStream& stream, std::string_view stdin_data,
                                const std::function<void(std::string_view)>& on_stdout,
                                const std::function<void(std::string_view)>& on_stderr,
                                Deadline deadline, const CancelToken& cancel);
// Legacy shell:/exec: streamed to `on_output` until the device closes; returns -1 (unknown).
Result<int> ReadToEndStreaming(ByteStream& stream,
                               const std::function<void(std::string_view)>& on_output,
                               Deadline deadline, const CancelToken& cancel);
// Legacy shell:/exec: everything until the device closes the stream goes to `out`.
Result<ShellResult> ReadToEnd(ByteStream& stream, Deadline deadline, const CancelToken& cancel);

}  // namespace fathom::adb
