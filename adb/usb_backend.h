// The handful of USB operations the adb USB transport needs, behind an interface so the
// transport logic (interface discovery, ZLPs, stall recovery, disconnects, timeouts) runs the
// same against libusb (usb_libusb.cc) and against the fake USB layer of the tests.
// Return values are libusb's error codes (0 = success), mirrored here so callers need no
// libusb headers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fathom::adb {

enum UsbResult : int {
  kUsbOk = 0,
  kUsbErrorIo = -1,
  kUsbErrorInvalidParam = -2,
  kUsbErrorAccess = -3,
  kUsbErrorNoDevice = -4,
  kUsbErrorNotFound = -5,
  kUsbErrorBusy = -6,
  kUsbErrorTimeout = -7,
  kUsbErrorOverflow = -8,
  kUsbErrorPipe = -9,
  kUsbErrorInterrupted = -10,
  kUsbErrorNoMem = -11,
  kUsbErrorNotSupported = -12,
  kUsbErrorOther = -99,
};
// libusb's names ("LIBUSB_ERROR_BUSY"): users search for them.
const char* UsbErrorName(int code);

inline constexpr uint8_t kUsbEndpointIn = 0x80;
inline constexpr uint8_t kUsbTransferTypeBulk = 0x02;

struct UsbEndpointDescriptor {
  uint8_t address = 0;     // bit 7 set: IN
  uint8_t attributes = 0;  // low 2 bits: transfer type
  uint16_t max_packet_size = 0;
};

// Alternate setting 0 of one interface of the active configuration.
struct UsbInterfaceDescriptor {
  uint8_t number = 0;
  uint8_t interface_class = 0, interface_subclass = 0, interface_protocol = 0;
  std::vector<UsbEndpointDescriptor> endpoints;
};

struct UsbDeviceDescriptor {
  std::string path;  // "<bus>-<port>.<port>...", stable while plugged in; what Open takes
  uint16_t vendor_id = 0, product_id = 0;
  std::vector<UsbInterfaceDescriptor> interfaces;
};

// An opened device; the destructor closes it.
class UsbDeviceHandle {
 public:
  virtual ~UsbDeviceHandle() = default;
  // The iSerialNumber string as ASCII, "" when the device has none.
  virtual int ReadSerial(std::string* serial) = 0;
  virtual int ClaimInterface(int number) = 0;
  virtual int ReleaseInterface(int number) = 0;
  virtual int ClearHalt(uint8_t endpoint) = 0;
  // Synchronous bulk transfer. On a timeout *transferred may still be > 0 (partial progress).
  virtual int BulkTransfer(uint8_t endpoint, unsigned char* data, int length, int* transferred,
                           unsigned timeout_ms) = 0;
};

class UsbBackend {
 public:
  virtual ~UsbBackend() = default;
  virtual int ListDevices(std::vector<UsbDeviceDescriptor>* out) = 0;
  virtual int Open(const std::string& path, std::unique_ptr<UsbDeviceHandle>* out) = 0;
};

// libusb, one context per process; nullptr when this build has no libusb.
std::shared_ptr<UsbBackend> DefaultUsbBackend();

}  // namespace fathom::adb
