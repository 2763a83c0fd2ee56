#include "adb/platform_socket.h"

#include <algorithm>
#include <cstring>
#include <mutex>

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
using socklen_t = int;
#else
#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#endif

namespace fathom::adb {
namespace {

#ifdef _WIN32
using Native = SOCKET;
int LastError() { return WSAGetLastError(); }
bool WouldBlock(int e) { return e == WSAEWOULDBLOCK || e == WSAEINPROGRESS; }
int PollFds(pollfd* p, int n, int ms) { return WSAPoll(p, static_cast<ULONG>(n), ms); }
void CloseNative(Native s) { closesocket(s); }
void SetNonBlocking(Native s, bool on) {
  u_long v = on ? 1 : 0;
  ioctlsocket(s, FIONBIO, &v);
}
constexpr int kSendFlags = 0;
// Winsock needs WSAStartup once per process before the first call.
void EnsureInit() {
  static std::once_flag once;
  std::call_once(once, [] {
    WSADATA d;
    WSAStartup(MAKEWORD(2, 2), &d);
  });
}
#else
using Native = int;
int LastError() { return errno; }
bool WouldBlock(int e) { return e == EINPROGRESS || e == EAGAIN || e == EWOULDBLOCK; }
int PollFds(pollfd* p, int n, int ms) { return ::poll(p, static_cast<nfds_t>(n), ms); }
void CloseNative(Native s) { ::close(s); }
void SetNonBlocking(Native s, bool on) {
  int fl = fcntl(s, F_GETFL, 0);
  fcntl(s, F_SETFL, on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK));
}
#ifdef MSG_NOSIGNAL
constexpr int kSendFlags = MSG_NOSIGNAL;  // a closed peer must not kill us with SIGPIPE
#else
constexpr int kSendFlags = 0;  // macOS: SO_NOSIGPIPE is set on the socket instead
#endif
void EnsureInit() {}
#endif

Native N(intptr_t h) { return static_cast<Native>(h); }

void Configure(Native s) {
  int one = 1;
  setsockopt(s, IPPROTO_TCP, TCP_NODELAY, reinterpret_cast<const char*>(&one), sizeof(one));
#ifdef SO_NOSIGPIPE
  setsockopt(s, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof(one));
#endif
}

Status SysError(const std::string& what) {
  return ErrorStatus(what + ": " + std::strerror(LastError()));
}

}  // namespace

Socket& Socket::operator=(Socket&& o) noexcept {
  if (this != &o) {
    Close();
    fd_ = o.fd_;
    o.fd_ = kInvalid;
  }
  return *this;
}

void Socket::Shutdown() {
  if (fd_ == kInvalid) return;
#ifdef _WIN32
  ::shutdown(N(fd_), SD_BOTH);
#else
  ::shutdown(N(fd_), SHUT_RDWR);
#endif
}

void Socket::Close() {
  if (fd_ == kInvalid) return;
  CloseNative(N(fd_));
  fd_ = kInvalid;
}

Status Socket::Wait(bool for_write, Deadline deadline, const CancelToken& cancel) {
  while (true) {
    if (cancel.cancelled()) return ErrorStatus("cancelled");
    if (deadline.expired()) return ErrorStatus("timed out");
    pollfd p{};
    p.fd = N(fd_);
    p.events = for_write ? POLLOUT : POLLIN;
    int r = PollFds(&p, 1, static_cast<int>(deadline.Remaining(kPollSlice).count()));
    if (r > 0) return Status::Ok();  // readable, writable, or error/hangup: the call reports it
    if (r < 0) {
#ifndef _WIN32
      if (errno == EINTR) continue;
#endif
      return SysError("poll");
    }
  }
}

Result<Socket> Socket::Connect(const std::string& host, uint16_t port, Deadline deadline,
                               const CancelToken& cancel) {
  EnsureInit();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  // getaddrinfo has no timeout; adb serials are normally numeric so this does not block.
  if (int e = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res); e != 0) {
    return ErrorStatus("cannot resolve " + host + ": " + gai_strerror(e));
  }
  std::string last_error = "no address for " + host;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    Native s = ::socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (s == static_cast<Native>(kInvalid)) continue;
    Socket sock(static_cast<Handle>(s));
    SetNonBlocking(s, true);
    int r = ::connect(s, ai->ai_addr, static_cast<socklen_t>(ai->ai_addrlen));
    if (r != 0 && !WouldBlock(LastError())) {
      last_error = std::strerror(LastError());
      continue;
    }
    if (r != 0) {
      Status w = sock.Wait(true, deadline, cancel);
      if (!w.ok()) {
        freeaddrinfo(res);
        return ErrorStatus("connect to " + host + ":" + std::to_string(port) + ": " + w.message());
      }
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(s, SOL_SOCKET, SO_ERROR, reinterpret_cast<char*>(&err), &len);
      if (err != 0) {
        last_error = std::strerror(err);
        continue;
      }
    }
    Configure(s);  // stays non-blocking: see SendAll
    freeaddrinfo(res);
    return sock;
  }
  freeaddrinfo(res);
  return ErrorStatus("connect to " + host + ":" + std::to_string(port) + ": " + last_error);
}

