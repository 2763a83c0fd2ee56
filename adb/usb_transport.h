// adb over USB (spec §11): find the ADB interface (class 0xff, subclass 0x42, protocol 0x01),
// claim it, bulk IN/OUT with a zero-length packet after payloads that are a multiple of the OUT
// max packet size, clear stalls and retry, report unplugging clearly. The USB calls go through
// a UsbBackend (usb_backend.h): libusb in real use, a fake in tests.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adb/transport.h"
#include "adb/usb_backend.h"

struct libusb_context;

namespace fathom::adb {

struct UsbDeviceInfo {
  std::string serial;  // iSerialNumber, or "usb:<bus>-<port>.<port>" when unreadable
  std::string path;    // "<bus>-<port>.<port>..." as `adb devices -l` prints after usb:
  uint16_t vendor_id = 0, product_id = 0;
  // Why the device cannot be used (empty if fine), e.g. no permission to open it.
  std::string problem;
};

// The ADB interface of a device, if it has one.
struct UsbAdbInterface {
  int number = -1;
  uint8_t in = 0, out = 0;
  size_t out_max_packet = 0;
};
bool FindAdbInterface(const UsbDeviceDescriptor& device, UsbAdbInterface* found);

// "usb: claim interface of X: LIBUSB_ERROR_BUSY (…hint…)": the hint tells the user what to do
// (udev rule for ACCESS, the adb server for BUSY, WinUSB for NOT_SUPPORTED).
std::string UsbErrorMessage(const std::string& what, int code);
// Where the udev rule that grants USB access lives (installed package, else the archive).
std::string UdevRuleHint();

class UsbTransport : public Transport {
 public:
  // Every attached device exposing an ADB interface (DefaultUsbBackend()).
  static Result<std::vector<UsbDeviceInfo>> List();
  static Result<std::vector<UsbDeviceInfo>> List(UsbBackend& backend);
  // Opens the device with this serial (or "usb:PATH" / PATH), claims its ADB interface.
  // On failure *error_code (when given) gets the USB code, e.g. kUsbErrorBusy when another
  // program (an adb server) holds the interface, so callers can use that program instead.
  static Result<std::unique_ptr<UsbTransport>> Open(const std::string& serial);
  static Result<std::unique_ptr<UsbTransport>> Open(std::shared_ptr<UsbBackend> backend,
                                                    const std::string& serial,
                                                    int* error_code = nullptr);
  ~UsbTransport() override;

  Status Send(const Message& message, uint32_t version, Deadline deadline,
              const CancelToken& cancel) override;
  Result<Message> Receive(uint32_t max_payload, Deadline deadline,
                          const CancelToken& cancel) override;
  void Close() override { closed_ = true; }
  std::string Describe() const override { return "usb:" + path_; }

  // Stalls cleared so far (for tests and diagnostics).
  int stalls_cleared() const { return stalls_cleared_; }

 private:
  UsbTransport() = default;
  // Runs bulk transfers of at most one poll slice each until `size` bytes moved, so
  // Close()/cancel/deadline are noticed; partial progress on timeout is kept. A stalled
  // endpoint is cleared and the rest retried.
  Status Bulk(uint8_t endpoint, unsigned char* data, size_t size, Deadline deadline,
              const CancelToken& cancel);

  std::shared_ptr<UsbBackend> backend_;
  std::unique_ptr<UsbDeviceHandle> handle_;
  int interface_ = -1;
  uint8_t in_ = 0, out_ = 0;
  size_t out_max_packet_ = 512;
  std::string path_;
  std::atomic<bool> closed_{false};
  std::atomic<int> stalls_cleared_{0};
  std::mutex send_mutex_;
};

// Calls on_change whenever an ADB device may have come or gone: libusb hotplug events where
// the platform supports them (Linux, macOS), else a once-a-second scan (Windows). Only with
// libusb (FATHOM_ADB_HAVE_LIBUSB).
class UsbWatcher {
 public:
  explicit UsbWatcher(std::function<void()> on_change);
  ~UsbWatcher();

 private:
  std::function<void()> on_change_;
  std::shared_ptr<libusb_context> ctx_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  int hotplug_handle_ = 0;
  bool hotplug_ = false;
};

}  // namespace fathom::adb
