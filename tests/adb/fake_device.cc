#include "fake_device.h"

#include <condition_variable>
#include <random>

#include "adb/shell_protocol.h"
#include "adb/sync_protocol.h"
#include "adb/tcp_transport.h"

namespace fathom::adb::testing {
namespace {

// One direction of the in-memory pipe.
struct Channel {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::string> queue;
  bool closed = false;
};

class PipeTransport : public Transport {
 public:
  PipeTransport(std::shared_ptr<Channel> in, std::shared_ptr<Channel> out,
                std::shared_ptr<WireLog> log)
      : in_(std::move(in)), out_(std::move(out)), log_(std::move(log)) {}
  ~PipeTransport() override { Close(); }

  Status Send(const Message& m, uint32_t version, Deadline, const CancelToken&) override {
    std::string bytes = EncodeMessage(m, version);
    if (log_) {
      std::lock_guard<std::mutex> l(log_->mu);
      log_->messages.push_back(bytes);
    }
    std::lock_guard<std::mutex> l(out_->mu);
    if (out_->closed) return ErrorStatus("pipe closed");
    out_->queue.push_back(std::move(bytes));
    out_->cv.notify_all();
    return Status::Ok();
  }

  Result<Message> Receive(uint32_t max_payload, Deadline deadline,
                          const CancelToken& cancel) override {
    std::unique_lock<std::mutex> l(in_->mu);
    while (in_->queue.empty()) {
      if (in_->closed) return ErrorStatus("pipe closed");
      if (cancel.cancelled()) return ErrorStatus("cancelled");
      if (deadline.expired()) return ErrorStatus("timed out");
      in_->cv.wait_for(l, deadline.Remaining(kPollSlice));
    }
    std::string bytes = std::move(in_->queue.front());
    in_->queue.pop_front();
    auto h = DecodeHeader(bytes, max_payload);
    if (!h.ok()) return h.status();
    if (bytes.size() != kHeaderSize + h->data_length) return ErrorStatus("pipe: bad length");
    return Message{h->command, h->arg0, h->arg1, bytes.substr(kHeaderSize)};
  }

  void Close() override {
    for (auto* c : {in_.get(), out_.get()}) {
      std::lock_guard<std::mutex> l(c->mu);
      c->closed = true;
      c->cv.notify_all();
    }
  }
  std::string Describe() const override { return "pipe"; }

