#include "adb/connection.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "adb/device_names.h"

namespace fathom::adb {

const char* ConnectionStateText(ConnectionState s) {
  switch (s) {
    case ConnectionState::kConnecting:
      return "connecting";
    case ConnectionState::kAuthenticating:
      return "authenticating";
    case ConnectionState::kWaitingForUser:
      return "waiting for authorization: Allow USB debugging on the device";
    case ConnectionState::kOnline:
      return "online";
    case ConnectionState::kClosed:
      return "closed";
  }
  return "?";
}

// ---- AdbStream: thin handle, all state lives in the Connection under its mutex ----

AdbStream::~AdbStream() { Close(); }
Status AdbStream::Write(std::string_view d, Deadline dl, const CancelToken& c) {
  return conn_->StreamWrite(local_id_, d, dl, c);
}
Result<size_t> AdbStream::Read(std::string* out, Deadline dl, const CancelToken& c) {
  return conn_->StreamRead(local_id_, out, dl, c);
}
void AdbStream::Close() { conn_->StreamClose(local_id_); }

// ---- Connection ----

Result<std::shared_ptr<Connection>> Connection::Open(std::unique_ptr<Transport> transport,
                                                     ConnectionOptions options,
                                                     const CancelToken& cancel) {
  if (options.user_info.empty()) options.user_info = DefaultUserInfo();
  std::shared_ptr<Connection> c(new Connection(std::move(transport), std::move(options)));
  if (Status s = c->Handshake(cancel); !s.ok()) {
    c->transport_->Close();
    c->SetState(ConnectionState::kClosed);
    return s;
  }
  c->reader_ = std::thread([raw = c.get()] { raw->ReaderLoop(); });
  return c;
}

Connection::~Connection() {
  Close();
  if (reader_.joinable()) reader_.join();
}

void Connection::Close() {
  Fail(ErrorStatus("connection closed"));
  reader_cancel_.Cancel();
}

ConnectionState Connection::state() const {
  std::lock_guard<std::mutex> l(mu_);
  return state_;
}

Status Connection::close_reason() const {
  std::lock_guard<std::mutex> l(mu_);
  return close_reason_;
}

void Connection::SetState(ConnectionState s) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (state_ == s) return;
    state_ = s;
  }
  if (options_.on_state) options_.on_state(s);
}

Status Connection::Send(const Message& m, Deadline deadline, const CancelToken& cancel) {
  return transport_->Send(m, version_, deadline, cancel);
}

Status Connection::HandshakeTimeout(bool sent_signature, bool sent_public_key) const {
  const std::string device = "device " + transport_->Describe();
  if (sent_public_key) {
    return TimeoutError(device +
                            " is unauthorized: allow USB debugging on the device and try again "
                            "(it was not allowed",
                        options_.user_confirm_timeout, "--timeout-auth)");
  }
  return TimeoutError(device + " did not answer " + (sent_signature ? "AUTH" : "CNXN"),
                      options_.handshake_timeout, "--timeout-connect");
}

