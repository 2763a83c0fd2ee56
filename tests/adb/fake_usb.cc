#include "fake_usb.h"

#include <chrono>
#include <cstring>

namespace fathom::adb::testing {

constexpr uint8_t kInEp = 0x81, kOutEp = 0x01;

// The adbd end of the endpoints, as a Transport for FakeDevice: what it sends becomes IN
// packets, what it receives is parsed from the host's OUT transfers (checking ZLP rules).
class FakeUsbBackend::DeviceSide : public Transport {
 public:
  explicit DeviceSide(FakeUsbBackend* usb) : usb_(usb) {}

  Status Send(const Message& message, uint32_t version, Deadline, const CancelToken&) override {
    std::lock_guard<std::mutex> l(usb_->mu_);
    if (usb_->unplugged_ || closed_) return ErrorStatus("fake usb: gone");
    // adbd writes the header and the payload as separate transfers; with in_piece the payload
    // goes in several (short reads on the host).
    Packetize(EncodeHeader(message, version));
    const size_t piece = usb_->options_.in_piece ? usb_->options_.in_piece : message.payload.size();
    for (size_t at = 0; at < message.payload.size(); at += piece) {
      Packetize(message.payload.substr(at, piece));
    }
    usb_->cv_.notify_all();
    return Status::Ok();
  }

  Result<Message> Receive(uint32_t max_payload, Deadline deadline,
                          const CancelToken& cancel) override {
    const size_t mps = usb_->options_.max_packet;
    std::unique_lock<std::mutex> l(usb_->mu_);
    std::string header;
    while (header.empty()) {
      auto t = Pop(l, deadline, cancel);
      if (!t.ok()) return t.status();
      if (t->empty()) {
        // A ZLP is right only straight after a payload that was a multiple of mps.
        if (expect_zlp_) {
          ++usb_->stats_.zlps;
        } else {
          ++usb_->stats_.zlp_violations;
        }
        expect_zlp_ = false;
        continue;
      }
      if (expect_zlp_) ++usb_->stats_.zlp_violations;  // the ZLP is missing
      expect_zlp_ = false;
      header = std::move(*t);
    }
    std::string payload;
    if (header.size() != kHeaderSize) {
      ++usb_->stats_.zlp_violations;  // header not in a transfer of its own
      if (header.size() < kHeaderSize) return ErrorStatus("fake usb: short header");
      payload = header.substr(kHeaderSize);
      header.resize(kHeaderSize);
    }
    auto h = DecodeHeader(header, max_payload);
    if (!h.ok()) return h.status();
    while (payload.size() < h->data_length) {
      auto t = Pop(l, deadline, cancel);
      if (!t.ok()) return t.status();
      if (t->empty()) ++usb_->stats_.zlp_violations;  // ZLP in the middle of a payload
      payload += *t;
    }
    if (payload.size() != h->data_length) return ErrorStatus("fake usb: payload overrun");
    if (!payload.empty() && payload.size() % mps == 0) {
      ++usb_->stats_.out_payloads_multiple;
      expect_zlp_ = true;
    }
    return Message{h->command, h->arg0, h->arg1, std::move(payload)};
  }

  void Close() override {
    std::lock_guard<std::mutex> l(usb_->mu_);
    closed_ = true;
    usb_->cv_.notify_all();
  }
  std::string Describe() const override { return "fake-usb-device"; }

 private:
  // With mu_ held.
  void Packetize(const std::string& transfer) {
    const size_t mps = usb_->options_.max_packet;
    for (size_t at = 0; at < transfer.size(); at += mps) {
      usb_->in_packets_.push_back(transfer.substr(at, mps));
    }
  }
  Result<std::string> Pop(std::unique_lock<std::mutex>& l, Deadline deadline,
                          const CancelToken& cancel) {
    while (usb_->out_transfers_.empty()) {
      if (closed_ || usb_->unplugged_ || cancel.cancelled()) return ErrorStatus("fake usb: closed");
      if (deadline.expired()) return ErrorStatus("fake usb: timeout");
      usb_->cv_.wait_for(l, Millis(20));
    }
    std::string t = std::move(usb_->out_transfers_.front());
    usb_->out_transfers_.pop_front();
    usb_->cv_.notify_all();
    return t;
  }

