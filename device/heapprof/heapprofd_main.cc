// fathom-heapprofd: collects heap samples from processes running libfathom_heapprof.so and
// writes them as ProfilePackets into a Perfetto trace. One thread: a poll loop over the
// listening socket, the clients' sockets and a signalfd, draining every ring each 10 ms.
// Dumps: every --dump-interval, on SIGUSR1, and at the end.
//
//   fathom-heapprofd [OPTIONS] -o OUT.pftrace -- PROGRAM ARGS...   run PROGRAM under it
//   fathom-heapprofd [OPTIONS] -o OUT.pftrace --pid PID            attach (preloaded PID)
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "device/common/clock_snapshot.h"
#include "device/heapprof/profiles.h"
#include "device/heapprof/wire.h"
#include "trace_writer.h"

namespace fathom::heapprof {
namespace {

struct Options {
  uint64_t interval = 4096;
  // A dump every second by default, so a short run still shows memory over time (and
  // what was held before the program's frees at exit); 0 = at the end (and SIGUSR1) only.
  uint64_t dump_interval_ms = 1000;
  bool block = false;
  bool follow_children = false;
  std::string lib;
  std::string out;
  pid_t pid = 0;
  std::vector<std::string> command;
};

struct Client {
  int fd = -1;
  pid_t pid = 0;
  RingHeader* ring = nullptr;
  uint8_t* data = nullptr;
  uint64_t size = 0;
  std::vector<uint8_t> record;  // scratch for one record
};

uint64_t BootNs() {
  timespec ts;
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void Usage() {
  fprintf(stderr,
          "usage: fathom-heapprofd [--interval BYTES] [--dump-interval MS] [--block]\n"
          "                        [--follow-children] [--lib PATH] -o OUT.pftrace\n"
          "                        (-- PROGRAM ARGS... | --pid PID)\n");
}

bool ParseUint(const char* s, uint64_t* out) {
  char* end = nullptr;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || !end || *end || s[0] == '-' || !s[0]) return false;
  *out = v;
  return true;
}

// Returns an error message, or "" on success.
std::string ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) return nullptr;
      (void)name;
      return argv[++i];
    };
    const char* v = nullptr;
    if (a == "--") {
      for (i++; i < argc; i++) o->command.push_back(argv[i]);
    } else if (a == "--interval") {
      if (!(v = value("--interval")) || !ParseUint(v, &o->interval))
        return "--interval needs a number of bytes";
      if (o->interval == 0) return "--interval must be at least 1 byte";
    } else if (a == "--dump-interval") {
      if (!(v = value("--dump-interval")) || !ParseUint(v, &o->dump_interval_ms))
        return "--dump-interval needs milliseconds";
    } else if (a == "--block") {
      o->block = true;
    } else if (a == "--follow-children") {
      o->follow_children = true;
    } else if (a == "--lib") {
      if (!(v = value("--lib"))) return "--lib needs a path";
      o->lib = v;
    } else if (a == "-o" || a == "--out") {
      if (!(v = value("-o"))) return "-o needs a path";
      o->out = v;
    } else if (a == "--pid") {
      uint64_t pid = 0;
      if (!(v = value("--pid")) || !ParseUint(v, &pid) || pid == 0 || pid > INT_MAX)
        return "--pid needs a process id";
      o->pid = static_cast<pid_t>(pid);
    } else {
      return "unknown argument '" + a + "'";
    }
  }
  if (o->out.empty()) return "-o OUT.pftrace is required";
  if (o->command.empty() == (o->pid == 0)) return "give either -- PROGRAM ARGS or --pid PID";
  return "";
}

std::string DefaultLib(const char* argv0) {
  // Next to this binary (build/bin), or in ../lib (installed layout).
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir = n > 0 ? std::string(self, static_cast<size_t>(n)) : argv0;
  dir = dir.substr(0, dir.rfind('/') + 1);
  for (const char* rel : {"", "../lib/"}) {
    std::string p = dir + rel + "libfathom_heapprof.so";
    if (access(p.c_str(), R_OK) == 0) return p;
  }
  return dir + "libfathom_heapprof.so";
}