Status Socket::AfterFailedCall(bool sending, Deadline deadline, const CancelToken& cancel) {
  const int e = LastError();  // read first: Wait's poll may overwrite it
#ifndef _WIN32
  if (e == EINTR) return Status::Ok();
#endif
  if (!WouldBlock(e)) return SysError(sending ? "send" : "recv");
  return Wait(sending, deadline, cancel);
}

Status Socket::SendAll(std::string_view data, Deadline deadline, const CancelToken& cancel) {
  if (!valid()) return ErrorStatus("socket closed");
  // The socket is non-blocking: try first and poll only when the kernel buffer is full, so
  // a message that fits costs one syscall instead of poll + send.
  size_t done = 0;
  while (done < data.size()) {
    if (cancel.cancelled()) return ErrorStatus("cancelled");
    size_t chunk = std::min<size_t>(data.size() - done, 1 << 20);
    auto n = ::send(N(fd_), data.data() + done, static_cast<int>(chunk), kSendFlags);
    if (n < 0) {
      if (Status st = AfterFailedCall(true, deadline, cancel); !st.ok()) return st;
      continue;
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status Socket::SendAll(std::string_view head, std::string_view body, Deadline deadline,
                       const CancelToken& cancel) {
  if (!valid()) return ErrorStatus("socket closed");
  while (!head.empty()) {
    if (cancel.cancelled()) return ErrorStatus("cancelled");
    const size_t b = std::min<size_t>(body.size(), 1 << 20);
#ifdef _WIN32
    WSABUF bufs[2] = {{static_cast<ULONG>(head.size()), const_cast<char*>(head.data())},
                      {static_cast<ULONG>(b), const_cast<char*>(body.data())}};
    DWORD sent = 0;
    const bool ok = WSASend(N(fd_), bufs, 2, &sent, 0, nullptr, nullptr) == 0;
    long long n = ok ? static_cast<long long>(sent) : -1;
#else
    iovec iov[2] = {{const_cast<char*>(head.data()), head.size()},
                    {const_cast<char*>(body.data()), b}};
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = 2;
    auto n = ::sendmsg(N(fd_), &msg, kSendFlags);
#endif
    if (n < 0) {
      if (Status st = AfterFailedCall(true, deadline, cancel); !st.ok()) return st;
      continue;
    }
    const size_t done = static_cast<size_t>(n);
    if (done >= head.size()) {
      body.remove_prefix(done - head.size());
      head = {};
    } else {
      head.remove_prefix(done);
    }
  }
  return SendAll(body, deadline, cancel);
}

Result<size_t> Socket::RecvSome(char* buf, size_t size, Deadline deadline,
                                const CancelToken& cancel) {
  if (!valid()) return ErrorStatus("socket closed");
  while (true) {
    if (cancel.cancelled()) return ErrorStatus("cancelled");
    auto n = ::recv(N(fd_), buf, static_cast<int>(std::min<size_t>(size, 1 << 30)), 0);
    if (n < 0) {
      if (Status st = AfterFailedCall(false, deadline, cancel); !st.ok()) return st;
      continue;
    }
    return static_cast<size_t>(n);
  }
}

Status Socket::RecvExact(char* buf, size_t size, Deadline deadline, const CancelToken& cancel) {
  size_t done = 0;
  while (done < size) {
    auto n = RecvSome(buf + done, size - done, deadline, cancel);
    if (!n.ok()) return n.status();
    if (*n == 0) return ErrorStatus("connection closed by peer");
    done += *n;
  }
  return Status::Ok();
}

Result<Listener> Listener::Listen(uint16_t port) {
  EnsureInit();
  Native s = ::socket(AF_INET, SOCK_STREAM, 0);
  if (s == static_cast<Native>(Socket::kInvalid)) return SysError("socket");
  Listener l;
  l.sock_ = Socket(static_cast<Socket::Handle>(s));
  int one = 1;
  setsockopt(s, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const char*>(&one), sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) return SysError("bind");
  if (::listen(s, 8) != 0) return SysError("listen");
  socklen_t len = sizeof(addr);
  getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len);
  l.port_ = ntohs(addr.sin_port);
  return l;
}

Result<Socket> Listener::Accept(Deadline deadline, const CancelToken& cancel) {
  if (Status w = sock_.Wait(false, deadline, cancel); !w.ok()) return w;
  Native c = ::accept(N(sock_.fd_), nullptr, nullptr);
  if (c == static_cast<Native>(Socket::kInvalid)) return SysError("accept");
  SetNonBlocking(c, true);  // as connected sockets: SendAll/RecvSome poll only on EAGAIN
  Configure(c);
  return Socket(static_cast<Socket::Handle>(c));
}

}  // namespace fathom::adb