  FakeUsbBackend* usb_;
  bool closed_ = false;
  bool expect_zlp_ = false;
};

class FakeUsbBackend::Handle : public UsbDeviceHandle {
 public:
  Handle(FakeUsbBackend* usb, std::string serial, bool adb)
      : usb_(usb), serial_(serial), adb_(adb) {}
  int ReadSerial(std::string* serial) override {
    *serial = serial_;
    return 0;
  }
  int ClaimInterface(int number) override {
    if (!adb_ || number != 1) return kUsbErrorNotFound;
    return usb_->Claim();
  }
  int ReleaseInterface(int) override {
    std::lock_guard<std::mutex> l(usb_->mu_);
    ++usb_->stats_.releases;
    return 0;
  }
  int ClearHalt(uint8_t endpoint) override { return usb_->ClearHalt(endpoint); }
  int BulkTransfer(uint8_t endpoint, unsigned char* data, int length, int* transferred,
                   unsigned timeout_ms) override {
    *transferred = 0;
    if (!adb_) return kUsbErrorIo;
    if (endpoint == kInEp) return usb_->HostIn(data, length, transferred, timeout_ms);
    if (endpoint == kOutEp) return usb_->HostOut(data, length, transferred);
    return kUsbErrorInvalidParam;
  }

 private:
  FakeUsbBackend* usb_;
  std::string serial_;
  bool adb_;
};

FakeUsbBackend::FakeUsbBackend(FakeUsbOptions options) : options_(std::move(options)) {}

FakeUsbBackend::~FakeUsbBackend() {
  Unplug();
  device_.reset();
}

int FakeUsbBackend::ListDevices(std::vector<UsbDeviceDescriptor>* out) {
  // A keyboard: no ADB interface, must be skipped.
  UsbDeviceDescriptor kbd;
  kbd.path = "3-2";
  kbd.vendor_id = 0x046d;
  kbd.product_id = 0xc31c;
  kbd.interfaces.push_back({0, 0x03, 0x01, 0x01, {{0x81, 0x03, 8}}});
  out->push_back(kbd);
  std::lock_guard<std::mutex> l(mu_);
  if (unplugged_) return 0;
  // A phone in MTP+ADB mode: the ADB interface is the second one, OUT endpoint listed first.
  UsbDeviceDescriptor phone;
  phone.path = options_.path;
  phone.vendor_id = 0x18d1;
  phone.product_id = 0x4ee2;
  phone.interfaces.push_back(
      {0, 0x06, 0x01, 0x01, {{0x82, 0x02, 512}, {0x02, 0x02, 512}, {0x83, 0x03, 28}}});
  phone.interfaces.push_back(
      {1,
       0xff,
       0x42,
       0x01,
       {{kOutEp, 0x02, options_.max_packet}, {kInEp, 0x02, options_.max_packet}}});
  out->push_back(phone);
  return 0;
}

int FakeUsbBackend::Open(const std::string& path, std::unique_ptr<UsbDeviceHandle>* out) {
  if (path == "3-2") {
    out->reset(new Handle(this, "", false));
    return 0;
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    if (path != options_.path || unplugged_) return kUsbErrorNotFound;
  }
  if (options_.open_error) return options_.open_error;
  out->reset(new Handle(this, options_.serial, true));
  return 0;
}

int FakeUsbBackend::Claim() {
  if (options_.claim_error) return options_.claim_error;
  {
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.claims;
  }
  if (!device_)
    device_ = std::make_unique<FakeDevice>(std::make_unique<DeviceSide>(this), options_.device);
  return 0;
}

bool FakeUsbBackend::CountTransfer() {
  ++transfers_;
  if (options_.unplug_after >= 0 && transfers_ > options_.unplug_after) {
    unplugged_ = true;
    cv_.notify_all();
  }
  return !unplugged_;
}

int FakeUsbBackend::HostIn(unsigned char* data, int length, int* transferred, unsigned timeout_ms) {
  std::unique_lock<std::mutex> l(mu_);
  ++in_calls_;
  if (!CountTransfer()) return kUsbErrorNoDevice;
  if (in_halted_) return kUsbErrorPipe;
  if (options_.stall_in_every && in_calls_ % options_.stall_in_every == 0) {
    in_halted_ = true;
    ++stats_.stalls_injected;
    return kUsbErrorPipe;
  }
  const bool partial =
      options_.partial_timeout_every && in_calls_ % options_.partial_timeout_every == 0;
  const size_t len = static_cast<size_t>(length);
  const size_t limit = partial ? len / 2 : len;
  const auto until = std::chrono::steady_clock::now() + Millis(timeout_ms);
  size_t got = 0;
  while (true) {
    while (!in_packets_.empty() && got < limit) {
      const std::string& p = in_packets_.front();
      if (p.size() > len - got) {
        ++stats_.overflows;  // a real bus would babble/overflow and lose the packet
        return kUsbErrorOverflow;
      }
      if (p.size() > limit - got) break;
      std::memcpy(data + got, p.data(), p.size());
      got += p.size();
      const bool short_packet = p.size() < options_.max_packet;
      in_packets_.pop_front();
      *transferred = static_cast<int>(got);
      if (short_packet) return kUsbOk;  // a short packet ends the transfer
    }
    if (got == len) return kUsbOk;
    if (partial) {
      ++stats_.timeouts_injected;
      return kUsbErrorTimeout;
    }
    if (unplugged_) return kUsbErrorNoDevice;
    if (cv_.wait_until(l, until) == std::cv_status::timeout && in_packets_.empty()) {
      return kUsbErrorTimeout;
    }
  }
}

int FakeUsbBackend::HostOut(const unsigned char* data, int length, int* transferred) {
  std::lock_guard<std::mutex> l(mu_);
  ++out_calls_;
  if (!CountTransfer()) return kUsbErrorNoDevice;
  if (out_halted_) return kUsbErrorPipe;
  if (options_.stall_out_every && out_calls_ % options_.stall_out_every == 0) {
    out_halted_ = true;
    ++stats_.stalls_injected;
    return kUsbErrorPipe;
  }
  out_transfers_.emplace_back(reinterpret_cast<const char*>(data), static_cast<size_t>(length));
  *transferred = length;
  cv_.notify_all();
  return kUsbOk;
}

int FakeUsbBackend::ClearHalt(uint8_t endpoint) {
  std::lock_guard<std::mutex> l(mu_);
  if (unplugged_) return kUsbErrorNoDevice;
  if (endpoint == kInEp) {
    if (in_halted_) ++stats_.halts_cleared;
    in_halted_ = false;
  } else if (endpoint == kOutEp) {
    if (out_halted_) ++stats_.halts_cleared;
    out_halted_ = false;
  } else {
    return kUsbErrorInvalidParam;
  }
  return kUsbOk;
}

void FakeUsbBackend::Unplug() {
  std::lock_guard<std::mutex> l(mu_);
  unplugged_ = true;
  cv_.notify_all();
}

FakeUsbStats FakeUsbBackend::stats() {
  std::unique_lock<std::mutex> l(mu_);
  // Let the device take what the host already wrote (a trailing ZLP) before counting.
  cv_.wait_for(l, Millis(2000), [&] { return out_transfers_.empty() || unplugged_; });
  return stats_;
}

}  // namespace fathom::adb::testing
