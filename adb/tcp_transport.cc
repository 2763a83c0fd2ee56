#include "adb/tcp_transport.h"

#include <cstdlib>

namespace fathom::adb {

Result<std::unique_ptr<TcpTransport>> TcpTransport::Connect(const std::string& host_port,
                                                            Deadline deadline,
                                                            const CancelToken& cancel) {
  std::string host = host_port;
  uint16_t port = kDefaultAdbdPort;
  // rfind and no ']' after the colon: "[::1]:5555" and "10.0.0.2:5555" both work.
  size_t colon = host_port.rfind(':');
  if (colon != std::string::npos && host_port.find(']', colon) == std::string::npos) {
    int p = std::atoi(host_port.c_str() + colon + 1);
    if (p <= 0 || p > 65535) return ErrorStatus("bad port in '" + host_port + "'");
    port = static_cast<uint16_t>(p);
    host = host_port.substr(0, colon);
  }
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  auto sock = Socket::Connect(host, port, deadline, cancel);
  if (!sock.ok()) return sock.status();
  return std::make_unique<TcpTransport>(std::move(*sock), host + ":" + std::to_string(port));
}

Status TcpTransport::Send(const Message& message, uint32_t version, Deadline deadline,
                          const CancelToken& cancel) {
  return SendPayload(message.command, message.arg0, message.arg1, message.payload, version,
                     deadline, cancel);
}

Status TcpTransport::SendPayload(uint32_t command, uint32_t arg0, uint32_t arg1,
                                 std::string_view payload, uint32_t version, Deadline deadline,
                                 const CancelToken& cancel) {
  // One gathered write per message: header and payload travel together, and the payload
  // is not copied next to the header first.
  const std::string header = EncodeHeader(command, arg0, arg1, payload, version);
  std::lock_guard<std::mutex> lock(send_mutex_);
  return socket_.SendAll(header, payload, deadline, cancel);
}

Result<Message> TcpTransport::Receive(uint32_t max_payload, Deadline deadline,
                                      const CancelToken& cancel) {
  char header[kHeaderSize];
  if (Status s = socket_.RecvExact(header, kHeaderSize, deadline, cancel); !s.ok()) return s;
  auto h = DecodeHeader(std::string_view(header, kHeaderSize), max_payload);
  if (!h.ok()) return h.status();
  Message m{h->command, h->arg0, h->arg1, std::string(h->data_length, '\0')};
  if (Status s = socket_.RecvExact(m.payload.data(), m.payload.size(), deadline, cancel); !s.ok()) {
    return s;
  }
  return m;
}

void TcpTransport::Close() { socket_.Shutdown(); }

}  // namespace fathom::adb
