#include "adb/server_client.h"

#include <cstdio>
#include <cstdlib>

namespace fathom::adb {
namespace {

Result<uint32_t> ParseHex4(std::string_view s) {
  uint32_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return ErrorStatus("adb server: bad length field '" + std::string(s) + "'");
    v = v * 16 + static_cast<uint32_t>(d);
  }
  return v;
}

Result<std::string> ReadLengthPrefixed(Socket& s, Deadline d, const CancelToken& c) {
  char len[4];
  if (Status st = s.RecvExact(len, 4, d, c); !st.ok()) return st;
  auto n = ParseHex4(std::string_view(len, 4));
  if (!n.ok()) return n.status();
  std::string body(*n, '\0');
  if (Status st = s.RecvExact(body.data(), body.size(), d, c); !st.ok()) return st;
  return body;
}

// OKAY, or FAIL + hex4 + reason turned into an error.
Status ReadStatus(Socket& s, Deadline d, const CancelToken& c) {
  char st[4];
  if (Status r = s.RecvExact(st, 4, d, c); !r.ok())
    return ErrorStatus("adb server: " + r.message());
  std::string_view tag(st, 4);
  if (tag == "OKAY") return Status::Ok();
  if (tag == "FAIL") {
    auto reason = ReadLengthPrefixed(s, d, c);
    return ErrorStatus("adb server: " + (reason.ok() ? *reason : reason.status().message()));
  }
  return ErrorStatus("adb server: unexpected reply '" + std::string(tag) + "'");
}

}  // namespace

ServerAddress ServerAddress::FromEnvironment() {
  ServerAddress a;
  if (const char* sock = std::getenv("ADB_SERVER_SOCKET"); sock && *sock) {
    std::string_view v(sock);
    if (v.starts_with("tcp:")) {
      v.remove_prefix(4);
      size_t colon = v.rfind(':');
      if (colon != std::string_view::npos) {
        if (colon > 0) a.host = std::string(v.substr(0, colon));
        a.port = static_cast<uint16_t>(std::atoi(std::string(v.substr(colon + 1)).c_str()));
        return a;
      }
    }
  }
  if (const char* port = std::getenv("ANDROID_ADB_SERVER_PORT"); port && *port) {
    int p = std::atoi(port);
    if (p > 0 && p < 65536) a.port = static_cast<uint16_t>(p);
  }
  return a;
}

std::string EncodeSmartRequest(std::string_view request) {
  char len[5];
  std::snprintf(len, sizeof(len), "%04x", static_cast<unsigned>(request.size() & 0xffff));
  return std::string(len) + std::string(request);
}

std::vector<DeviceEntry> ParseDeviceList(std::string_view text) {
  std::vector<DeviceEntry> out;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // Tokens are separated by a tab (devices) or runs of spaces (devices-l padding).
    std::vector<std::string_view> tok;
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      size_t start = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
      if (i > start) tok.push_back(line.substr(start, i - start));
    }
    if (tok.size() < 2) continue;
    DeviceEntry e;
    e.serial = std::string(tok[0]);
    e.state = std::string(tok[1]);
    // "no permissions (...)" states contain spaces; anything without ':' joins the state.
    size_t k = 2;
    for (; k < tok.size() && tok[k].find(':') == std::string_view::npos; ++k) {
      e.state += ' ';
      e.state += tok[k];
    }
    for (; k < tok.size(); ++k) {
      size_t colon = tok[k].find(':');
      if (colon == std::string_view::npos) continue;
      e.attributes[std::string(tok[k].substr(0, colon))] = std::string(tok[k].substr(colon + 1));
    }
    out.push_back(std::move(e));
  }
  return out;
}

Status ServerStream::Write(std::string_view data, Deadline deadline, const CancelToken& cancel) {
  const Deadline ours = WithLimit(deadline, idle_);
  Status s = sock_.SendAll(data, ours, cancel);
  if (!s.ok() && ours.expired() && !deadline.expired() && !cancel.cancelled()) {
    return TimeoutError("the adb server did not take our data", idle_, "--timeout-idle");
  }
  return s;
}