Status Connection::Handshake(const CancelToken& cancel) {
  // Each round trip gets its own limit; the count of AUTH tokens bounds the rounds.
  Deadline deadline = WithLimit(Deadline::Never(), options_.handshake_timeout);
  // Before the device's CNXN its version is unknown: fill in checksums (kVersionMin), and
  // keep our own banner under the 4096-byte pre-handshake limit.
  if (const char* env = std::getenv("FATHOM_ADB_DELAYED_ACK"); env && std::string(env) == "1") {
    options_.delayed_ack = true;
  }
  std::set<std::string> features = HostFeatures();
  if (options_.delayed_ack && options_.receive_window > 0) features.insert("delayed_ack");
  Message cnxn = Message::Make(kCmdCnxn, kVersion, options_.max_payload, HostBanner(features));
  if (Status s = transport_->Send(cnxn, kVersionMin, deadline, cancel); !s.ok()) return s;
  SetState(ConnectionState::kConnecting);

  size_t next_key = 0, tokens = 0;
  bool sent_public_key = false;
  while (true) {
    auto m = transport_->Receive(kMaxHandshakePayload, deadline, cancel);
    if (!m.ok()) {
      if (deadline.expired() && !cancel.cancelled()) {
        return HandshakeTimeout(next_key > 0, sent_public_key);
      }
      return ErrorStatus("adb handshake with " + transport_->Describe() + ": " +
                         m.status().message());
    }
    if (m->command == kCmdCnxn) {
      version_ = std::min(kVersion, m->arg0);
      max_payload_ = std::min(options_.max_payload, m->arg1);
      if (max_payload_ == 0) return ErrorStatus("adb: device announced a zero max payload");
      if (max_payload_ < kMinMaxPayload) {
        return ErrorStatus("adb: device announced a max payload of " + std::to_string(m->arg1) +
                           " bytes (real devices use at least " + std::to_string(kMinMaxPayload) +
                           ")");
      }
      banner_ = ParseBanner(m->payload);
      delayed_ack_ = features.count("delayed_ack") > 0 && banner_.Has("delayed_ack");
      SetState(ConnectionState::kOnline);
      return Status::Ok();
    }
    if (m->command == kCmdStls) {
      return ErrorStatus("adb: device wants TLS (wireless debugging), which is not supported yet");
    }
    if (m->command != kCmdAuth || m->arg0 != kAuthToken) continue;  // stale traffic: ignore
    if (m->payload.size() != kAuthTokenSize) {
      return ErrorStatus("adb: bad AUTH token size (" + std::to_string(m->payload.size()) +
                         " bytes, want " + std::to_string(kAuthTokenSize) + ")");
    }
    if (++tokens > options_.keys.size() + kMaxExtraAuthTokens) {
      return ErrorStatus("adb: device " + transport_->Describe() + " sent " +
                         std::to_string(tokens) +
                         " AUTH tokens without accepting a key or waiting for the user (an "
                         "AUTH loop)");
    }
    if (next_key < options_.keys.size()) {
      SetState(ConnectionState::kAuthenticating);
      auto sig = options_.keys[next_key++].SignToken(m->payload);
      if (!sig.ok()) return sig.status();
      Message reply = Message::Make(kCmdAuth, kAuthSignature, 0, std::move(*sig));
      deadline = WithLimit(Deadline::Never(), options_.handshake_timeout);
      if (Status s = transport_->Send(reply, kVersionMin, deadline, cancel); !s.ok()) return s;
    } else if (!sent_public_key) {
      if (options_.keys.empty()) return ErrorStatus("adb: device requires a key and we have none");
      auto pub = options_.keys.front().AndroidPublicKeyText(options_.user_info);
      if (!pub.ok()) return pub.status();
      // The device treats the payload as a C string.
      Message reply = Message::Make(kCmdAuth, kAuthRsaPublicKey, 0, *pub + '\0');
      deadline = WithLimit(Deadline::Never(), options_.handshake_timeout);
      if (Status s = transport_->Send(reply, kVersionMin, deadline, cancel); !s.ok()) return s;
      sent_public_key = true;
      deadline = WithLimit(Deadline::Never(), options_.user_confirm_timeout);
      SetState(ConnectionState::kWaitingForUser);
    }
    // Further tokens after the public key: the user has not decided yet; keep waiting.
  }
}

void Connection::Fail(Status why) {
  {
    std::lock_guard<std::mutex> l(mu_);
    if (state_ == ConnectionState::kClosed) return;
    state_ = ConnectionState::kClosed;
    close_reason_ = std::move(why);
    for (auto& [id, s] : streams_) s.lost = true;
  }
  cv_.notify_all();
  transport_->Close();
  if (options_.on_state) options_.on_state(ConnectionState::kClosed);
}

void Connection::ReaderLoop() {
  while (true) {
    auto m = transport_->Receive(max_payload_, Deadline::Never(), reader_cancel_);
    if (!m.ok()) {
      Fail(ErrorStatus("connection to " + transport_->Describe() +
                       " lost: " + m.status().message()));
      return;
    }
    Dispatch(std::move(*m));
    if (state() == ConnectionState::kClosed) return;
  }
}

Status Connection::EndAfterFailedSend(Status why, bool as_is) {
  // Part of the message may be out: the transport is unusable, so the connection ends. The
  // reason is whichever came first (the reader may have seen the device hang up already),
  // unless `why` is ours to report (cancelled, or one of our limits).
  if (as_is) {
    Fail(why);
    return why;
  }
  Fail(ErrorStatus("connection to " + transport_->Describe() + " lost: " + why.message()));
  return close_reason();
}