 private:
  std::shared_ptr<Channel> in_, out_;
  std::shared_ptr<WireLog> log_;
};

std::string StripNul(std::string s) {
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

}  // namespace

std::pair<std::unique_ptr<Transport>, std::unique_ptr<Transport>> MakePipe(
    std::shared_ptr<WireLog> host_log) {
  auto a = std::make_shared<Channel>(), b = std::make_shared<Channel>();
  return {std::make_unique<PipeTransport>(a, b, host_log),
          std::make_unique<PipeTransport>(b, a, nullptr)};
}

struct FakeDevice::Stream {
  uint32_t host_id = 0, dev_id = 0;
  std::string kind;  // shell2, shell1, exec, sync
  std::string command;
  std::string in;               // unparsed input
  std::string stdin_data;       // shell v2 stdin collected so far
  std::deque<std::string> out;  // WRTE payloads waiting
  bool host_ready = true;       // the host acknowledged our last WRTE
  bool close_when_flushed = false;
  // sync SEND in progress
  bool in_send = false;
  std::string send_path;
  FakeFile send_file;
};

FakeDevice::FakeDevice(std::unique_ptr<Transport> transport, FakeDeviceOptions options)
    : transport_(std::move(transport)), options_(std::move(options)) {
  thread_ = std::thread([this] { Run(); });
}

FakeDevice::~FakeDevice() { Stop(); }

void FakeDevice::Stop() {
  cancel_.Cancel();
  transport_->Close();
  if (thread_.joinable()) thread_.join();
}

void FakeDevice::PutFile(const std::string& path, FakeFile f) {
  std::lock_guard<std::mutex> l(mu_);
  files_[path] = std::move(f);
}
bool FakeDevice::GetFile(const std::string& path, FakeFile* f) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = files_.find(path);
  if (it == files_.end()) return false;
  *f = it->second;
  return true;
}
std::vector<std::string> FakeDevice::services() {
  std::lock_guard<std::mutex> l(mu_);
  return services_;
}
std::vector<std::string> FakeDevice::public_keys() {
  std::lock_guard<std::mutex> l(mu_);
  return public_keys_;
}

void FakeDevice::Run() {
  while (!cancel_.cancelled()) {
    // Before CNXN the limit is unknown; accept up to the big one.
    auto m = transport_->Receive(kMaxPayload, Deadline::Never(), cancel_);
    if (!m.ok()) return;
    Handle(*m);
  }
}

void FakeDevice::Send(const Message& m) {
  transport_->Send(m, version_, Deadline::After(Millis(5000)), cancel_);
}

void FakeDevice::SendToken() {
  std::random_device rd;
  token_.assign(kAuthTokenSize, '\0');
  for (char& c : token_) c = static_cast<char>(rd());
  Send(Message::Make(kCmdAuth, kAuthToken, 0, token_));
}

void FakeDevice::Handle(const Message& m) {
  switch (m.command) {
    case kCmdCnxn:
      // A host CNXN resets everything, like adbd.
      streams_.clear();
      version_ = std::min(options_.version, m.arg0);
      max_payload_ = std::min(options_.max_payload, m.arg1);
      if (options_.require_auth && !authed_) {
        SendToken();
      } else {
        Send(Message::Make(kCmdCnxn, options_.version, options_.max_payload, options_.banner));
      }
      return;
    case kCmdAuth:
      if (m.arg0 == kAuthSignature) {
        ++signatures_;
        for (const auto& k : options_.trusted) {
          if (k.VerifyToken(token_, m.payload)) authed_ = true;
        }
        if (authed_) {
          Send(Message::Make(kCmdCnxn, options_.version, options_.max_payload, options_.banner));
        } else {
          SendToken();
        }
      } else if (m.arg0 == kAuthRsaPublicKey) {
        {
          std::lock_guard<std::mutex> l(mu_);
          public_keys_.push_back(m.payload);
        }
        if (options_.accept_public_key && AuthPublicKey::FromAndroidText(m.payload).ok()) {
          authed_ = true;
          Send(Message::Make(kCmdCnxn, options_.version, options_.max_payload, options_.banner));
        }
      }
      return;
    case kCmdOpen:
      OnOpen(m.arg0, StripNul(m.payload));
      return;
    case kCmdOkay: {
      auto it = streams_.find(m.arg1);
      if (it == streams_.end()) return;
      it->second->host_ready = true;
      Pump(*it->second);
      return;
    }
    case kCmdWrte: {
      auto it = streams_.find(m.arg1);
      if (it == streams_.end()) return;
      Send(Message::Make(kCmdOkay, it->second->dev_id, it->second->host_id));
      OnData(*it->second, m.payload);
      return;
    }
    case kCmdClse: {
      auto it = streams_.find(m.arg1);
      if (it == streams_.end()) return;
      Send(Message::Make(kCmdClse, it->second->dev_id, it->second->host_id));
      streams_.erase(it);
      return;
    }
  }
}

void FakeDevice::OnOpen(uint32_t host_id, std::string service) {
  {
    std::lock_guard<std::mutex> l(mu_);
    services_.push_back(service);
  }
  auto s = std::make_unique<Stream>();
  s->host_id = host_id;
  s->dev_id = next_id_++;
  if (service == "sync:") {
    s->kind = "sync";
  } else if (service.rfind("shell,", 0) == 0 && service.find(":") != std::string::npos) {
    std::string args = service.substr(0, service.find(':'));
    s->kind = args.find(",v2") != std::string::npos ? "shell2" : "shell1";
    s->command = service.substr(service.find(':') + 1);
  } else if (service.rfind("shell:", 0) == 0) {
    s->kind = "shell1";
    s->command = service.substr(6);
  } else if (service.rfind("exec:", 0) == 0) {
    s->kind = "exec";
    s->command = service.substr(5);
  } else {
    Send(Message::Make(kCmdClse, 0, host_id));  // unknown service
    return;
  }
  Stream& ref = *s;
  streams_[s->dev_id] = std::move(s);
  Send(Message::Make(kCmdOkay, ref.dev_id, ref.host_id));
  // Commands that do not read stdin run right away; "cat" waits for its input.
  if (ref.kind != "sync" && ref.command != "cat") RunShellCommand(ref);
}

void FakeDevice::OnData(Stream& s, const std::string& data) {
  s.in += data;
  if (s.kind == "sync") {
    HandleSync(s);
    return;
  }
  if (s.kind != "shell2") return;
  ShellDecoder dec;
  dec.Feed(s.in);
  size_t used = 0;
  while (auto p = dec.Next()) {
    used += 5 + p->data.size();
    if (p->id == ShellId::kStdin) s.stdin_data += p->data;
    if (p->id == ShellId::kCloseStdin && s.command == "cat") {
      RunShellCommand(s);  // may finish and erase the stream: s is not to be touched after
      return;
    }
  }
  s.in.erase(0, used);
}

void FakeDevice::RunShellCommand(Stream& s) {
  std::string out, err;
  int code = 0;
  const std::string& c = s.command;
  if (c.rfind("echo ", 0) == 0) {
    out = c.substr(5) + "\n";
  } else if (c == "cat") {
    out = s.stdin_data;
  } else if (c.rfind("fail ", 0) == 0) {
    err = "failing\n";
    code = std::stoi(c.substr(5));
  } else if (c.rfind("big ", 0) == 0) {
    size_t n = std::stoul(c.substr(4));
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<char>('a' + i % 26));
  } else {
    err = "/system/bin/sh: " + c + ": inaccessible or not found\n";
    code = 127;
  }
  if (s.kind == "shell2") {
    std::string bytes;
    if (!out.empty()) bytes += EncodeShellPacket(ShellId::kStdout, out);
    if (!err.empty()) bytes += EncodeShellPacket(ShellId::kStderr, err);
    bytes += EncodeShellPacket(ShellId::kExit, std::string(1, static_cast<char>(code)));
    Output(s, bytes);
  } else {
    Output(s, out + err);  // v1/exec: merged, no exit code
  }
  s.close_when_flushed = true;
  Pump(s);
}

