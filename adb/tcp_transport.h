// adb messages over a TCP byte stream: adbd in `adb tcpip` mode, emulators (spec §12).
#pragma once

#include <mutex>
#include <string>

#include "adb/platform_socket.h"
#include "adb/transport.h"

namespace fathom::adb {

inline constexpr uint16_t kDefaultAdbdPort = 5555;

class TcpTransport : public Transport {
 public:
  // host_port is "HOST:PORT" (the serial adb uses) or "HOST" for port 5555.
  static Result<std::unique_ptr<TcpTransport>> Connect(const std::string& host_port,
                                                       Deadline deadline,
                                                       const CancelToken& cancel);
  TcpTransport(Socket socket, std::string name)
      : socket_(std::move(socket)), name_(std::move(name)) {}

  Status Send(const Message& message, uint32_t version, Deadline deadline,
              const CancelToken& cancel) override;
  Status SendPayload(uint32_t command, uint32_t arg0, uint32_t arg1, std::string_view payload,
                     uint32_t version, Deadline deadline, const CancelToken& cancel) override;
  Result<Message> Receive(uint32_t max_payload, Deadline deadline,
                          const CancelToken& cancel) override;
  void Close() override;
  std::string Describe() const override { return name_; }

 private:
  Socket socket_;
  std::string name_;
  std::mutex send_mutex_;  // whole messages, header and payload together
};

}  // namespace fathom::adb
