// The only file in adb/ that touches OS socket APIs (POSIX or Winsock). Everything blocks
// with a Deadline and a CancelToken, polling in kPollSlice steps so another thread can cancel.
// Sockets are non-blocking underneath: calls try the operation first and poll only when it
// would block.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "adb/cancel.h"
#include "base/status.h"

namespace fathom::adb {

class Socket {
 public:
  Socket() = default;
  ~Socket() { Close(); }
  Socket(Socket&& o) noexcept : fd_(o.fd_) { o.fd_ = kInvalid; }
  Socket& operator=(Socket&& o) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  // TCP connect to host (name or address) and port; TCP_NODELAY is set because adb traffic
  // is many small request/response messages.
  static Result<Socket> Connect(const std::string& host, uint16_t port, Deadline deadline,
                                const CancelToken& cancel);

  bool valid() const { return fd_ != kInvalid; }
  Status SendAll(std::string_view data, Deadline deadline, const CancelToken& cancel);
  // head then body in one gathered write where possible (a message header and its payload
  // without first copying them together).
  Status SendAll(std::string_view head, std::string_view body, Deadline deadline,
                 const CancelToken& cancel);
  // Returns 0 on orderly EOF.
  Result<size_t> RecvSome(char* buf, size_t size, Deadline deadline, const CancelToken& cancel);
  // Error on EOF before `size` bytes.
  Status RecvExact(char* buf, size_t size, Deadline deadline, const CancelToken& cancel);
  // Wakes up any thread blocked on this socket (it then sees EOF/error); safe cross-thread.
  void Shutdown();
  void Close();

 private:
  friend class Listener;
  using Handle = intptr_t;  // int on POSIX, SOCKET (UINT_PTR) on Windows
  static constexpr Handle kInvalid = -1;
  explicit Socket(Handle fd) : fd_(fd) {}
  // Waits until readable (or writable); an error on timeout or cancellation.
  Status Wait(bool for_write, Deadline deadline, const CancelToken& cancel);
  // After a send/recv returned < 0: Ok when the call should be retried (interrupted, or
  // the socket became ready within the deadline), else the error.
  Status AfterFailedCall(bool sending, Deadline deadline, const CancelToken& cancel);
  Handle fd_ = kInvalid;
};

// Listening socket on 127.0.0.1 (tests use it to play a device).
class Listener {
 public:
  static Result<Listener> Listen(uint16_t port);  // 0 = any free port
  uint16_t port() const { return port_; }
  Result<Socket> Accept(Deadline deadline, const CancelToken& cancel);

 private:
  Socket sock_;
  uint16_t port_ = 0;
};

}  // namespace fathom::adb
