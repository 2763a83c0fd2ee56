#include "hostile_adbd.h"

#include <chrono>
#include <cstdlib>
#include <optional>
#include <random>
#include <string_view>

#include "adb/message.h"

namespace fathom::adb::testing {
namespace {

constexpr uint32_t kDev = 7777;  // the device's id for every stream, as in hostile_adbd.py
constexpr uint64_t kFileSize = 3 * 1024 * 1024;
constexpr uint32_t kModeDir = 040755, kModeFile = 0100644;

std::string U32(uint32_t v) {
  std::string s;
  PutU32(s, v);
  return s;
}

std::string ShellFrame(uint8_t id, std::string_view data) {
  return std::string(1, static_cast<char>(id)) + U32(static_cast<uint32_t>(data.size())) +
         std::string(data);
}

// error, dev, ino, mode, nlink, uid, gid, size, atime, mtime, ctime after the id.
std::string StatV2Body(uint32_t mode, uint64_t size, uint32_t error) {
  std::string s = U32(error);
  PutU64(s, 1);
  PutU64(s, 2);
  PutU32(s, mode);
  PutU32(s, 1);
  PutU32(s, 0);
  PutU32(s, 0);
  PutU64(s, size);
  for (int i = 0; i < 3; ++i) PutU64(s, 0);
  return s;
}

std::string RandomBytes(size_t n) {
  static std::mt19937 rng(std::random_device{}());
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// One connection: raw adb messages on a socket, with the stream helpers the modes share.
class Conn {
 public:
  Conn(Socket sock, const CancelToken& cancel) : sock_(std::move(sock)), cancel_(cancel) {}

  // A message whose length, checksum or magic may lie.
  bool Send(uint32_t cmd, uint32_t a0, uint32_t a1, std::string_view data = {},
            std::optional<uint32_t> length = {}, std::optional<uint32_t> check = {},
            std::optional<uint32_t> magic = {}) {
    std::string m =
        U32(cmd) + U32(a0) + U32(a1) + U32(length ? *length : static_cast<uint32_t>(data.size())) +
        U32(check ? *check : PayloadChecksum(data)) + U32(magic ? *magic : cmd ^ 0xffffffffu);
    return SendRaw(m + std::string(data));
  }
  bool SendRaw(std::string_view bytes) {
    return sock_.SendAll(bytes, Deadline::Never(), cancel_).ok();
  }
  std::optional<Message> Recv() {
    char h[kHeaderSize];
    if (!sock_.RecvExact(h, kHeaderSize, Deadline::Never(), cancel_).ok()) return std::nullopt;
    auto header = DecodeHeader(std::string_view(h, kHeaderSize), kMaxPayload);
    if (!header.ok()) return std::nullopt;
    Message m{header->command, header->arg0, header->arg1, std::string(header->data_length, '\0')};
    if (!sock_.RecvExact(m.payload.data(), m.payload.size(), Deadline::Never(), cancel_).ok()) {
      return std::nullopt;
    }
    return m;
  }
  // Waits for the host's OKAY to our last WRTE, acknowledging its WRTEs meanwhile. False when
  // the host closed the stream or the connection.
  bool WaitOk(uint32_t lid) {
    while (auto m = Recv()) {
      if (m->command == kCmdOkay && m->arg0 == lid) return true;
      if (m->command == kCmdWrte) {
        inbox_ += m->payload;
        Send(kCmdOkay, kDev, m->arg0);
      } else if (m->command == kCmdClse && m->arg0 == lid) {
        return false;
      }
    }
    return false;
  }
  bool Write(uint32_t lid, std::string_view data, bool wait = true) {
    if (!Send(kCmdWrte, kDev, lid, data)) return false;
    return !wait || WaitOk(lid);
  }
  // `data` in WRTEs of at most 1 MiB, each acknowledged.
  bool WriteAll(uint32_t lid, std::string_view data) {
    for (size_t at = 0; at < data.size(); at += kMaxPayload) {
      if (!Write(lid, data.substr(at, kMaxPayload))) return false;
    }
    return true;
  }
  // n bytes of the host's stream data.
  std::optional<std::string> ReadHost(size_t n, uint32_t lid) {
    while (inbox_.size() < n) {
      auto m = Recv();
      if (!m) return std::nullopt;
      if (m->command == kCmdWrte) {
        inbox_ += m->payload;
        Send(kCmdOkay, kDev, m->arg0);
      } else if (m->command == kCmdClse && m->arg0 == lid) {
        return std::nullopt;
      }
    }
    std::string out = inbox_.substr(0, n);
    inbox_.erase(0, n);
    return out;
  }
  // Reads and drops whatever the host sends until it hangs up: the "sleep" of the Python
  // double, but ending with the client instead of after an hour.
  void Linger() {
    while (Recv()) {
    }
  }
  void ClearInbox() { inbox_.clear(); }

 private:
  Socket sock_;
  CancelToken cancel_;
  std::string inbox_;
};

class Session {
 public:
  Session(Conn& c, const std::string& mode, const HostileOptions& o) : c_(c), m_(mode), o_(o) {}
  void Run();

 private:
  std::string Banner(std::string_view extra = {}) const {
    return "device::ro.product.name=hostile;ro.product.model=Hostile;ro.product.device=hostile;"
           "features=" +
           o_.features + std::string(extra);
  }
  bool Handshake();
  bool HandshakeAuth();
  bool ServeStream(uint32_t lid, const std::string& service);
  bool Flood(uint32_t lid);
  bool ServeShell(uint32_t lid, const std::string& service);
  bool ServeSync(uint32_t lid);
  std::string Listing(const std::string& rid, const std::string& path);
  bool ServeRecv(uint32_t lid);

  Conn& c_;
  const std::string& m_;
  const HostileOptions& o_;
  int served_list_ = 0;
};

void Session::Run() {
  if (!Handshake()) return;
  while (auto m = c_.Recv()) {
    if (m->command != kCmdOpen) continue;
    std::string service = m->payload;
    while (!service.empty() && service.back() == '\0') service.pop_back();
    if (!ServeStream(m->arg0, service)) return;
    if (m_ == "pull_close_mid") return;
  }
}

bool Session::Handshake() {
  if (!c_.Recv()) return false;  // the host's CNXN
  constexpr uint32_t kV = 0x01000001, kMax = 1u << 20;
  if (m_ == "silent") return c_.Linger(), false;
  if (m_ == "close_after_cnxn") return false;
  if (m_ == "bad_magic") {
    c_.Send(kCmdCnxn, kV, kMax, Banner(), {}, {}, 0x12345678);
    return c_.Linger(), false;
  }
  if (m_ == "bad_checksum_v1") return c_.Send(kCmdCnxn, 0x01000000, kMax, Banner(), {}, 0xdeadbeef);
  if (m_ == "cnxn_banner_1mb") {
    return c_.Send(kCmdCnxn, kV, kMax, Banner(";x=" + std::string((1 << 20) - 200, 'A')));
  }
  if (m_ == "cnxn_banner_claims_16mb") {
    c_.Send(kCmdCnxn, kV, kMax, Banner(), 16u << 20);
    c_.SendRaw(std::string(64 << 10, 'B'));
    return c_.Linger(), false;
  }
  if (m_ == "cnxn_banner_weird") {
    return c_.Send(kCmdCnxn, kV, kMax,
                   "device:" + std::string(1000, ':') + std::string(1000, ';') +
                       std::string(1000, '=') + "features=" + std::string(3000, ','));
  }
  if (m_ == "cnxn_zero_maxdata") return c_.Send(kCmdCnxn, kV, 0, Banner());
  if (m_ == "cnxn_tiny_maxdata") return c_.Send(kCmdCnxn, kV, 1, Banner());
  if (StartsWith(m_, "auth_") || m_ == "stls") return HandshakeAuth();
  return c_.Send(kCmdCnxn, kV, kMax, Banner());
}

bool Session::HandshakeAuth() {
  if (m_ == "auth_loop") {  // a new token after every message of the host
    c_.Send(kCmdAuth, kAuthToken, 0, RandomBytes(kAuthTokenSize));
    while (c_.Recv()) c_.Send(kCmdAuth, kAuthToken, 0, RandomBytes(kAuthTokenSize));
    return false;
  }
  if (m_ == "auth_token_flood") {  // a token every millisecond for 200 s
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(200);
    while (std::chrono::steady_clock::now() < end &&
           c_.Send(kCmdAuth, kAuthToken, 0, RandomBytes(kAuthTokenSize))) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }
  if (m_ == "auth_bad_token_size") {
    c_.Send(kCmdAuth, kAuthToken, 0, RandomBytes(4000));
  } else {  // stls
    c_.Send(kCmdStls, 0x01000000, 0);
  }
  return c_.Linger(), false;
}

bool Session::Flood(uint32_t lid) {
  if (m_ == "wrte_unknown_ids") {
    for (uint32_t i = 0; i < 20000; ++i) {
      if (!c_.Send(kCmdWrte, 5000 + i, 9999 + i, "junk")) return false;
    }
  } else if (m_ == "okay_flood") {
    for (uint32_t i = 0; i < 200000; ++i) {
      if (!c_.Send(kCmdOkay, kDev, i % 2 ? lid : 4242)) return false;
    }
  } else if (m_ == "clse_unknown_flood") {
    for (uint32_t i = 0; i < 100000; ++i) {
      if (!c_.Send(kCmdClse, 1 + i, 100000 + i)) return false;
    }
  }
  return true;
}

bool Session::ServeStream(uint32_t lid, const std::string& service) {
  c_.ClearInbox();
  if (m_ == "open_refused") return c_.Send(kCmdClse, 0, lid);
  if (m_ == "open_no_reply") return c_.Linger(), false;
  if (m_ == "payload_len_gt_max") {
    c_.Send(kCmdOkay, kDev, lid);
    c_.Send(kCmdWrte, kDev, lid, "", 0x7fffffff);
    return c_.Linger(), false;
  }
  if (m_ == "payload_len_max_plus_1") {
    c_.Send(kCmdOkay, kDev, lid);
    c_.Send(kCmdWrte, kDev, lid, std::string((1 << 20) + 1, 'x'));
    return c_.Linger(), false;
  }
  if (!Flood(lid) || !c_.Send(kCmdOkay, kDev, lid)) return false;
  if (StartsWith(service, "shell")) return ServeShell(lid, service);
  if (StartsWith(service, "sync")) return ServeSync(lid);
  return c_.Send(kCmdClse, kDev, lid);
}

bool Session::ServeShell(uint32_t lid, const std::string& service) {
  if (m_ == "shell_frame_4gb") {  // a stdout frame claiming 4 GiB, then gigabytes of it
    if (!c_.Write(lid, std::string(1, '\1') + U32(0xffffffffu))) return false;
    const std::string chunk(1 << 20, 'S');
    for (uint64_t sent = 0; sent < (o_.gigabytes << 30); sent += chunk.size()) {
      if (!c_.Write(lid, chunk)) return false;
    }
    return c_.Send(kCmdClse, kDev, lid);
  }
  if (m_ == "shell_no_exit") {
    c_.Write(lid, ShellFrame(1, "hi\n"));
    return c_.Send(kCmdClse, kDev, lid);
  }
  if (m_ == "shell_flood_no_ack") {  // 1 MiB WRTEs without waiting for the host's OKAY
    const std::string chunk = ShellFrame(1, std::string((1 << 20) - 5, 'F'));
    for (uint64_t i = 0; i < (o_.count ? o_.count : 2000); ++i) {
      if (!c_.Send(kCmdWrte, kDev, lid, chunk)) return false;
    }
    return c_.Linger(), false;
  }
  if (m_ == "shell_stall") {
    c_.Write(lid, ShellFrame(1, "partial output\n"));
    return c_.Linger(), false;
  }
  if (m_ == "shell_bad_frame_id") {
    c_.Write(lid,
             ShellFrame(99, "???") + ShellFrame(1, "hi\n") + ShellFrame(3, std::string(1, '\0')));
    return c_.Send(kCmdClse, kDev, lid);
  }
  if (service.find("shell,v2") != std::string::npos) {
    c_.Write(lid, ShellFrame(1, "hi\n") + ShellFrame(3, std::string(1, '\0')));
  } else {
    c_.Write(lid, "hi\n");
  }
  return c_.Send(kCmdClse, kDev, lid);
}

std::string Session::Listing(const std::string& rid, const std::string& path) {
  using namespace std::string_literals;
  ++served_list_;
  std::vector<std::pair<std::string, uint32_t>> entries;
  if (m_ == "list_traversal") {
    entries = {{"../escaped.txt", kModeFile},
               {"/tmp/fathom-abs-escape.txt", kModeFile},
               {"..", kModeDir},
               {".", kModeDir},
               {"ok.txt", kModeFile}};
  } else if (m_ == "list_nul_dotdot" || m_ == "list_nul_dotdot_file") {
    if (!EndsWith(path, "..\0"s)) {
      entries = {{"..\0"s, 040777}, {"ok.txt", kModeFile}};
    } else if (m_ == "list_nul_dotdot_file") {
      entries = {{"f.txt", kModeFile}};
    }
  } else if (m_ == "list_empty_name") {
    if (served_list_ < 5000) entries = {{"", kModeDir}};
  } else if (m_ == "list_infinite_depth") {
    entries = {{std::string(200, 'a') + "dir", kModeDir}};
  } else if (m_ == "list_huge") {
    char name[16];
    for (uint64_t i = 0; i < (o_.count ? o_.count : 200000); ++i) {
      std::snprintf(name, sizeof(name), "f%07llu", static_cast<unsigned long long>(i));
      entries.emplace_back(name, 020644);
    }
  } else {
    entries = {{"f.txt", kModeFile}};
  }
  std::string body;
  for (const auto& [name, mode] : entries) {
    // Regular files with the size RECV then sends (hostile_adbd.py lists 10 bytes for every
    // entry), so a test can tell a good file pulled beside the hostile ones.
    const uint32_t size = mode == kModeFile ? kFileSize : 10;
    if (rid == "LIS2") {
      body += "DNT2" + StatV2Body(mode, size, 0);
    } else {
      body += "DENT" + U32(mode) + U32(size) + U32(0);
    }
    body += U32(static_cast<uint32_t>(name.size())) + name;
  }
  return body + "DONE" + std::string(rid == "LIS2" ? 72 : 16, '\0');
}

bool Session::ServeSync(uint32_t lid) {
  using namespace std::string_literals;
  while (true) {
    auto req = c_.ReadHost(8, lid);
    if (!req) return false;
    const std::string rid = req->substr(0, 4);
    std::string path;
    if (rid != "QUIT" && rid != "DONE") {
      auto p = c_.ReadHost(GetU32(*req, 4), lid);
      if (!p) return false;
      path = *p;
    }
    if (rid == "QUIT") return c_.Send(kCmdClse, kDev, lid);
    const bool dir = EndsWith(path, "dir") || path.find("/dir/") != std::string::npos ||
                     EndsWith(path, "dir/") || EndsWith(path, "..\0"s) ||
                     (m_ == "list_empty_name" && EndsWith(path, "/"));
    bool ok;
    if (rid == "STA2" || rid == "LST2") {
      ok = m_ == "stat_enoent"
               ? c_.Write(lid, "STA2" + StatV2Body(0, 0, 2))
               : c_.Write(lid, "STA2" + StatV2Body(dir ? kModeDir : kModeFile,
                                                   dir                     ? 0
                                                   : m_ == "stat_lies_4gb" ? 4ull << 30
                                                                           : kFileSize,
                                                   0));
    } else if (rid == "STAT") {
      ok = c_.Write(lid, "STAT" + U32(dir ? kModeDir : kModeFile) + U32(kFileSize) + U32(0));
    } else if (rid == "LIS2" || rid == "LIST") {
      ok = c_.WriteAll(lid, Listing(rid, path));
    } else if (rid == "RECV" || rid == "RCV2") {
      if (rid == "RCV2" && !c_.ReadHost(8, lid)) return false;
      ok = ServeRecv(lid);
    } else {
      ok = c_.Write(lid, "FAIL" + U32(7) + "unknown");
    }
    if (!ok) return false;
  }
}

// False ends the connection (the mode stops answering or hangs up).
bool Session::ServeRecv(uint32_t lid) {
  const std::string full = "DATA" + U32(65536) + std::string(65536, 'd');
  if (m_ == "sync_data_1gb") {
    c_.Write(lid, "DATA" + U32(1u << 30) + std::string(1000, 'x'));
    return c_.Linger(), false;
  }
  if (m_ == "pull_close_mid") {  // half a DATA, then the connection drops
    c_.Write(lid, full);
    c_.Write(lid, "DATA" + U32(65536) + std::string(30000, 'd'), false);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return false;
  }
  if (m_ == "pull_clse_mid") {
    c_.Write(lid, full);
    c_.Send(kCmdClse, kDev, lid);
    return c_.Linger(), false;
  }
  if (m_ == "pull_stall_mid") {
    c_.Write(lid, full);
    c_.Write(lid, "DATA" + U32(65536) + std::string(1000, 'd'), false);
    return c_.Linger(), false;
  }
  if (m_ == "pull_fail_huge_msg") {
    c_.Write(lid, "FAIL" + U32(0xffffffffu) + std::string(70000, 'm'));
    return c_.Linger(), false;
  }
  if (m_ == "pull_bad_id") {
    c_.Write(lid, "XXXX" + U32(10) + "0123456789");
    return c_.Linger(), false;
  }
  std::string body;
  if (m_ == "pull_many_tiny") {
    body.reserve(300000 * 9 + 8);
    for (int i = 0; i < 300000; ++i) body += "DATA" + U32(1) + "x";
  } else {
    for (uint64_t left = m_ == "stat_lies_4gb" ? 10 : kFileSize; left > 0;) {
      const uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(65536, left));
      body += "DATA" + U32(n) + std::string(n, 'z');
      left -= n;
    }
  }
  return c_.WriteAll(lid, body + "DONE" + U32(0));
}

}  // namespace

const std::vector<std::string>& HostileModes() {
  static const std::vector<std::string> kModes = {"silent",
                                                  "close_after_cnxn",
                                                  "bad_magic",
                                                  "bad_checksum_v1",
                                                  "cnxn_banner_1mb",
                                                  "cnxn_banner_claims_16mb",
                                                  "cnxn_banner_weird",
                                                  "cnxn_zero_maxdata",
                                                  "cnxn_tiny_maxdata",
                                                  "auth_loop",
                                                  "auth_token_flood",
                                                  "auth_bad_token_size",
                                                  "stls",
                                                  "open_refused",
                                                  "open_no_reply",
                                                  "payload_len_gt_max",
                                                  "payload_len_max_plus_1",
                                                  "wrte_unknown_ids",
                                                  "okay_flood",
                                                  "clse_unknown_flood",
                                                  "shell_frame_4gb",
                                                  "shell_no_exit",
                                                  "shell_flood_no_ack",
                                                  "shell_stall",
                                                  "shell_bad_frame_id",
                                                  "stat_enoent",
                                                  "stat_lies_4gb",
                                                  "list_traversal",
                                                  "list_nul_dotdot",
                                                  "list_nul_dotdot_file",
                                                  "list_empty_name",
                                                  "list_infinite_depth",
                                                  "list_huge",
                                                  "sync_data_1gb",
                                                  "pull_close_mid",
                                                  "pull_clse_mid",
                                                  "pull_stall_mid",
                                                  "pull_fail_huge_msg",
                                                  "pull_bad_id",
                                                  "pull_many_tiny"};
  return kModes;
}

bool IsHostileMode(const std::string& mode) {
  for (const std::string& m : HostileModes()) {
    if (m == mode) return true;
  }
  return false;
}

HostileOptions HostileOptions::FromEnvironment() {
  HostileOptions o;
  if (const char* f = std::getenv("HOSTILE_FEATURES"); f && *f) o.features = f;
  if (const char* n = std::getenv("HOSTILE_N"); n && *n) o.count = std::strtoull(n, nullptr, 10);
  if (const char* g = std::getenv("HOSTILE_GB"); g && *g) {
    o.gigabytes = std::strtoull(g, nullptr, 10);
  }
  return o;
}

HostileAdbdServer::HostileAdbdServer(uint16_t port, std::string mode, HostileOptions options)
    : mode_(std::move(mode)), options_(std::move(options)) {
  auto l = Listener::Listen(port);
  if (!l.ok()) return;
  listener_ = std::move(*l);
  port_ = listener_.port();
  ok_ = true;
  accept_thread_ = std::thread([this] {
    while (!cancel_.cancelled()) {
      auto sock = listener_.Accept(Deadline::After(Millis(200)), cancel_);
      if (!sock.ok()) continue;
      std::lock_guard<std::mutex> lock(mu_);
      sessions_.emplace_back([this, s = std::make_shared<Socket>(std::move(*sock))]() mutable {
        Conn conn(std::move(*s), cancel_);
        Session(conn, mode_, options_).Run();
      });
    }
  });
}

HostileAdbdServer::~HostileAdbdServer() {
  cancel_.Cancel();
  if (accept_thread_.joinable()) accept_thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  for (std::thread& t : sessions_) t.join();
}

}  // namespace fathom::adb::testing
