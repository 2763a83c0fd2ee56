#include "host_adbd.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <random>

#include "adb/banner.h"
#include "adb/shell_protocol.h"
#include "adb/sync_compression.h"
#include "adb/sync_protocol.h"
#include "adb/tcp_transport.h"

namespace fathom::adb::testing {

struct HostAdbdSession::Stream {
  uint32_t host_id = 0, dev_id = 0;
  std::string kind;  // sync, shell2, shell1, exec
  std::string command;
  std::string in;     // input; sync parses it from in_pos on
  size_t in_pos = 0;  // (an offset, not erase per DATA: that moved ~8 MiB per MiB pushed)
  std::deque<std::string> out;
  bool host_ready = true;
  int64_t host_window = 0;  // delayed_ack: bytes the host still accepts
  bool close_when_flushed = false;
  // Child process (shell/exec).
  pid_t pid = -1;
  int stdin_fd = -1;
  std::thread reader;
  // Sync SEND in progress.
  bool in_send = false;
  std::string send_path;
  mode_t send_mode = 0644;
  int send_fd = -1;
  std::unique_ptr<SyncDecoder> send_decoder;  // SND2 with compression
  std::string send_error;
  // Sync RECV in progress: the file is read as the host drains the stream, like adbd, not
  // all into memory first; later requests wait until its DONE is queued.
  int recv_fd = -1;
  std::unique_ptr<SyncEncoder> recv_encoder;
  std::string recv_pending;  // encoded bytes not yet cut into DATA
  ~Stream() {
    if (recv_fd >= 0) ::close(recv_fd);
  }
};

namespace {

std::string StripNul(std::string s) {
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string Stat2(uint32_t id, const std::string& path, bool follow) {
  struct stat st {};
  int rc = follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st);
  std::string r;
  PutU32(r, id);
  PutU32(r, rc == 0 ? 0 : static_cast<uint32_t>(errno));
  PutU64(r, rc == 0 ? st.st_dev : 0);
  PutU64(r, rc == 0 ? st.st_ino : 0);
  PutU32(r, rc == 0 ? st.st_mode : 0);
  PutU32(r, rc == 0 ? static_cast<uint32_t>(st.st_nlink) : 0);
  PutU32(r, rc == 0 ? st.st_uid : 0);
  PutU32(r, rc == 0 ? st.st_gid : 0);
  PutU64(r, rc == 0 ? static_cast<uint64_t>(st.st_size) : 0);
  PutU64(r, rc == 0 ? static_cast<uint64_t>(st.st_atime) : 0);
  PutU64(r, rc == 0 ? static_cast<uint64_t>(st.st_mtime) : 0);
  PutU64(r, rc == 0 ? static_cast<uint64_t>(st.st_ctime) : 0);
  return r;
}

std::string SyncFail(const std::string& why) { return EncodeSyncRequest(kSyncFail, why); }

}  // namespace

HostAdbdSession::HostAdbdSession(std::unique_ptr<Transport> transport,
                                 const HostAdbdOptions& options)
    : transport_(std::move(transport)), options_(options) {
  thread_ = std::thread([this] { Run(); });
}

HostAdbdSession::~HostAdbdSession() {
  cancel_.Cancel();
  transport_->Close();
  if (thread_.joinable()) thread_.join();
  std::vector<std::shared_ptr<Stream>> children;
  {
    std::lock_guard<std::mutex> l(mu_);
    streams_.clear();
    children.swap(children_);
  }
  for (auto& s : children) {
    ::kill(-s->pid, SIGKILL);
    if (s->reader.joinable()) s->reader.join();
  }
}

void HostAdbdSession::Run() {
  while (!cancel_.cancelled()) {
    auto m = transport_->Receive(kMaxPayload, Deadline::Never(), cancel_);
    if (!m.ok()) break;
    Handle(*m);
  }
  // The cable is gone: like adbd, end every shell the host started.
  std::lock_guard<std::mutex> l(mu_);
  for (auto& [id, s] : streams_) {
    if (s->pid > 0) ::kill(-s->pid, SIGHUP);
  }
  finished_ = true;
}

std::string HostAdbdSession::AckPayload(uint32_t n) const {
  std::string p;
  if (delayed_ack_) PutU32(p, n);
  return p;
}

void HostAdbdSession::Send(const Message& m) {
  transport_->Send(m, version_, Deadline::After(Millis(5000)), cancel_);
}

void HostAdbdSession::Handle(const Message& m) {
  auto send_cnxn = [&] {
    Send(Message::Make(kCmdCnxn, kVersion, kMaxPayload, options_.banner));
    authed_ = true;
  };
  auto send_token = [&] {
    std::random_device rd;
    token_.assign(kAuthTokenSize, '\0');
    for (char& c : token_) c = static_cast<char>(rd());
    Send(Message::Make(kCmdAuth, kAuthToken, 0, token_));
  };
  switch (m.command) {
    case kCmdCnxn:
      version_ = std::min(kVersion, m.arg0);
      max_payload_ = std::min<uint32_t>(kMaxPayload, m.arg1);
      delayed_ack_ = ParseBanner(m.payload).Has("delayed_ack") &&
                     ParseBanner(options_.banner).Has("delayed_ack");
      if (options_.require_auth && !authed_) {
        send_token();
      } else {
        send_cnxn();
      }
      return;
    case kCmdAuth:
      if (m.arg0 == kAuthSignature) {
        for (const auto& k : options_.trusted) {
          if (k.VerifyToken(token_, m.payload)) {
            send_cnxn();
            return;
          }
        }
        send_token();  // try the next key
      } else if (m.arg0 == kAuthRsaPublicKey && options_.accept_any_key &&
                 AuthPublicKey::FromAndroidText(StripNul(m.payload)).ok()) {
        send_cnxn();
      }
      return;
    case kCmdOpen:
      if (authed_) OnOpen(m.arg0, m.arg1, StripNul(m.payload));
      return;
    case kCmdOkay: {
      std::shared_ptr<Stream> s;
      {
        std::lock_guard<std::mutex> l(mu_);
        auto it = streams_.find(m.arg1);
        if (it == streams_.end()) return;
        if (delayed_ack_) {
          if (m.payload.size() == 4) it->second->host_window += GetU32(m.payload, 0);
        } else {
          it->second->host_ready = true;
        }
        s = it->second;  // Pump may erase the entry (stream closed once flushed)
        Pump(*s);
      }
      // Requests that came in behind a RECV (only this thread parses sync input).
      if (s->kind == "sync" && s->recv_fd < 0 && s->in_pos < s->in.size()) HandleSync(*s);
      return;
    }
    case kCmdWrte: {
      std::shared_ptr<Stream> s;
      {
        std::lock_guard<std::mutex> l(mu_);
        auto it = streams_.find(m.arg1);
        if (it == streams_.end()) return;
        s = it->second;
        Send(Message::Make(kCmdOkay, s->dev_id, s->host_id, AckPayload(m.payload.size())));
      }
      OnData(*s, m.payload);
      return;
    }
    case kCmdClse:
      CloseStream(m.arg1);
      return;
  }
}

void HostAdbdSession::CloseStream(uint32_t dev_id) {
  std::shared_ptr<Stream> s;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = streams_.find(dev_id);
    if (it == streams_.end()) return;
    s = it->second;
    Send(Message::Make(kCmdClse, s->dev_id, s->host_id));
    streams_.erase(it);
  }
  // The host hung up on a running command: adbd hangs up on it too.
  if (s->pid > 0) ::kill(-s->pid, SIGHUP);
  if (s->stdin_fd >= 0) ::close(s->stdin_fd);
  if (s->send_fd >= 0) ::close(s->send_fd);
  if (s->recv_fd >= 0) ::close(s->recv_fd);
  s->stdin_fd = s->send_fd = s->recv_fd = -1;
}

