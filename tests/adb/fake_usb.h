// A fake USB layer for the adb USB transport: one device with an MTP interface and an ADB
// interface (plus an unrelated keyboard on the bus), whose bulk endpoints carry packets the way
// a real bus does — transfers cut into max-packet-size packets, an IN transfer ends at a short
// packet, a packet bigger than the space left is an overflow — with an adbd (FakeDevice) behind
// them. Faults can be injected: short reads (the device writes a message in several pieces),
// stalls (LIBUSB_ERROR_PIPE until the host clears the halt), timeouts with partial progress,
// unplugging mid-transfer, BUSY on claim, ACCESS on open. The OUT side checks that a ZLP follows
// exactly those payloads that are a non-zero multiple of the max packet size.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>

#include "adb/usb_backend.h"
#include "fake_device.h"

namespace fathom::adb::testing {

struct FakeUsbOptions {
  std::string serial = "FAKEUSB0001";
  std::string path = "3-1.4";
  uint16_t max_packet = 512;      // both bulk endpoints
  size_t in_piece = 0;            // >0: the device writes every payload in pieces this small
  int stall_in_every = 0;         // every Nth IN transfer finds the endpoint halted
  int stall_out_every = 0;        // every Nth OUT transfer finds the endpoint halted
  int partial_timeout_every = 0;  // every Nth IN transfer times out after moving half
  int unplug_after = -1;          // after this many bulk transfers the device is gone
  int open_error = 0;             // e.g. kUsbErrorAccess
  int claim_error = 0;            // e.g. kUsbErrorBusy
  FakeDeviceOptions device;
};

struct FakeUsbStats {
  int out_payloads_multiple = 0;  // OUT payloads that were a non-zero multiple of max packet
  int zlps = 0;                   // zero-length OUT transfers
  int zlp_violations = 0;         // missing or unexpected ZLPs, header not in its own transfer
  int stalls_injected = 0, halts_cleared = 0, timeouts_injected = 0, overflows = 0;
  int claims = 0, releases = 0;
};

class FakeUsbBackend : public UsbBackend {
 public:
  explicit FakeUsbBackend(FakeUsbOptions options);
  ~FakeUsbBackend() override;

  int ListDevices(std::vector<UsbDeviceDescriptor>* out) override;
  int Open(const std::string& path, std::unique_ptr<UsbDeviceHandle>* out) override;

  FakeUsbStats stats();
  // The adbd behind the endpoints (created by the first Open that claims).
  FakeDevice* device() { return device_.get(); }
  void Unplug();

 private:
  class Handle;
  class DeviceSide;
  friend class Handle;
  friend class DeviceSide;

  // Host side of the endpoints.
  int HostIn(unsigned char* data, int length, int* transferred, unsigned timeout_ms);
  int HostOut(const unsigned char* data, int length, int* transferred);
  int ClearHalt(uint8_t endpoint);
  int Claim();
  bool CountTransfer();  // false once unplugged

  FakeUsbOptions options_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> in_packets_;     // device → host, each ≤ max_packet
  std::deque<std::string> out_transfers_;  // host → device, whole transfers
  bool in_halted_ = false, out_halted_ = false, unplugged_ = false;
  int transfers_ = 0, in_calls_ = 0, out_calls_ = 0;
  FakeUsbStats stats_;
  std::unique_ptr<FakeDevice> device_;
};

}  // namespace fathom::adb::testing