Result<size_t> ServerStream::Read(std::string* out, Deadline deadline, const CancelToken& cancel) {
  if (!pending_.empty()) {
    size_t n = pending_.size();
    out->append(pending_);
    pending_.clear();
    return n;
  }
  // Up to 256 KiB per call (a 64 KiB buffer took four times the syscalls and split nearly
  // every 64 KiB sync DATA record in two; 1 MiB, with *out, no longer fits in a 512 KiB L2),
  // through a buffer that is not cleared first: receiving straight into a resized *out
  // zero-filled it all for each read of often much less.
  if (!read_buffer_) read_buffer_.reset(new char[kReadSize]);
  const Deadline ours = WithLimit(deadline, idle_);
  auto n = sock_.RecvSome(read_buffer_.get(), kReadSize, ours, cancel);
  if (!n.ok() && ours.expired() && !deadline.expired() && !cancel.cancelled()) {
    return TimeoutError("the device (through the adb server) sent nothing", idle_,
                        "--timeout-idle");
  }
  if (!n.ok()) return n.status();
  out->append(read_buffer_.get(), *n);
  return *n;
}

Result<std::vector<DeviceEntry>> DeviceTracker::Next(Deadline deadline, const CancelToken& cancel) {
  auto body = ReadLengthPrefixed(sock_, deadline, cancel);
  if (!body.ok()) return body.status();
  return ParseDeviceList(*body);
}

Result<Socket> ServerClient::Connect(Deadline deadline) {
  auto s = Socket::Connect(address_.host, address_.port, deadline, cancel_);
  if (!s.ok()) {
    return ErrorStatus("adb server not reachable at " + address_.host + ":" +
                       std::to_string(address_.port) + " (" + s.status().message() + ")");
  }
  return s;
}

Result<std::string> ServerClient::Query(const std::string& request) {
  Deadline d = Deadline::After(timeout_);
  auto s = Connect(d);
  if (!s.ok()) return s.status();
  if (Status st = s->SendAll(EncodeSmartRequest(request), d, cancel_); !st.ok()) return st;
  if (Status st = ReadStatus(*s, d, cancel_); !st.ok()) return st;
  return ReadLengthPrefixed(*s, d, cancel_);
}

Result<int> ServerClient::Version() {
  auto body = Query("host:version");
  if (!body.ok()) return body.status();
  auto v = ParseHex4(*body);
  if (!v.ok()) return v.status();
  return static_cast<int>(*v);
}

Result<std::vector<DeviceEntry>> ServerClient::Devices() {
  auto body = Query("host:devices-l");
  if (!body.ok()) return body.status();
  return ParseDeviceList(*body);
}

Result<std::string> ServerClient::Features(const std::string& serial) {
  return Query("host-serial:" + serial + ":features");
}

Result<std::string> ServerClient::GetState(const std::string& serial) {
  return Query("host-serial:" + serial + ":get-state");
}

Result<std::string> ServerClient::ConnectDevice(const std::string& host_port) {
  auto body = Query("host:connect:" + host_port);
  if (!body.ok()) return body;
  for (const char* bad : {"failed", "unable", "cannot"}) {
    if (body->find(bad) != std::string::npos) return ErrorStatus("adb server: " + *body);
  }
  return body;
}

Status ServerClient::DisconnectDevice(const std::string& host_port) {
  auto body = Query("host:disconnect:" + host_port);
  return body.ok() ? Status::Ok() : body.status();
}

Result<DeviceTracker> ServerClient::TrackDevices() {
  Deadline d = Deadline::After(timeout_);
  auto s = Connect(d);
  if (!s.ok()) return s.status();
  if (Status st = s->SendAll(EncodeSmartRequest("host:track-devices"), d, cancel_); !st.ok()) {
    return st;
  }
  if (Status st = ReadStatus(*s, d, cancel_); !st.ok()) return st;
  return DeviceTracker(std::move(*s));
}

Result<std::unique_ptr<ServerStream>> ServerClient::OpenService(const std::string& serial,
                                                                const std::string& service) {
  Deadline d = Deadline::After(timeout_);
  auto s = Connect(d);
  if (!s.ok()) return s.status();
  std::string bind = serial.empty() ? "host:transport-any" : "host:transport:" + serial;
  if (Status st = s->SendAll(EncodeSmartRequest(bind), d, cancel_); !st.ok()) return st;
  if (Status st = ReadStatus(*s, d, cancel_); !st.ok()) return st;
  if (Status st = s->SendAll(EncodeSmartRequest(service), d, cancel_); !st.ok()) return st;
  if (Status st = ReadStatus(*s, d, cancel_); !st.ok()) return st;
  return std::make_unique<ServerStream>(std::move(*s));
}

Status ServerClient::Kill() {
  Deadline d = Deadline::After(timeout_);
  auto s = Connect(d);
  if (!s.ok()) return s.status();
  if (Status st = s->SendAll(EncodeSmartRequest("host:kill"), d, cancel_); !st.ok()) return st;
  return ReadStatus(*s, d, cancel_);
}

}  // namespace fathom::adb