void HostAdbdSession::OnOpen(uint32_t host_id, uint32_t host_window, const std::string& service) {
  // adbd refuses an OPEN whose window does not match the negotiated delayed_ack (spec §7).
  if ((host_window != 0) != delayed_ack_) {
    Send(Message::Make(kCmdClse, 0, host_id));
    return;
  }
  auto s = std::make_shared<Stream>();
  s->host_id = host_id;
  s->host_window = host_window;
  if (service == "sync:") {
    s->kind = "sync";
  } else if (service.rfind("shell", 0) == 0 && service.find(':') != std::string::npos) {
    const std::string args = service.substr(0, service.find(':'));
    s->kind = args.find("v2") != std::string::npos ? "shell2" : "shell1";
    s->command = service.substr(service.find(':') + 1);
  } else if (service.rfind("exec:", 0) == 0) {
    s->kind = "exec";
    s->command = service.substr(5);
  } else {
    Send(Message::Make(kCmdClse, 0, host_id));
    return;
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    s->dev_id = next_id_++;
    streams_[s->dev_id] = s;
    // With delayed_ack the OKAY carries our window, as adbd's 32 MiB.
    Send(Message::Make(kCmdOkay, s->dev_id, s->host_id, AckPayload(32u << 20)));
  }
  if (s->kind != "sync") StartChild(*s);
}