void FakeDevice::HandleSync(Stream& s) {
  auto stat_v2 = [&](uint32_t id, const FakeFile* f, bool dir) {
    std::string r;
    PutU32(r, id);
    PutU32(r, f || dir ? 0 : 2);  // ENOENT
    PutU64(r, 1);                 // dev
    PutU64(r, 42);                // ino
    PutU32(r, dir ? 040755 : f ? f->mode : 0);
    PutU32(r, 1);     // nlink
    PutU32(r, 2000);  // uid
    PutU32(r, 2000);  // gid
    PutU64(r, f ? f->data.size() : 0);
    PutU64(r, f ? f->mtime : 0);  // atime
    PutU64(r, f ? f->mtime : 0);  // mtime
    PutU64(r, f ? f->mtime : 0);  // ctime
    return r;
  };
  auto is_dir = [&](const std::string& path) {
    std::lock_guard<std::mutex> l(mu_);
    std::string prefix = path.ends_with("/") ? path : path + "/";
    for (auto& [p, f] : files_) {
      if (p.rfind(prefix, 0) == 0) return true;
    }
    return path == "/" || path == "/data/local/tmp" || path == "/data/local/tmp/";
  };
  while (true) {
    if (s.in.size() < 8) return;
    uint32_t id = GetU32(s.in, 0), len = GetU32(s.in, 4);
    if (s.in_send) {
      if (id == kSyncData) {
        if (s.in.size() < 8 + len) return;
        s.send_file.data += s.in.substr(8, len);
        s.in.erase(0, 8 + len);
      } else if (id == kSyncDone) {
        s.send_file.mtime = len;
        s.in.erase(0, 8);
        s.in_send = false;
        PutFile(s.send_path, s.send_file);
        std::string r;
        PutU32(r, kSyncOkay);
        PutU32(r, 0);
        Output(s, r);
      } else {
        return;  // protocol error; stop parsing
      }
      continue;
    }
    if (s.in.size() < 8 + len) return;
    std::string path = s.in.substr(8, len);
    s.in.erase(0, 8 + len);
    FakeFile f;
    bool have = GetFile(path, &f);
    bool dir = !have && is_dir(path);
    std::string r;
    if (id == kSyncStat) {
      PutU32(r, kSyncStat);
      PutU32(r, have ? f.mode : dir ? 040755 : 0);
      PutU32(r, have ? static_cast<uint32_t>(f.data.size()) : 0);
      PutU32(r, have ? f.mtime : 0);
    } else if (id == kSyncSta2 || id == kSyncLst2) {
      r = stat_v2(id, have ? &f : nullptr, dir);
    } else if (id == kSyncList || id == kSyncLis2) {
      std::string prefix = path.ends_with("/") ? path : path + "/";
      std::lock_guard<std::mutex> l(mu_);
      for (auto& [p, file] : files_) {
        if (p.rfind(prefix, 0) != 0 || p.find('/', prefix.size()) != std::string::npos) continue;
        std::string name = p.substr(prefix.size());
        if (id == kSyncList) {
          PutU32(r, kSyncDent);
          PutU32(r, file.mode);
          PutU32(r, static_cast<uint32_t>(file.data.size()));
          PutU32(r, file.mtime);
        } else {
          r += stat_v2(kSyncDnt2, &file, false);
        }
        PutU32(r, static_cast<uint32_t>(name.size()));
        r += name;
      }
      PutU32(r, kSyncDone);
      r.append(id == kSyncList ? 16 : 72, '\0');  // DONE is as long as an entry
    } else if (id == kSyncSend) {
      size_t comma = path.rfind(',');
      s.send_path = path.substr(0, comma);
      s.send_file = FakeFile{};
      s.send_file.mode = comma == std::string::npos ? 0100644 : std::stoul(path.substr(comma + 1));
      s.in_send = true;
    } else if (id == kSyncRecv) {
      if (!have) {
        r = EncodeSyncRequest(kSyncFail, "No such file or directory");
      } else {
        size_t at = 0;
        do {
          r += EncodeSyncRequest(kSyncData, f.data.substr(at, kSyncDataMax));
          at += kSyncDataMax;
        } while (at < f.data.size());
        PutU32(r, kSyncDone);
        PutU32(r, 0);
      }
    } else if (id == kSyncQuit) {
      s.close_when_flushed = true;
      Pump(s);
      return;
    }
    if (!r.empty()) Output(s, r);
  }
}