// True when PID has a handler for SIG (SigCgt in /proc/PID/status).
bool CatchesSignal(pid_t pid, int sig) {
  FILE* f = fopen(("/proc/" + std::to_string(pid) + "/status").c_str(), "re");
  if (!f) return false;
  char line[256];
  unsigned long long mask = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "SigCgt: %llx", &mask) == 1) break;
  fclose(f);
  return (mask >> (sig - 1)) & 1;
}

// True while PID runs (a zombie has ended: its parent just has not reaped it yet).
bool ProcessAlive(pid_t pid) {
  FILE* f = fopen(("/proc/" + std::to_string(pid) + "/stat").c_str(), "re");
  if (!f) return false;
  char line[512];
  bool alive = fgets(line, sizeof line, f) != nullptr;
  fclose(f);
  const char* paren = alive ? strrchr(line, ')') : nullptr;
  return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

class Collector {
 public:
  Collector(const Options& o, device::TraceWriter* writer)
      : o_(o), writer_(writer), profiles_(o.interval) {}

  bool Accept(int listen_fd) {
    int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return false;
    // A client that stops talking mid-handshake must not stall the collector.
    timeval tv{2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    Hello hello{};
    bool greeted = recv(fd, &hello, sizeof hello, MSG_WAITALL) == sizeof hello &&
                   hello.version == kWireVersion;
    // --pid sessions accept only that process; others are told not to profile.
    bool wanted = greeted && (o_.pid == 0 || static_cast<pid_t>(hello.pid) == o_.pid);
    Config config{wanted ? o_.interval : 0, o_.block ? 1u : 0u, 0};
    bool sent = send(fd, &config, sizeof config, MSG_NOSIGNAL) == sizeof config;
    if (!wanted || !sent) {
      close(fd);
      return false;
    }
    RingOffer offer{};
    char cbuf[CMSG_SPACE(sizeof(int))] = {};
    iovec iov{&offer, sizeof offer};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cbuf;
    msg.msg_controllen = sizeof cbuf;
    ssize_t got = recvmsg(fd, &msg, MSG_WAITALL | MSG_CMSG_CLOEXEC);
    int mfd = -1;
    if (cmsghdr* c = CMSG_FIRSTHDR(&msg); c && c->cmsg_type == SCM_RIGHTS)
      memcpy(&mfd, CMSG_DATA(c), sizeof(int));
    void* mem = MAP_FAILED;
    size_t bytes = sizeof(RingHeader) + offer.ring_bytes;
    struct stat st;
    if (got == sizeof offer && mfd >= 0 && offer.ring_bytes >= 4096 &&
        offer.ring_bytes <= (1ull << 30) && (offer.ring_bytes & (offer.ring_bytes - 1)) == 0 &&
        fstat(mfd, &st) == 0 && static_cast<uint64_t>(st.st_size) >= bytes)
      mem = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
    if (mfd >= 0) close(mfd);
    RingAccepted accepted{mem != MAP_FAILED ? 1u : 0u, 0};
    pid_t pid = static_cast<pid_t>(hello.pid);
    // Read the process's maps while it waits for this answer: a short-lived program let go
    // first could exit before the collector looks, and every frame would lose its mapping.
    std::string process_packet;
    if (accepted.mapped)
      process_packet = profiles_.AddProcess(pid, hello.from_startup != 0, BootNs());
    if (send(fd, &accepted, sizeof accepted, MSG_NOSIGNAL) != sizeof accepted || !accepted.mapped) {
      if (accepted.mapped) profiles_.ForgetProcess(pid);
      if (mem != MAP_FAILED) munmap(mem, bytes);
      close(fd);
      return false;
    }
    Client c;
    c.fd = fd;
    c.pid = pid;
    c.ring = static_cast<RingHeader*>(mem);
    c.data = static_cast<uint8_t*>(mem) + sizeof(RingHeader);
    c.size = offer.ring_bytes;
    clients_.push_back(std::move(c));
    writer_->AppendPacket(process_packet);
    ever_connected_ = true;
    return true;
  }

  void CopyOut(const Client& c, uint64_t pos, void* dst, size_t n) {
    uint64_t off = pos & (c.size - 1);
    size_t first = c.size - off < n ? static_cast<size_t>(c.size - off) : n;
    memcpy(dst, c.data + off, first);
    memcpy(static_cast<uint8_t*>(dst) + first, c.data, n - first);
  }
  // Consumed bytes go back to zero: a record reserved there later reads as unwritten
  // until its writer stores the type.
  void Zero(const Client& c, uint64_t pos, size_t n) {
    uint64_t off = pos & (c.size - 1);
    size_t first = c.size - off < n ? static_cast<size_t>(c.size - off) : n;
    memset(c.data + off, 0, first);
    memset(c.data, 0, n - first);
  }

  // Returns the bytes consumed.
  uint64_t Drain(Client& c) {
    ProcessInfo* info = profiles_.Info(c.pid);
    if (!info || info->corrupted) return 0;
    uint64_t r = c.ring->read_pos.load(std::memory_order_relaxed);
    uint64_t start = r;
    uint64_t w = c.ring->write_pos.load(std::memory_order_acquire);
    while (r < w) {
      // Records start 8-byte aligned and the size is a power of two: no header wraps.
      uint8_t* at = c.data + (r & (c.size - 1));
      RecordHeader h;
      h.type = __atomic_load_n(reinterpret_cast<uint32_t*>(at), __ATOMIC_ACQUIRE);
      if (h.type == kUnwritten) break;  // reserved, being written: next drain
      memcpy(&h.bytes, at + sizeof h.type, sizeof h.bytes);
      bool ok = r % 8 == 0 && h.bytes >= sizeof(FreeRecord) && h.bytes % 8 == 0 && h.bytes <= w - r;
      if (ok && h.type == kAlloc) {
        c.record.resize(h.bytes);
        CopyOut(c, r, c.record.data(), h.bytes);
        auto* rec = reinterpret_cast<const AllocRecord*>(c.record.data());
        ok = h.bytes >= sizeof(AllocRecord) && rec->num_frames <= kMaxFrames &&
             h.bytes == sizeof(AllocRecord) + rec->num_frames * sizeof(uint64_t);
        if (ok)
          profiles_.OnAlloc(
              c.pid, *rec,
              reinterpret_cast<const uint64_t*>(c.record.data() + sizeof(AllocRecord)));
      } else if (ok && h.type == kFree) {
        FreeRecord f;
        CopyOut(c, r, &f, sizeof f);
        profiles_.OnFree(c.pid, f.addr);
      } else if (ok && h.type == kCodeUnloaded && h.bytes == sizeof(CodeUnloadedRecord)) {
        profiles_.OnCodeUnloaded(c.pid);
      } else {
        ok = false;
      }
      if (!ok) {  // a bug or a scribbling program: stop trusting this ring
        info = profiles_.Info(c.pid);
        info->corrupted = true;
        r = w;
        break;
      }
      Zero(c, r, h.bytes);
      r += h.bytes;
    }
    c.ring->read_pos.store(r, std::memory_order_release);
    info = profiles_.Info(c.pid);
    info->overruns = c.ring->overruns.load(std::memory_order_relaxed);
    info->spin_blocked_ns = c.ring->spin_blocked_ns.load(std::memory_order_relaxed);
    return r - start;
  }

  // True when some ring was more than 1/8 full: the loop then polls again after 1 ms
  // instead of 10, so an allocation-heavy program (hundreds of MB of records per second at
  // the default interval) does not overrun its ring between two drains.
  bool DrainAll() {
    bool busy = false;
    for (Client& c : clients_) busy |= Drain(c) > c.size / 8;
    return busy;
  }

  void Disconnect(size_t i) {
    Client& c = clients_[i];
    Drain(c);
    // An exec keeps the pid and connects anew before the old socket's EOF may arrive:
    // only the last connection of a pid says whether the process is gone.
    bool reconnected = false;
    for (const Client& other : clients_) reconnected |= &other != &c && other.pid == c.pid;
    if (ProcessInfo* info = profiles_.Info(c.pid); info && !reconnected) info->disconnected = true;
    munmap(c.ring, sizeof(RingHeader) + c.size);
    close(c.fd);
    clients_.erase(clients_.begin() + static_cast<long>(i));
  }

  void Dump() {
    DrainAll();
    writer_->AppendPacket(profiles_.Dump(BootNs(), device::ClockNowNs(CLOCK_MONOTONIC_COARSE)));
    writer_->Flush();
    dumps_++;
  }

  // Tells still-connected clients to stop sampling, then lets them go.
  void Finish() {
    DrainAll();
    for (Client& c : clients_) c.ring->collector_done.store(1, std::memory_order_relaxed);
    Dump();
  }

  std::vector<Client>& clients() { return clients_; }
  bool ever_connected() const { return ever_connected_; }
  int dumps() const { return dumps_; }

 private:
  const Options& o_;
  device::TraceWriter* writer_;
  Profiles profiles_;
  std::vector<Client> clients_;
  bool ever_connected_ = false;
  int dumps_ = 0;
};

int Run(int argc, char** argv) {
  Options o;
  std::string err = ParseArgs(argc, argv, &o);
  if (!err.empty()) {
    fprintf(stderr, "fathom-heapprofd: %s\n", err.c_str());
    Usage();
    return 2;
  }
  if (o.lib.empty()) o.lib = DefaultLib(argv[0]);
  if (!o.command.empty() && access(o.lib.c_str(), R_OK) != 0) {
    fprintf(stderr, "fathom-heapprofd: cannot read %s (use --lib)\n", o.lib.c_str());
    return 1;
  }
  device::TraceWriterOptions wo;
  wo.sync_on_flush = false;
  auto writer = device::TraceWriter::Open(o.out, wo);
  if (!writer.ok()) {
    fprintf(stderr, "fathom-heapprofd: %s\n", writer.status().message().c_str());
    return 1;
  }
  // Dumps are stamped in MONOTONIC_COARSE, as readers expect: this maps it to BOOTTIME.
  (*writer)->AppendPacket(device::ClockSnapshotPacket(kSequenceId));

  const char* dir = getenv("FATHOM_HEAPPROF_DIR");
  if (!dir) dir = getenv("TMPDIR");
  if (!dir) dir = "/tmp";
  std::string sock_path =
      o.pid ? std::string(dir) + "/fathom-heapprofd-" + std::to_string(o.pid) + ".sock"
            : std::string(dir) + "/fathom-heapprofd-c" + std::to_string(getpid()) + ".sock";
  int listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (sock_path.size() >= sizeof addr.sun_path) {
    fprintf(stderr, "fathom-heapprofd: socket path too long: %s\n", sock_path.c_str());
    return 1;
  }
  strcpy(addr.sun_path, sock_path.c_str());
  unlink(sock_path.c_str());
  if (listen_fd < 0 || bind(listen_fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listen_fd, 64) != 0) {
    fprintf(stderr, "fathom-heapprofd: cannot listen on %s: %s\n", sock_path.c_str(),
            strerror(errno));
    return 1;
  }

  sigset_t mask;
  sigemptyset(&mask);
  for (int s : {SIGUSR1, SIGCHLD, SIGINT, SIGTERM, SIGHUP}) sigaddset(&mask, s);
  sigprocmask(SIG_BLOCK, &mask, nullptr);
  int sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

  Collector collector(o, writer.value().get());
  pid_t child = 0;
  int child_status = 0;
  bool child_exited = false;
  uint64_t start_ns = BootNs();
  if (!o.command.empty()) {
    child = fork();
    if (child == 0) {
      sigprocmask(SIG_UNBLOCK, &mask, nullptr);
      std::string preload = o.lib;
      if (const char* old = getenv("LD_PRELOAD"); old && *old) preload += std::string(":") + old;
      setenv("LD_PRELOAD", preload.c_str(), 1);
      setenv("FATHOM_HEAPPROF_SOCKET", sock_path.c_str(), 1);
      setenv("FATHOM_HEAPPROF_PID", std::to_string(getpid()).c_str(), 1);
      if (o.follow_children) setenv("FATHOM_HEAPPROF_FOLLOW", "1", 1);
      std::vector<char*> args;
      for (std::string& a : o.command) args.push_back(a.data());
      args.push_back(nullptr);
      execvp(args[0], args.data());
      fprintf(stderr, "fathom-heapprofd: cannot run %s: %s\n", args[0], strerror(errno));
      _exit(127);
    }
  } else if (kill(o.pid, 0) != 0) {
    fprintf(stderr, "fathom-heapprofd: cannot signal %d: %s\n", o.pid, strerror(errno));
    unlink(sock_path.c_str());
    return 1;
  }

  uint64_t next_dump = o.dump_interval_ms ? start_ns + o.dump_interval_ms * 1000000ull : 0;
  uint64_t next_signal = start_ns;
  bool stop = false, busy = false;
  while (!stop) {
    std::vector<pollfd> fds = {{listen_fd, POLLIN, 0}, {sig_fd, POLLIN, 0}};
    for (Client& c : collector.clients()) fds.push_back({c.fd, POLLIN, 0});
    poll(fds.data(), fds.size(), busy ? 1 : 10);
    if (fds[0].revents & POLLIN)
      while (collector.Accept(listen_fd)) {
      }
    signalfd_siginfo si;
    while (read(sig_fd, &si, sizeof si) == sizeof si) {
      if (si.ssi_signo == SIGUSR1) collector.Dump();
      if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP) stop = true;
    }
    while (child && !child_exited) {
      int status;
      pid_t r = waitpid(-1, &status, WNOHANG);
      if (r <= 0) break;
      if (r == child) {
        child_exited = true;
        child_status = status;
      }
    }
    for (size_t i = fds.size(); i-- > 2;) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      // A byte is a request to drain now (the client waits in dlclose and at exit): done
      // below.
      char bytes[64];
      if (recv(fds[i].fd, bytes, sizeof bytes, MSG_DONTWAIT) <= 0) collector.Disconnect(i - 2);
    }
    busy = collector.DrainAll();
    uint64_t now = BootNs();
    if (next_dump && now >= next_dump) {
      collector.Dump();
      next_dump = now + o.dump_interval_ms * 1000000ull;
    }
    if (collector.clients().empty()) {
      if (child && child_exited) stop = true;  // the program and everything it forked is done
      // --pid: until the process ends. Its connection also closes when it execs (the
      // library then starts again in the new image, unconnected: a pyenv shim or a
      // site hook re-executing python does this right after start-up), so it is asked
      // to connect again while it runs.
      bool waiting = o.pid && (!collector.ever_connected() || ProcessAlive(o.pid));
      if (o.pid && collector.ever_connected() && !waiting) stop = true;
      if (o.pid && !collector.ever_connected() && !ProcessAlive(o.pid)) {
        fprintf(stderr, "fathom-heapprofd: process %d ended before it connected\n", o.pid);
        unlink(sock_path.c_str());
        return 1;
      }
      if (waiting && now >= next_signal) {
        // Again until it connects (an exec in between resets the handler), and only while
        // a handler is installed: a process without the preload is not disturbed (wire.h:
        // the signal is one whose default action is to ignore it).
        if (CatchesSignal(o.pid, kAttachSignal)) kill(o.pid, kAttachSignal);
        next_signal = now + 100000000ull;
      }
      if (o.pid && !collector.ever_connected() && now - start_ns > 10000000000ull) {
        fprintf(stderr,
                "fathom-heapprofd: process %d did not connect (was it started with "
                "LD_PRELOAD=libfathom_heapprof.so?)\n",
                o.pid);
        unlink(sock_path.c_str());
        return 1;
      }
    }
  }
  collector.Finish();
  unlink(sock_path.c_str());
  Status closed = writer.value()->Close();
  if (!closed.ok()) {
    fprintf(stderr, "fathom-heapprofd: %s\n", closed.message().c_str());
    return 1;
  }
  fprintf(stderr, "fathom-heapprofd: wrote %s (%d dumps)\n", o.out.c_str(), collector.dumps());
  if (child) {
    if (WIFEXITED(child_status)) return WEXITSTATUS(child_status);
    return 128 + (WIFSIGNALED(child_status) ? WTERMSIG(child_status) : 0);
  }
  return 0;
}

}  // namespace
}  // namespace fathom::heapprof

int main(int argc, char** argv) { return fathom::heapprof::Run(argc, argv); }