void HostAdbdSession::OnData(Stream& s, const std::string& data) {
  if (s.in_pos > 0) {  // drop what sync already parsed (at most a partial request is left)
    s.in.erase(0, s.in_pos);
    s.in_pos = 0;
  }
  s.in += data;
  if (s.kind == "sync") {
    HandleSync(s);
    return;
  }
  if (s.kind != "shell2") {
    if (s.stdin_fd >= 0) (void)!::write(s.stdin_fd, s.in.data(), s.in.size());
    s.in.clear();
    return;
  }
  ShellDecoder dec;
  dec.Feed(s.in);
  size_t used = 0;
  while (auto p = dec.Next()) {
    used += 5 + p->data.size();
    if (p->id == ShellId::kStdin && s.stdin_fd >= 0) {
      const char* at = p->data.data();
      size_t left = p->data.size();
      while (left > 0) {
        ssize_t n = ::write(s.stdin_fd, at, left);
        if (n <= 0) break;
        at += n;
        left -= static_cast<size_t>(n);
      }
    } else if (p->id == ShellId::kCloseStdin && s.stdin_fd >= 0) {
      ::close(s.stdin_fd);
      s.stdin_fd = -1;
    }
  }
  s.in.erase(0, used);
}

void HostAdbdSession::StartChild(Stream& s) {
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    Output(s.dev_id, EncodeShellPacket(ShellId::kExit, std::string(1, '\x7f')), true);
    return;
  }
  const bool merged = s.kind != "shell2";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();  // own process group, so a hang-up reaches the whole pipeline
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(merged ? out[1] : err[1], 2);
    ::signal(SIGPIPE, SIG_DFL);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed double takes its commands along
    // Like adbd, keep the transport out of the command: a detached program
    // (the recorder) holding the TCP socket would hide a killed double from
    // the host, which then sees no EOF until its own timeout.
    ::close_range(3, ~0U, 0);
    const char* home = ::getenv("HOME");
    if (home && ::chdir(home) != 0) {
    }
    ::execl("/bin/sh", "sh", "-c", s.command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (s.kind == "shell2") {
    s.stdin_fd = in[1];
  } else {
    ::close(in[1]);  // legacy shell: no way to end stdin, so give the child none
  }
  s.pid = pid;
  const uint32_t dev_id = s.dev_id;
  const std::string kind = s.kind;
  int out_fd = out[0], err_fd = err[0];
  std::shared_ptr<Stream> keep;
  {
    std::lock_guard<std::mutex> l(mu_);
    keep = streams_[dev_id];
    children_.push_back(keep);  // joined when the session ends
  }
  s.reader = std::thread([this, keep, dev_id, kind, pid, out_fd, err_fd] {
    pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    int open = 2;
    char buf[64 * 1024];
    while (open > 0) {
      if (::poll(fds, 2, 200) < 0 && errno != EINTR) break;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
        if (n <= 0) {
          ::close(fds[i].fd);
          fds[i].fd = -1;
          --open;
          continue;
        }
        std::string data(buf, static_cast<size_t>(n));
        if (kind == "shell2") {
          data = EncodeShellPacket(i == 0 ? ShellId::kStdout : ShellId::kStderr, data);
        }
        Output(dev_id, std::move(data), false);
      }
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    Output(dev_id,
           kind == "shell2"
               ? EncodeShellPacket(ShellId::kExit, std::string(1, static_cast<char>(code)))
               : std::string(),
           true);
  });
}