void FakeDevice::Output(Stream& s, const std::string& bytes) {
  size_t chunk = options_.max_wrte ? options_.max_wrte : max_payload_;
  for (size_t at = 0; at < bytes.size(); at += chunk) s.out.push_back(bytes.substr(at, chunk));
  Pump(s);
}

void FakeDevice::Pump(Stream& s) {
  if (s.host_ready && !s.out.empty()) {
    s.host_ready = false;  // one unacknowledged WRTE at a time
    Send(Message::Make(kCmdWrte, s.dev_id, s.host_id, s.out.front()));
    s.out.pop_front();
  }
  if (s.out.empty() && s.close_when_flushed) {
    // Final WRTE and CLSE back to back, which real hosts accept (spec §6).
    uint32_t dev = s.dev_id, host = s.host_id;
    s.close_when_flushed = false;
    Send(Message::Make(kCmdClse, dev, host));
    streams_.erase(dev);  // s is gone now
  }
}

FakeDeviceServer::FakeDeviceServer(FakeDeviceOptions options) : options_(std::move(options)) {
  auto l = Listener::Listen(0);
  if (!l.ok()) return;
  listener_ = std::move(*l);
  port_ = listener_.port();
  thread_ = std::thread([this] {
    while (!cancel_.cancelled()) {
      auto sock = listener_.Accept(Deadline::After(Millis(200)), cancel_);
      if (!sock.ok()) continue;
      auto t = std::make_unique<TcpTransport>(std::move(*sock), "fake");
      std::lock_guard<std::mutex> lock(mu_);
      devices_.push_back(std::make_unique<FakeDevice>(std::move(t), options_));
    }
  });
}

FakeDeviceServer::~FakeDeviceServer() {
  cancel_.Cancel();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  devices_.clear();
}

FakeDevice* FakeDeviceServer::last_device() {
  std::lock_guard<std::mutex> lock(mu_);
  return devices_.empty() ? nullptr : devices_.back().get();
}

}  // namespace fathom::adb::testing
