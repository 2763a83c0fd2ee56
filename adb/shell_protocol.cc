#include "adb/shell_protocol.h"

#include <algorithm>

#include "adb/message.h"

namespace fathom::adb {

std::string EncodeShellPacket(ShellId id, std::string_view data) {
  std::string out;
  out.reserve(5 + data.size());
  out.push_back(static_cast<char>(id));
  PutU32(out, static_cast<uint32_t>(data.size()));
  out.append(data);
  return out;
}

std::optional<ShellPacket> ShellDecoder::Next() {
  if (failed_ || buffer_.size() - pos_ < 5) return std::nullopt;
  uint32_t len = GetU32(buffer_, pos_ + 1);
  if (len > max_frame_) {
    failed_ = true;
    return std::nullopt;
  }
  if (buffer_.size() - pos_ - 5 < len) return std::nullopt;
  ShellPacket p{static_cast<ShellId>(static_cast<uint8_t>(buffer_[pos_])),
                buffer_.substr(pos_ + 5, len)};
  pos_ += 5 + len;
  // Compact occasionally instead of erasing per packet (keeps Next() O(packet)).
  if (pos_ > 64 * 1024 || pos_ == buffer_.size()) {
    buffer_.erase(0, pos_);
    pos_ = 0;
  }
  return p;
}

Status ShellFrameReader::Feed(std::string_view bytes, const DataSink& on_data) {
  while (!bytes.empty() && !exit_code_) {
    if (!in_body_) {
      const size_t take = std::min(bytes.size(), sizeof(header_) - header_len_);
      bytes.copy(header_ + header_len_, take);
      header_len_ += take;
      bytes.remove_prefix(take);
      if (header_len_ < sizeof(header_)) break;
      header_len_ = 0;
      id_ = static_cast<ShellId>(static_cast<uint8_t>(header_[0]));
      left_ = GetU32(std::string_view(header_, sizeof(header_)), 1);
      const bool data = id_ == ShellId::kStdout || id_ == ShellId::kStderr;
      const uint32_t limit = data ? kMaxShellDataFrame : kMaxShellControlFrame;
      if (left_ > limit) {
        return ErrorStatus("adb shell: device sent a shell v2 frame (id " +
                           std::to_string(static_cast<int>(id_)) + ") of " + std::to_string(left_) +
                           " bytes; the limit is " + std::to_string(limit) + " (a protocol error)");
      }
      in_body_ = true;
      control_.clear();
    }
    const size_t n = std::min<size_t>(left_, bytes.size());
    if (id_ == ShellId::kStdout || id_ == ShellId::kStderr) {
      if (n > 0) on_data(id_, bytes.substr(0, n));
    } else if (id_ == ShellId::kExit) {
      control_.append(bytes.substr(0, n));
    }  // other ids: host-bound ones only; skipped
    bytes.remove_prefix(n);
    left_ -= static_cast<uint32_t>(n);
    if (left_ > 0) break;
    in_body_ = false;
    if (id_ == ShellId::kExit) {
      exit_code_ = control_.empty() ? -1 : static_cast<int>(static_cast<uint8_t>(control_[0]));
    }
  }
  return Status::Ok();
}

std::string ShellServiceName(std::string_view command, bool shell_v2) {
  return (shell_v2 ? "shell,v2,raw:" : "shell:") + std::string(command);
}

std::string ExecServiceName(std::string_view command) { return "exec:" + std::string(command); }

Result<ShellResult> RunShellV2(ByteStream& stream, std::string_view stdin_data, Deadline deadline,
                               const CancelToken& cancel) {
  ShellResult result;
  auto code = RunShellV2Streaming(
      stream, stdin_data, [&](std::string_view b) { result.out.append(b); },
      [&](std::string_view b) { result.err.append(b); }, deadline, cancel);
  if (!code.ok()) return code.status();
  result.exit_code = *code;
  return result;
}

Result<int> RunShellV2Streaming(ByteStream& stream, std::string_view stdin_data,
                                const std::function<void(std::string_view)>& on_stdout,
                                const std::function<void(std::string_view)>& on_stderr,
                                Deadline deadline, const CancelToken& cancel) {
  // Stdin in frames well below any max payload; then close-stdin so commands reading stdin
  // (cat, sh -c 'read x') finish.
  constexpr size_t kStdinChunk = 64 * 1024;
  // A command may exit without reading its stdin; the device then closes the stream and our
  // writes fail. Keep that error, but still collect the output and exit status.
  Status write_error;
  for (size_t at = 0; write_error.ok() && at < stdin_data.size(); at += kStdinChunk) {
    write_error = stream.Write(
        EncodeShellPacket(ShellId::kStdin, stdin_data.substr(at, kStdinChunk)), deadline, cancel);
  }
  if (write_error.ok()) {
    write_error = stream.Write(EncodeShellPacket(ShellId::kCloseStdin, {}), deadline, cancel);
  }
  ShellFrameReader reader;
  auto on_data = [&](ShellId id, std::string_view piece) {
    (id == ShellId::kStdout ? on_stdout : on_stderr)(piece);
  };
  std::string chunk;
  while (true) {
    chunk.clear();
    auto n = stream.Read(&chunk, deadline, cancel);
    if (!n.ok()) return n.status();
    if (*n == 0) {
      if (!write_error.ok()) return write_error;
      return ErrorStatus("adb shell: stream ended without an exit status");
    }
    if (Status s = reader.Feed(chunk, on_data); !s.ok()) return s;
    if (reader.exit_code()) return *reader.exit_code();
  }
}

Result<int> ReadToEndStreaming(ByteStream& stream,
                               const std::function<void(std::string_view)>& on_output,
                               Deadline deadline, const CancelToken& cancel) {
  std::string chunk;
  while (true) {
    chunk.clear();
    auto n = stream.Read(&chunk, deadline, cancel);
    if (!n.ok()) return n.status();
    if (*n == 0) return -1;
    on_output(chunk);
  }
}

Result<ShellResult> ReadToEnd(ByteStream& stream, Deadline deadline, const CancelToken& cancel) {
  ShellResult result;
  while (true) {
    auto n = stream.Read(&result.out, deadline, cancel);
    if (!n.ok()) return n.status();
    if (*n == 0) return result;
  }
}

}  // namespace fathom::adb
