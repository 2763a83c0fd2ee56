// adb over USB through libusb (spec §11): find the ADB interface (class 0xff, subclass 0x42,
// protocol 0x01), claim it, bulk IN/OUT with a zero-length packet after payloads that are a
// multiple of the OUT max packet size. Only compiled when libusb-1.0 is found
// (FATHOM_ADB_HAVE_LIBUSB).
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "adb/transport.h"

struct libusb_context;
struct libusb_device_handle;

namespace fathom::adb {

struct UsbDeviceInfo {
  std::string serial;  // iSerialNumber, or "usb:<bus>-<port>.<port>" when unreadable
  std::string path;    // "<bus>-<port>.<port>..." as `adb devices -l` prints after usb:
  uint16_t vendor_id = 0, product_id = 0;
  // Why the device cannot be used (empty if fine), e.g. no permission to open it.
  std::string problem;
};

class UsbTransport : public Transport {
 public:
  // Every attached device exposing an ADB interface.
  static Result<std::vector<UsbDeviceInfo>> List();
  // Opens the device with this serial (or path), claims its ADB interface.
  static Result<std::unique_ptr<UsbTransport>> Open(const std::string& serial);
  ~UsbTransport() override;

  Status Send(const Message& message, uint32_t version, Deadline deadline,
              const CancelToken& cancel) override;
  Result<Message> Receive(uint32_t max_payload, Deadline deadline,
                          const CancelToken& cancel) override;
  void Close() override { closed_ = true; }
  std::string Describe() const override { return "usb:" + path_; }

 private:
  UsbTransport() = default;
  // Runs bulk transfers of at most one poll slice each until `size` bytes moved, so
  // Close()/cancel/deadline are noticed; libusb reports partial progress on timeout.
  Status Bulk(unsigned char endpoint, unsigned char* data, size_t size, Deadline deadline,
              const CancelToken& cancel);

  std::shared_ptr<libusb_context> ctx_;
  libusb_device_handle* handle_ = nullptr;
  int interface_ = -1;
  unsigned char in_ = 0, out_ = 0;
  size_t out_max_packet_ = 512;
  std::string path_;
  std::atomic<bool> closed_{false};
  std::mutex send_mutex_;
};

// Calls on_change whenever an ADB device may have come or gone: libusb hotplug events where
// the platform supports them (Linux, macOS), else a once-a-second scan (Windows).
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
