// A Transport whose device side is a fixed byte string, for fuzzing the
// Connection state machine. The input is a sequence of records
//   [gate u8][24-byte adb header][payload: the header's data_length bytes]
// decoded exactly as TcpTransport decodes a socket (DecodeHeader with the
// caller's max payload), so bad magic and oversized lengths are fuzzed too.
// A record waits until the host has sent `gate` (at most kMaxGate) messages
// other than OKAY that earlier records did not use up (a message that came
// early counts for the next record; when the host acknowledges depends on
// how fast its reader drains, so OKAYs would make the count drift), so an input can answer an OPEN
// after it was sent instead of racing it; after kGateWait it is delivered
// anyway (the host's count depends on thread timing, e.g. whether a shell's
// exit frame arrived before its stdin was closed). Nothing blocks for long:
// at the end of the input Receive reports the connection closed.
#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <string_view>

#include "adb/transport.h"

namespace fathom::fuzz {

class FakeDeviceTransport : public adb::Transport {
 public:
  // How long a gated record waits for the host's messages: the host answers
  // within microseconds (milliseconds on a loaded machine) when it answers at
  // all. Gates above kMaxGate count as kMaxGate, so random bytes cost at most
  // one wait per record.
  static constexpr std::chrono::milliseconds kGateWait{10};
  static constexpr uint64_t kMaxGate = 4;

  explicit FakeDeviceTransport(std::string_view device_bytes) : in_(device_bytes) {}

  Status Send(const adb::Message& m, uint32_t version, adb::Deadline,
              const adb::CancelToken&) override {
    std::lock_guard<std::mutex> l(mu_);
    if (closed_) return ErrorStatus("fake transport closed");
    // Encoded as on the wire, so the encoder runs too.
    bytes_sent_ += adb::EncodeMessage(m, version).size();
    if (m.command != adb::kCmdOkay) ++sends_;
    cv_.notify_all();
    return Status::Ok();
  }

  Result<adb::Message> Receive(uint32_t max_payload, adb::Deadline deadline,
                               const adb::CancelToken& cancel) override {
    std::unique_lock<std::mutex> l(mu_);
    if (closed_) return ErrorStatus("fake transport closed");
    if (in_.size() < 1 + adb::kHeaderSize) return End("end of input");
    const uint64_t gate = std::min<uint64_t>(static_cast<uint8_t>(in_[0]), kMaxGate);
    const auto give_up = std::chrono::steady_clock::now() + kGateWait;
    while (sends_ - used_ < gate) {
      if (closed_) return ErrorStatus("fake transport closed");
      if (cancel.cancelled()) return ErrorStatus("cancelled");
      if (deadline.expired()) return ErrorStatus("timed out");
      if (cv_.wait_until(l, give_up) == std::cv_status::timeout) break;  // deliver anyway
    }
    auto h = adb::DecodeHeader(in_.substr(1, adb::kHeaderSize), max_payload);
    if (!h.ok()) return End(h.status().message());
    in_.remove_prefix(1 + adb::kHeaderSize);
    if (in_.size() < h->data_length) return End("payload cut by the end of input");
    adb::Message m{h->command, h->arg0, h->arg1, std::string(in_.substr(0, h->data_length))};
    in_.remove_prefix(h->data_length);
    used_ += std::min(gate, sends_ - used_);
    return m;
  }

  void Close() override {
    std::lock_guard<std::mutex> l(mu_);
    closed_ = true;
    cv_.notify_all();
  }
  std::string Describe() const override { return "fuzz-device"; }

 private:
  // After an error a real transport is unusable: every later call fails too.
  Status End(const std::string& why) {
    closed_ = true;
    return ErrorStatus("fake device: " + why);
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::string_view in_;
  uint64_t sends_ = 0;  // host messages other than OKAY
  uint64_t used_ = 0;   // of sends_, those earlier records waited for
  uint64_t bytes_sent_ = 0;
  bool closed_ = false;
};

}  // namespace fathom::fuzz