void HostAdbdSession::HandleSync(Stream& s) {
  while (true) {
    if (s.recv_fd >= 0) return;  // resumed by Handle(OKAY) once the RECV is queued
    const std::string_view in = std::string_view(s.in).substr(s.in_pos);
    if (in.size() < 8) return;
    const uint32_t id = GetU32(in, 0), len = GetU32(in, 4);
    if (s.in_send) {
      if (id == kSyncData) {
        if (in.size() < 8 + len) return;
        auto write = [&](std::string_view b) -> Status {
          if (s.send_fd >= 0 && ::write(s.send_fd, b.data(), b.size()) != ssize_t(b.size())) {
            ::close(s.send_fd);
            s.send_fd = -1;
          }
          return Status::Ok();
        };
        const std::string_view payload(in.data() + 8, len);
        if (!s.send_decoder) {
          write(payload);
        } else if (Status st = s.send_decoder->Decode(payload, write); !st.ok()) {
          s.send_error = st.message();
          s.send_decoder.reset();
          if (s.send_fd >= 0) ::close(s.send_fd);
          s.send_fd = -1;
        }
        s.in_pos += 8 + len;
      } else if (id == kSyncDone) {
        s.in_pos += 8;
        s.in_send = false;
        std::string r;
        if (s.send_decoder && s.send_fd >= 0) {
          if (Status st = s.send_decoder->Finish(); !st.ok()) {
            s.send_error = st.message();
            ::close(s.send_fd);
            s.send_fd = -1;
          }
        }
        s.send_decoder.reset();
        if (s.send_fd < 0) {
          r = SyncFail(s.send_error.empty() ? "write failed: " + s.send_path : s.send_error);
          s.send_error.clear();
        } else {
          ::fchmod(s.send_fd, s.send_mode & 07777);
          ::close(s.send_fd);
          s.send_fd = -1;
          timeval times[2] = {{static_cast<time_t>(len), 0}, {static_cast<time_t>(len), 0}};
          ::utimes(s.send_path.c_str(), times);
          PutU32(r, kSyncOkay);
          PutU32(r, 0);
        }
        Output(s.dev_id, r, false);
      } else {
        return;
      }
      continue;
    }
    if (in.size() < 8 + len) return;
    // SND2/RCV2 carry a setup message (same id) right after the path: mode + flags / flags.
    const size_t setup = id == kSyncSnd2 ? 12 : id == kSyncRcv2 ? 8 : 0;
    if (in.size() < 8 + len + setup) return;
    std::string path(in.substr(8, len));
    const uint32_t setup_mode = id == kSyncSnd2 ? GetU32(in, 8 + len + 4) : 0;
    const uint32_t flags = setup ? GetU32(in, 8 + len + setup - 4) : 0;
    s.in_pos += 8 + len + setup;
    std::string r;
    // Accept exactly one codec bit (or none); dry-run is not implemented here.
    auto codec_of = [](uint32_t f) -> Result<SyncCompression> {
      for (SyncCompression c : {SyncCompression::kNone, SyncCompression::kBrotli,
                                SyncCompression::kLz4, SyncCompression::kZstd}) {
        if (f == static_cast<uint32_t>(c)) return c;
      }
      return ErrorStatus("unsupported sync flags " + std::to_string(f));
    };
    if (id == kSyncStat) {
      struct stat st {};
      bool ok = ::stat(path.c_str(), &st) == 0;
      PutU32(r, kSyncStat);
      PutU32(r, ok ? st.st_mode : 0);
      PutU32(r, ok ? static_cast<uint32_t>(st.st_size) : 0);
      PutU32(r, ok ? static_cast<uint32_t>(st.st_mtime) : 0);
    } else if (id == kSyncSta2 || id == kSyncLst2) {
      r = Stat2(id, path, id == kSyncSta2);
    } else if (id == kSyncList || id == kSyncLis2) {
      if (DIR* d = ::opendir(path.c_str())) {
        while (dirent* e = ::readdir(d)) {
          std::string name = e->d_name;
          std::string full = path + "/" + name;
          if (id == kSyncList) {
            struct stat st {};
            ::lstat(full.c_str(), &st);
            PutU32(r, kSyncDent);
            PutU32(r, st.st_mode);
            PutU32(r, static_cast<uint32_t>(st.st_size));
            PutU32(r, static_cast<uint32_t>(st.st_mtime));
          } else {
            r += Stat2(kSyncDnt2, full, false);
          }
          PutU32(r, static_cast<uint32_t>(name.size()));
          r += name;
        }
        ::closedir(d);
      }
      PutU32(r, kSyncDone);
      r.append(id == kSyncList ? 16 : 72, '\0');
    } else if (id == kSyncSend || id == kSyncSnd2) {
      if (id == kSyncSend) {
        const size_t comma = path.rfind(',');
        s.send_path = path.substr(0, comma);
        s.send_mode = comma == std::string::npos ? 0644 : std::stoul(path.substr(comma + 1));
      } else {
        s.send_path = path;
        s.send_mode = setup_mode;
        auto codec = codec_of(flags);
        auto dec = codec.ok() ? MakeSyncDecoder(*codec)
                              : Result<std::unique_ptr<SyncDecoder>>(codec.status());
        if (dec.ok()) {
          s.send_decoder = std::move(*dec);
        } else {
          s.send_error = dec.status().message();
        }
      }
      std::error_code ec;
      std::filesystem::create_directories(std::filesystem::path(s.send_path).parent_path(), ec);
      s.send_fd = s.send_error.empty()
                      ? ::open(s.send_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)
                      : -1;
      s.in_send = true;
    } else if (id == kSyncRecv || id == kSyncRcv2) {
      int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      auto codec = codec_of(flags);
      auto enc = codec.ok() ? MakeSyncEncoder(*codec)
                            : Result<std::unique_ptr<SyncEncoder>>(codec.status());
      if (fd < 0) {
        r = SyncFail(std::string(std::strerror(errno)));
      } else if (!enc.ok()) {
        ::close(fd);
        r = SyncFail(enc.status().message());
      } else {
        std::lock_guard<std::mutex> l(mu_);
        s.recv_fd = fd;
        s.recv_encoder = std::move(*enc);
        if (s.out.empty()) ProduceRecv(s);
        Pump(s);
      }
    } else if (id == kSyncQuit) {
      Output(s.dev_id, std::string(), true);
      return;
    }
    if (!r.empty()) Output(s.dev_id, std::move(r), false);
  }
}

