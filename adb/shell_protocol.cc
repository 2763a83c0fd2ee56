#include "adb/shell_protocol.h"

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
  if (buffer_.size() - pos_ < 5) return std::nullopt;
  uint32_t len = GetU32(buffer_, pos_ + 1);
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
  ShellDecoder decoder;
  std::string chunk;
  while (true) {
    while (auto p = decoder.Next()) {
      switch (p->id) {
        case ShellId::kStdout:
          on_stdout(p->data);
          break;
        case ShellId::kStderr:
          on_stderr(p->data);
          break;
        case ShellId::kExit:
          return p->data.empty() ? -1 : static_cast<int>(static_cast<uint8_t>(p->data[0]));
        default:
          break;  // host-bound ids only; ignore anything else
      }
    }
    chunk.clear();
    auto n = stream.Read(&chunk, deadline, cancel);
    if (!n.ok()) return n.status();
    if (*n == 0) {
      if (!write_error.ok()) return write_error;
      return ErrorStatus("adb shell: stream ended without an exit status");
    }
    decoder.Feed(chunk);
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