Status Connection::CountStray(uint32_t our_id, const Message& m) {
  // Late messages for a stream we closed are normal (data in flight); ids we never handed
  // out are not, and a device sending thousands of them is flooding us.
  if (our_id != 0 && our_id < next_id_) return Status::Ok();
  if (++strays_ <= kMaxStrayMessages) return Status::Ok();
  return ErrorStatus(
      "adb: device sent " + std::to_string(strays_) +
      " messages for streams that were never opened (the last: " + CommandName(m.command) +
      " for stream " + std::to_string(our_id) + "): a flood");
}

void Connection::Dispatch(Message m) {
  // Ids in arg0/arg1 are from the sender's point of view: arg0 is the device's id.
  const uint32_t their_id = m.arg0, our_id = m.arg1;
  std::unique_lock<std::mutex> lock(mu_);
  switch (m.command) {
    case kCmdOkay: {
      auto it = streams_.find(our_id);
      if (it == streams_.end()) {
        if (Status flood = CountStray(our_id, m); !flood.ok()) {
          lock.unlock();
          Fail(std::move(flood));
          return;
        }
        lock.unlock();
        // Unknown stream: tell the device so it frees its side (spec §6).
        Send(Message::Make(kCmdClse, our_id, their_id), Deadline::After(Millis(5000)), {});
        return;
      }
      StreamState& s = it->second;
      if (delayed_ack_) {
        // Every OKAY carries a byte count: the acceptor's window, then bytes consumed.
        if (m.payload.size() != 4) {
          lock.unlock();
          Fail(ErrorStatus("adb: device sent an OKAY without a delayed_ack byte count"));
          return;
        }
        s.send_window += GetU32(m.payload, 0);
      }
      if (!s.opened) {
        s.opened = true;
        s.remote_id = their_id;
      } else if (!delayed_ack_ && s.write_ready && ++s.spare_okays > kMaxStrayMessages) {
        // Nothing of ours to acknowledge, again and again: an OKAY flood.
        lock.unlock();
        Fail(ErrorStatus("adb: device sent " + std::to_string(kMaxStrayMessages + 1) +
                         " OKAYs on '" + s.service + "' with no data of ours to acknowledge"));
        return;
      }
      s.write_ready = true;
      break;
    }
    case kCmdWrte: {
      auto it = streams_.find(our_id);
      if (it == streams_.end()) {
        Status flood = CountStray(our_id, m);
        if (flood.ok()) return;
        lock.unlock();
        Fail(std::move(flood));
        return;
      }
      if (!it->second.opened) return;
      // Without delayed_ack a device sends one WRTE and waits for our OKAY, so the inbox
      // holds one payload; a device that keeps sending ignores flow control (a flood that
      // would otherwise be buffered whole).
      if (!delayed_ack_ && it->second.inbox_bytes + m.payload.size() > 4ull * max_payload_) {
        const std::string service = it->second.service;
        lock.unlock();
        Fail(ErrorStatus("adb: device sent more than " + std::to_string(4ull * max_payload_) +
                         " bytes on '" + service +
                         "' without waiting for our OKAY (it ignores flow control)"));
        return;
      }
      // The device may overshoot its window by one message, not more (spec §7).
      if (delayed_ack_ &&
          it->second.inbox_bytes + m.payload.size() > options_.receive_window + max_payload_) {
        lock.unlock();
        Fail(ErrorStatus("adb: device overran the delayed_ack receive window"));
        return;
      }
      StreamState& s = it->second;
      if (!m.payload.empty()) {  // an empty one would read as end of stream
        s.inbox_bytes += m.payload.size();
        s.inbox.push_back(std::move(m.payload));
      }
      // The OKAY goes out when Read() takes the data (spec §7 flow control). (Acking here,
      // on the reader thread, raced with Read() and lost an OKAY under load: a hang.)
      s.unacked = true;  // acknowledged once Read() takes the data (a send error shows there)
      break;
    }
    case kCmdClse: {
      auto it = streams_.find(our_id);
      if (it == streams_.end()) {  // already gone: a no-op (spec §6), unless a flood
        Status flood = CountStray(our_id, m);
        if (flood.ok()) return;
        lock.unlock();
        Fail(std::move(flood));
        return;
      }
      StreamState& s = it->second;
      // CLSE(0, L) answers a failed OPEN; otherwise the Google host answers every device
      // CLSE with its own, and adbd expects that to free the pair.
      const bool answer = s.opened && !s.remote_closed;
      if (!s.opened) s.refused = true;
      s.remote_closed = true;
      const uint32_t remote = s.remote_id;
      lock.unlock();
      cv_.notify_all();
      if (answer) Send(Message::Make(kCmdClse, our_id, remote), Deadline::After(Millis(5000)), {});
      return;
    }
    case kCmdCnxn: {
      lock.unlock();
      // A new CNXN means the device reset its side; every stream is gone.
      Fail(ErrorStatus("device " + transport_->Describe() + " reset the connection"));
      return;
    }
    default:
      return;  // AUTH after the handshake, unknown commands: ignored like modern adb
  }
  lock.unlock();
  cv_.notify_all();
}