void HostAdbdSession::Output(uint32_t dev_id, std::string bytes, bool then_close) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = streams_.find(dev_id);
  if (it == streams_.end()) return;
  Stream& s = *it->second;
  for (size_t at = 0; at < bytes.size(); at += max_payload_) {
    s.out.push_back(bytes.substr(at, max_payload_));
  }
  if (then_close) s.close_when_flushed = true;
  Pump(s);
}

void HostAdbdSession::Pump(Stream& s) {
  if (delayed_ack_) {
    // Windowed: send while the host's window is open (may overshoot by one message).
    while (s.host_window > 0 && !s.out.empty()) {
      s.host_window -= static_cast<int64_t>(s.out.front().size());
      Send(Message::Make(kCmdWrte, s.dev_id, s.host_id, s.out.front()));
      s.out.pop_front();
      if (s.out.empty()) ProduceRecv(s);
    }
  } else if (s.host_ready && !s.out.empty()) {
    s.host_ready = false;  // one unacknowledged WRTE at a time
    Send(Message::Make(kCmdWrte, s.dev_id, s.host_id, s.out.front()));
    s.out.pop_front();
    // Read the next piece of a RECV while the host has this one (adbd's sync service runs
    // ahead of the transport the same way).
    if (s.out.empty()) ProduceRecv(s);
  }
  if (s.out.empty() && s.close_when_flushed && (s.host_ready || delayed_ack_)) {
    const uint32_t dev = s.dev_id, host = s.host_id;
    s.close_when_flushed = false;
    Send(Message::Make(kCmdClse, dev, host));
    auto it = streams_.find(dev);
    if (it != streams_.end()) streams_.erase(it);
  }
}

