// Host side of one adb connection to a device (spec §4–§7): handshake with RSA auth, then
// many streams multiplexed over one Transport. A reader thread dispatches incoming messages;
// the public methods may be called from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adb/auth_key.h"
#include "adb/banner.h"
#include "adb/byte_stream.h"
#include "adb/cancel.h"
#include "adb/timeouts.h"
#include "adb/transport.h"
#include "base/status.h"

namespace fathom::adb {

enum class ConnectionState {
  kConnecting,      // CNXN sent
  kAuthenticating,  // answering AUTH tokens with our keys
  kWaitingForUser,  // public key sent: "Allow USB debugging on the device"
  kOnline,
  kClosed,
};
const char* ConnectionStateText(ConnectionState state);

struct ConnectionOptions {
  std::vector<AuthKey> keys;  // tried in order; see key_store.h LoadAllKeys()
  std::string user_info;      // "user@host" after the public key; default from env
  // Limits of each wait (timeouts.h; the process defaults unless a caller sets them).
  Millis handshake_timeout = DefaultTimeouts().connect;  // TCP connect, each CNXN/AUTH round trip
  Millis user_confirm_timeout = DefaultTimeouts().auth;  // how long the user gets to tap "Allow"
  Millis open_timeout = DefaultTimeouts().open;          // OPEN answered
  Millis idle_timeout = DefaultTimeouts().idle;  // a stream read without a byte, a write unacked
  uint32_t max_payload = kMaxPayload;
  // Windowed flow control (spec §7), used when the device lists delayed_ack too. Off by
  // default, as in Google's adb (ADB_BURST_MODE=1 there); FATHOM_ADB_DELAYED_ACK=1 turns it on.
  bool delayed_ack = false;
  // Bytes a device may send on one stream before we acknowledge (our OPEN arg1): the most a
  // slow reader's stream buffers.
  uint32_t receive_window = 4u << 20;
  // Handshake states arrive on the thread running Open(); kClosed may arrive on the reader
  // thread, so the callback must not destroy the Connection.
  std::function<void(ConnectionState)> on_state;
};

class Connection;

// One adb stream (OPEN…CLSE). Write waits for the device's OKAY between WRTEs; incoming data
// is acknowledged on arrival while little is buffered, else only when Read() takes it, so a
// slow reader throttles its own stream instead of the whole connection.
class AdbStream : public ByteStream {
 public:
  ~AdbStream() override;
  Status Write(std::string_view data, Deadline deadline, const CancelToken& cancel) override;
  Result<size_t> Read(std::string* out, Deadline deadline, const CancelToken& cancel) override;
  void Close() override;
  uint32_t local_id() const { return local_id_; }

 private:
  friend class Connection;
  AdbStream(std::shared_ptr<Connection> conn, uint32_t local_id)
      : conn_(std::move(conn)), local_id_(local_id) {}
  std::shared_ptr<Connection> conn_;
  const uint32_t local_id_;
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  // Runs the handshake (blocking, bounded by the option timeouts) and starts the reader.
  static Result<std::shared_ptr<Connection>> Open(std::unique_ptr<Transport> transport,
                                                  ConnectionOptions options,
                                                  const CancelToken& cancel = {});
  ~Connection();

  // OPEN(service) and wait for OKAY (or CLSE ⇒ error "service refused").
  Result<std::unique_ptr<AdbStream>> OpenStream(const std::string& service, Deadline deadline,
                                                const CancelToken& cancel = {});
  void Close();

  ConnectionState state() const;
  const Banner& device_banner() const { return banner_; }  // fixed after Open()
  uint32_t version() const { return version_; }
  uint32_t max_payload() const { return max_payload_; }
  // Both sides listed delayed_ack and options.delayed_ack was set.
  bool delayed_ack() const { return delayed_ack_; }
  std::string Describe() const { return transport_->Describe(); }
  // Why the connection ended, once state() is kClosed.
  Status close_reason() const;

 private:
  friend class AdbStream;
  struct StreamState {
    std::string service;  // for error messages, escaped and cut
    uint32_t remote_id = 0;
    bool opened = false;
    bool refused = false;
    bool remote_closed = false;
    bool lost = false;         // the connection died under the stream (not a CLSE)
    bool write_ready = false;  // the device acknowledged our last WRTE (or the OPEN)
    bool unacked = false;      // we owe the device an OKAY for data it wrote
    int64_t send_window = 0;   // delayed_ack: bytes we may still send before an ack
    uint32_t spare_okays = 0;  // OKAYs with nothing of ours to acknowledge (a flood bound)
    // WRTE payloads not yet read, kept whole: a payload handed to Read() is not copied
    // (concatenating them cost a copy of everything pulled while the reader lagged).
    std::deque<std::string> inbox;
    size_t inbox_bytes = 0;
  };

  explicit Connection(std::unique_ptr<Transport> t, ConnectionOptions o)
      : transport_(std::move(t)), options_(std::move(o)) {}
  Status Handshake(const CancelToken& cancel);
  void SetState(ConnectionState s);
  void ReaderLoop();
  void Dispatch(Message m);
  void Fail(Status why);
  Status Send(const Message& m, Deadline deadline, const CancelToken& cancel);
  // One of our limits on a wait, and what the error then says ("<what> within 10 s (<flag>)").
  struct WaitLimit {
    Millis limit{0};  // 0: only the caller's deadline
    const char* flag = "";
    std::string what;
  };
  // Waits on cv_ in kPollSlice steps until pred() or deadline/limit/cancel/connection closed.
  Status WaitFor(std::unique_lock<std::mutex>& lock, Deadline deadline, const WaitLimit& limit,
                 const CancelToken& cancel, const std::function<bool()>& pred);
  Status HandshakeTimeout(bool sent_signature, bool sent_public_key) const;
  // A message for a stream id we never handed out: counted, and a flood ends the connection.
  // After a Send/SendPayload failed: ends the connection, returns the error to report.
  // `as_is`: report `why` itself (cancelled, one of our limits), not "connection lost".
  Status EndAfterFailedSend(Status why, bool as_is);
  // Ok, or the error that ends the connection. Called with mu_ held.
  Status CountStray(uint32_t our_id, const Message& m);

  // Stream operations used by AdbStream.
  Status StreamWrite(uint32_t id, std::string_view data, Deadline d, const CancelToken& c);
  Result<size_t> StreamRead(uint32_t id, std::string* out, Deadline d, const CancelToken& c);
  void StreamClose(uint32_t id);

  std::unique_ptr<Transport> transport_;
  ConnectionOptions options_;
  Banner banner_;
  uint32_t version_ = kVersionMin;
  uint32_t max_payload_ = kMaxPayloadV1;
  bool delayed_ack_ = false;
  std::thread reader_;
  CancelToken reader_cancel_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  ConnectionState state_ = ConnectionState::kConnecting;
  Status close_reason_;
  uint32_t next_id_ = 1;
  uint64_t strays_ = 0;  // messages naming stream ids we never opened
  std::map<uint32_t, StreamState> streams_;
};

}  // namespace fathom::adb