Status Connection::WaitFor(std::unique_lock<std::mutex>& lock, Deadline caller,
                           const WaitLimit& limit, const CancelToken& cancel,
                           const std::function<bool()>& pred) {
  const Deadline deadline = WithLimit(caller, limit.limit);
  while (!pred()) {
    if (cancel.cancelled()) return ErrorStatus("cancelled");
    if (deadline.expired()) {
      if (caller.expired() || limit.limit.count() <= 0) return ErrorStatus("timed out");
      return TimeoutError(limit.what, limit.limit, limit.flag);
    }
    if (state_ == ConnectionState::kClosed) {
      return close_reason_.ok() ? ErrorStatus("connection closed") : close_reason_;
    }
    cv_.wait_for(lock, deadline.Remaining(kPollSlice));
  }
  return Status::Ok();
}

Result<std::unique_ptr<AdbStream>> Connection::OpenStream(const std::string& service,
                                                          Deadline deadline,
                                                          const CancelToken& cancel) {
  uint32_t id;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (state_ != ConnectionState::kOnline) return ErrorStatus("adb: connection is not online");
    id = next_id_++;
    if (next_id_ == 0) next_id_ = 1;  // 0 is reserved for "no id"
    streams_[id] = StreamState{};
    streams_[id].service = EscapeForTerminal(service, 120);
  }
  const WaitLimit open_limit{options_.open_timeout, "--timeout-open",
                             "device " + transport_->Describe() + " did not answer OPEN of '" +
                                 EscapeForTerminal(service, 120) + "'"};
  // Old adbd read the service as a C string; the trailing NUL is always safe (spec §3).
  // With delayed_ack, arg1 is our receive window (must be > 0), else 0 (spec §7).
  Status s =
      Send(Message::Make(kCmdOpen, id, delayed_ack_ ? options_.receive_window : 0, service + '\0'),
           deadline, cancel);
  if (!s.ok()) s = EndAfterFailedSend(std::move(s), cancel.cancelled());
  std::unique_lock<std::mutex> lock(mu_);
  if (s.ok()) {
    s = WaitFor(lock, deadline, open_limit, cancel, [&] {
      auto it = streams_.find(id);
      return it == streams_.end() || it->second.opened || it->second.refused;
    });
  }
  if (s.ok()) {
    auto it = streams_.find(id);
    if (it == streams_.end() || it->second.refused) {
      s = ErrorStatus("adb: device refused service '" + EscapeForTerminal(service, 120) + "'");
    }
  }
  if (!s.ok()) {
    // If the OKAY arrives later, Dispatch finds no stream and answers with CLSE.
    streams_.erase(id);
    return s;
  }
  return std::unique_ptr<AdbStream>(new AdbStream(shared_from_this(), id));
}