void HostAdbdSession::ProduceRecv(Stream& s) {
  if (s.recv_fd < 0) return;
  // DATA payloads carry the (possibly compressed) stream in pieces of ≤ 64 KiB; one WRTE's
  // worth (max payload) is queued at a time.
  std::string r;
  auto emit = [&](bool all) {
    size_t at = 0;
    while (s.recv_pending.size() - at >= kSyncDataMax || (all && at < s.recv_pending.size())) {
      const size_t n = std::min(kSyncDataMax, s.recv_pending.size() - at);
      r += EncodeSyncRequest(kSyncData, std::string_view(s.recv_pending).substr(at, n));
      at += n;
    }
    s.recv_pending.erase(0, at);
  };
  auto sink = [&](std::string_view b) -> Status {
    s.recv_pending.append(b);
    emit(false);
    return Status::Ok();
  };
  std::string chunk(kSyncDataMax, '\0');
  while (r.size() < max_payload_) {
    ssize_t n = ::read(s.recv_fd, chunk.data(), chunk.size());
    if (n < 0) n = 0;
    s.recv_encoder->Encode(std::string_view(chunk.data(), size_t(n)), n == 0, sink);
    if (n == 0) {
      emit(true);
      ::close(s.recv_fd);
      s.recv_fd = -1;
      s.recv_encoder.reset();
      PutU32(r, kSyncDone);
      PutU32(r, 0);
      break;
    }
  }
  for (size_t at = 0; at < r.size(); at += max_payload_) {
    s.out.push_back(r.substr(at, max_payload_));
  }
}

HostAdbdServer::HostAdbdServer(uint16_t port, HostAdbdOptions options)
    : options_(std::move(options)) {
  auto l = Listener::Listen(port);
  if (!l.ok()) return;
  listener_ = std::move(*l);
  port_ = listener_.port();
  ok_ = true;
  thread_ = std::thread([this] {
    while (!cancel_.cancelled()) {
      auto sock = listener_.Accept(Deadline::After(Millis(200)), cancel_);
      if (!sock.ok()) continue;
      auto t = std::make_unique<TcpTransport>(std::move(*sock), "test-adbd");
      std::lock_guard<std::mutex> lock(mu_);
      std::erase_if(sessions_, [](const auto& s) { return s->finished(); });
      sessions_.push_back(std::make_unique<HostAdbdSession>(std::move(t), options_));
    }
  });
}

HostAdbdServer::~HostAdbdServer() {
  cancel_.Cancel();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  sessions_.clear();
}

}  // namespace fathom::adb::testing