Status Connection::StreamWrite(uint32_t id, std::string_view data, Deadline deadline,
                               const CancelToken& cancel) {
  while (!data.empty()) {
    std::string_view chunk = data.substr(0, max_payload_);
    uint32_t remote;
    WaitLimit idle{options_.idle_timeout, "--timeout-idle", ""};
    std::string service;
    {
      std::unique_lock<std::mutex> lock(mu_);
      auto it = streams_.find(id);
      if (it == streams_.end()) return ErrorStatus("adb: stream closed");
      service = it->second.service;
      idle.what = "device did not acknowledge our data on '" + service + "'";
      // Without delayed_ack only one WRTE may be unacknowledged per direction (spec §6); with
      // it, WRTEs go out while the device's window is positive (spec §7).
      Status s = WaitFor(lock, deadline, idle, cancel, [&] {
        auto it = streams_.find(id);
        return it == streams_.end() ||
               (delayed_ack_ ? it->second.send_window > 0 : it->second.write_ready) ||
               it->second.remote_closed || it->second.lost;
      });
      if (!s.ok()) return s;
      it = streams_.find(id);
      if (it == streams_.end()) return ErrorStatus("adb: stream closed");
      StreamState& st = it->second;
      if (st.lost) return close_reason_;
      if (st.remote_closed) return ErrorStatus("adb: stream closed by device");
      st.write_ready = false;
      st.spare_okays = 0;
      st.send_window -= static_cast<int64_t>(chunk.size());
      remote = st.remote_id;
    }
    // Sent from the caller's buffer: no copy per WRTE. A device that stops reading fills
    // the socket: the idle limit bounds that wait too.
    const Deadline send_deadline = WithLimit(deadline, options_.idle_timeout);
    Status s =
        transport_->SendPayload(kCmdWrte, id, remote, chunk, version_, send_deadline, cancel);
    if (s.ok()) {
      data.remove_prefix(chunk.size());
      continue;
    }
    if (send_deadline.expired() && !deadline.expired() && !cancel.cancelled()) {
      idle.what = "device did not take our data on '" + service + "'";
      return EndAfterFailedSend(TimeoutError(idle.what, idle.limit, idle.flag), true);
    }
    return EndAfterFailedSend(std::move(s), cancel.cancelled());
  }
  return Status::Ok();
}

Result<size_t> Connection::StreamRead(uint32_t id, std::string* out, Deadline deadline,
                                      const CancelToken& cancel) {
  std::unique_lock<std::mutex> lock(mu_);
  auto found = streams_.find(id);
  if (found == streams_.end()) return ErrorStatus("adb: stream closed");
  // A device that goes quiet (a stalled shell or pull) ends in an error, not a hang.
  const WaitLimit idle{options_.idle_timeout, "--timeout-idle",
                       "device sent nothing on '" + found->second.service + "'"};
  // Data that arrived before the CLSE is still delivered, then EOF (spec §6).
  Status s = WaitFor(lock, deadline, idle, cancel, [&] {
    auto it = streams_.find(id);
    return it == streams_.end() || !it->second.inbox.empty() || it->second.remote_closed ||
           it->second.lost;
  });
  auto it = streams_.find(id);
  if (it == streams_.end()) return ErrorStatus("adb: stream closed");
  StreamState& st = it->second;
  // A lost connection is an error, unlike a CLSE (end of stream), once the data is drained.
  if (st.inbox.empty() && st.lost && !st.remote_closed) return close_reason_;
  if (!s.ok() && st.inbox.empty()) return s;
  size_t n = 0;  // stays 0 at end of stream
  if (!st.inbox.empty() && out->empty()) {
    out->swap(st.inbox.front());  // one whole WRTE payload handed over without a copy
    n = out->size();
    st.inbox.pop_front();
  } else if (!st.inbox.empty()) {
    for (const std::string& p : st.inbox) out->append(p);
    n = st.inbox_bytes;
    st.inbox.clear();
  }
  st.inbox_bytes -= n;
  // Without delayed_ack the held-back OKAY lets the device send its next WRTE; with it,
  // each OKAY returns the bytes taken to the device's window.
  if (st.unacked && !st.remote_closed && !st.lost) {
    st.unacked = delayed_ack_ && !st.inbox.empty();
    uint32_t remote = st.remote_id;
    lock.unlock();
    // With delayed_ack the OKAY returns the bytes consumed to the device's window.
    std::string count;
    if (delayed_ack_) PutU32(count, static_cast<uint32_t>(n));
    // The data is already in *out: a failed ack shows up as a lost connection on the next call.
    Send(Message::Make(kCmdOkay, id, remote, std::move(count)), Deadline::After(Millis(5000)), {});
  }
  return n;
}

void Connection::StreamClose(uint32_t id) {
  uint32_t remote = 0;
  bool send = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = streams_.find(id);
    if (it == streams_.end()) return;
    send = it->second.opened && !it->second.remote_closed && !it->second.lost;
    remote = it->second.remote_id;
    streams_.erase(it);
  }
  cv_.notify_all();
  if (send) Send(Message::Make(kCmdClse, id, remote), Deadline::After(Millis(5000)), {});
}

}  // namespace fathom::adb
