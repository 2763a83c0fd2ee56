#include "adb/usb_transport.h"

#include <algorithm>

namespace fathom::adb {
namespace {

constexpr uint8_t kAdbClass = 0xff, kAdbSubclass = 0x42, kAdbProtocol = 0x01;
// A stall that keeps coming back after being cleared means a broken link, not a hiccup.
constexpr int kMaxStallsPerTransfer = 3;

Status UsbError(const std::string& what, int code) {
  return ErrorStatus(UsbErrorMessage(what, code));
}

bool MatchesSerial(const std::string& wanted, const std::string& serial, const std::string& path) {
  return wanted == serial || wanted == "usb:" + path || wanted == path;
}

}  // namespace

const char* UsbErrorName(int code) {
  switch (code) {
    case kUsbOk:
      return "LIBUSB_SUCCESS";
    case kUsbErrorIo:
      return "LIBUSB_ERROR_IO";
    case kUsbErrorInvalidParam:
      return "LIBUSB_ERROR_INVALID_PARAM";
    case kUsbErrorAccess:
      return "LIBUSB_ERROR_ACCESS";
    case kUsbErrorNoDevice:
      return "LIBUSB_ERROR_NO_DEVICE";
    case kUsbErrorNotFound:
      return "LIBUSB_ERROR_NOT_FOUND";
    case kUsbErrorBusy:
      return "LIBUSB_ERROR_BUSY";
    case kUsbErrorTimeout:
      return "LIBUSB_ERROR_TIMEOUT";
    case kUsbErrorOverflow:
      return "LIBUSB_ERROR_OVERFLOW";
    case kUsbErrorPipe:
      return "LIBUSB_ERROR_PIPE";
    case kUsbErrorInterrupted:
      return "LIBUSB_ERROR_INTERRUPTED";
    case kUsbErrorNoMem:
      return "LIBUSB_ERROR_NO_MEM";
    case kUsbErrorNotSupported:
      return "LIBUSB_ERROR_NOT_SUPPORTED";
    default:
      return "LIBUSB_ERROR_OTHER";
  }
}

std::string UdevRuleHint() {
  // packaging/Linux.cmake installs it to lib/udev/rules.d (FATHOM_UDEV_RULES_DIR); the .tar.gz
  // carries the same tree; packaging/linux/ has it in a source checkout.
  return "install Fathom's udev rule 70-fathom-adb.rules (the .deb puts it in "
         "/lib/udev/rules.d; from the .tar.gz or packaging/linux/ in the sources: sudo cp "
         "70-fathom-adb.rules /etc/udev/rules.d/), then run `sudo udevadm control "
         "--reload-rules && sudo udevadm trigger --subsystem-match=usb` and replug the device";
}

// libusb opens a device on Windows only through the WinUSB driver (packaging/README.md,
// "USB driver"); many vendors' adb drivers are not WinUSB-based.
std::string WinUsbDriverHint() {
  return "on Windows the device's ADB interface must use the WinUSB driver: install Google's "
         "USB driver (Android SDK Manager, \"Google USB Driver\"), or where the vendor's driver "
         "is not WinUSB-based, replace it for the ADB Interface only with Zadig (Options > List "
         "All Devices, \"ADB Interface\", WinUSB, Replace Driver); or keep the vendor's driver "
         "and start Google's adb server (`adb start-server`): Fathom uses its devices too";
}

// Why a device cannot be opened (LIBUSB_ERROR_ACCESS): on Linux, file permissions; on
// Windows, WinUSB lets one process at a time open an interface, and a vendor's driver
// that is not WinUSB refuses libusb.
std::string AccessHint() {
#if defined(_WIN32)
  return "the device is held by another program, usually a running adb server: use it, or "
         "run `adb kill-server`; else " +
         WinUsbDriverHint();
#else
  return "no permission to open the device: " + UdevRuleHint();
#endif
}

std::string UsbErrorMessage(const std::string& what, int code) {
  std::string hint;
  if (code == kUsbErrorAccess) {
    hint = " (" + AccessHint() + ")";
  } else if (code == kUsbErrorBusy) {
    hint =
        " (another program holds the device, usually a running adb server: use it, or run "
        "`adb kill-server`)";
  } else if (code == kUsbErrorNotSupported) {
    hint = " (" + WinUsbDriverHint() + ")";
  } else if (code == kUsbErrorNoDevice) {
    hint = " (device disconnected)";
  }
  return "usb: " + what + ": " + UsbErrorName(code) + hint;
}

bool FindAdbInterface(const UsbDeviceDescriptor& device, UsbAdbInterface* found) {
  for (const UsbInterfaceDescriptor& itf : device.interfaces) {
    if (itf.interface_class != kAdbClass || itf.interface_subclass != kAdbSubclass ||
        itf.interface_protocol != kAdbProtocol) {
      continue;
    }
    UsbAdbInterface a;
    a.number = itf.number;
    for (const UsbEndpointDescriptor& ep : itf.endpoints) {
      if ((ep.attributes & 0x03) != kUsbTransferTypeBulk) continue;
      if (ep.address & kUsbEndpointIn) {
        if (!a.in) a.in = ep.address;
      } else if (!a.out) {
        a.out = ep.address;
        a.out_max_packet = ep.max_packet_size & 0x7ff;
      }
    }
    if (a.in && a.out) {
      *found = a;
      return true;
    }
  }
  return false;
}

Result<std::vector<UsbDeviceInfo>> UsbTransport::List() {
  auto backend = DefaultUsbBackend();
  if (!backend) return ErrorStatus("usb: this build has no USB support (libusb missing)");
  return List(*backend);
}

Result<std::vector<UsbDeviceInfo>> UsbTransport::List(UsbBackend& backend) {
  std::vector<UsbDeviceDescriptor> devices;
  if (int r = backend.ListDevices(&devices); r != 0) return UsbError("list devices", r);
  std::vector<UsbDeviceInfo> out;
  for (const UsbDeviceDescriptor& dev : devices) {
    UsbAdbInterface itf;
    if (!FindAdbInterface(dev, &itf)) continue;
    UsbDeviceInfo info;
    info.vendor_id = dev.vendor_id;
    info.product_id = dev.product_id;
    info.path = dev.path;
    std::unique_ptr<UsbDeviceHandle> h;
    if (int r = backend.Open(dev.path, &h); r == 0) {
      h->ReadSerial(&info.serial);
    } else {
      info.problem = UsbErrorMessage("open", r);
    }
    if (info.serial.empty()) info.serial = "usb:" + info.path;
    out.push_back(std::move(info));
  }
  return out;
}

Result<std::unique_ptr<UsbTransport>> UsbTransport::Open(const std::string& serial) {
  auto backend = DefaultUsbBackend();
  if (!backend) return ErrorStatus("usb: this build has no USB support (libusb missing)");
  return Open(std::move(backend), serial);
}

Result<std::unique_ptr<UsbTransport>> UsbTransport::Open(std::shared_ptr<UsbBackend> backend,
                                                         const std::string& serial,
                                                         int* error_code) {
  if (error_code) *error_code = kUsbErrorNotFound;
  std::vector<UsbDeviceDescriptor> devices;
  if (int r = backend->ListDevices(&devices); r != 0) {
    if (error_code) *error_code = r;
    return UsbError("list devices", r);
  }
  Status last = ErrorStatus("usb: device '" + serial + "' not found");
  for (const UsbDeviceDescriptor& dev : devices) {
    UsbAdbInterface itf;
    if (!FindAdbInterface(dev, &itf)) continue;
    std::unique_ptr<UsbDeviceHandle> h;
    if (int r = backend->Open(dev.path, &h); r != 0) {
      // Without permission the serial is unreadable: only a path match can blame this one.
      if (serial == "usb:" + dev.path || serial == dev.path) {
        last = UsbError("open " + serial, r);
        if (error_code) *error_code = r;
      }
      continue;
    }
    std::string s;
    h->ReadSerial(&s);
    if (!MatchesSerial(serial, s, dev.path)) continue;
    // No kernel driver binds the ADB interface on Linux/macOS; claiming fails with BUSY when
    // another adb holds it.
    if (int r = h->ClaimInterface(itf.number); r != 0) {
      if (error_code) *error_code = r;
      return UsbError("claim interface of " + serial, r);
    }
    // Clears stale halts left by a previous client; failures here are harmless.
    h->ClearHalt(itf.in);
    h->ClearHalt(itf.out);
    std::unique_ptr<UsbTransport> t(new UsbTransport());
    t->backend_ = std::move(backend);
    t->handle_ = std::move(h);
    t->interface_ = itf.number;
    t->in_ = itf.in;
    t->out_ = itf.out;
    t->out_max_packet_ = itf.out_max_packet ? itf.out_max_packet : 512;
    t->path_ = dev.path;
    if (error_code) *error_code = kUsbOk;
    return t;
  }
  return last;
}

UsbTransport::~UsbTransport() {
  closed_ = true;
  if (handle_) handle_->ReleaseInterface(interface_);
}

Status UsbTransport::Bulk(uint8_t endpoint, unsigned char* data, size_t size, Deadline deadline,
                          const CancelToken& cancel) {
  const char* what = endpoint & kUsbEndpointIn ? "read" : "write";
  size_t done = 0;
  int stalls = 0;
  // size == 0 still performs one transfer: that is the zero-length packet.
  while (true) {
    if (closed_) return ErrorStatus("usb: transport closed");
    if (cancel.cancelled()) return ErrorStatus("cancelled");
    if (deadline.expired()) return ErrorStatus(std::string("usb: ") + what + ": timed out");
    int transferred = 0;
    auto slice =
        static_cast<unsigned int>(std::max<long long>(1, deadline.Remaining(Millis(250)).count()));
    int r = handle_->BulkTransfer(endpoint, data + done,
                                  static_cast<int>(std::min<size_t>(size - done, 1 << 20)),
                                  &transferred, slice);
    done += static_cast<size_t>(std::max(0, transferred));
    if (r == kUsbErrorPipe) {
      // The endpoint halted (stall): clear it and retry the rest, as adb does.
      if (++stalls > kMaxStallsPerTransfer) return UsbError(what, r);
      if (int c = handle_->ClearHalt(endpoint); c != 0) return UsbError("clear halt", c);
      ++stalls_cleared_;
      continue;
    }
    if (r == kUsbErrorTimeout && (size == 0 || done < size)) continue;
    if (r != 0 && r != kUsbErrorTimeout) {
      // NO_DEVICE / IO after an unplug: nothing more will work on this handle.
      if (r == kUsbErrorNoDevice || r == kUsbErrorIo) closed_ = true;
      return UsbError(what, r);
    }
    if (done >= size) return Status::Ok();
  }
}

Status UsbTransport::Send(const Message& message, uint32_t version, Deadline deadline,
                          const CancelToken& cancel) {
  std::lock_guard<std::mutex> l(send_mutex_);
  // Header and payload as separate transfers: old adbd reads them separately.
  std::string header = EncodeHeader(message, version);
  auto* h = reinterpret_cast<unsigned char*>(header.data());
  if (Status s = Bulk(out_, h, header.size(), deadline, cancel); !s.ok()) return s;
  if (message.payload.empty()) return Status::Ok();
  // The backend takes a non-const buffer but never writes to OUT data: no copy needed.
  auto* p = reinterpret_cast<unsigned char*>(const_cast<char*>(message.payload.data()));
  if (Status s = Bulk(out_, p, message.payload.size(), deadline, cancel); !s.ok()) return s;
  // Without a ZLP the device keeps waiting for the end of its 16 KiB read and stalls.
  if (message.payload.size() % out_max_packet_ == 0)
    return Bulk(out_, nullptr, 0, deadline, cancel);
  return Status::Ok();
}

Result<Message> UsbTransport::Receive(uint32_t max_payload, Deadline deadline,
                                      const CancelToken& cancel) {
  while (true) {
    unsigned char header[kHeaderSize];
    if (Status s = Bulk(in_, header, kHeaderSize, deadline, cancel); !s.ok()) return s;
    auto h =
        DecodeHeader(std::string_view(reinterpret_cast<char*>(header), kHeaderSize), max_payload);
    if (!h.ok()) {
      // Stale bytes from a crashed earlier client: skip until a valid header (spec §11).
      continue;
    }
    Message m{h->command, h->arg0, h->arg1, std::string(h->data_length, '\0')};
    if (h->data_length > 0) {
      auto* p = reinterpret_cast<unsigned char*>(m.payload.data());
      if (Status s = Bulk(in_, p, m.payload.size(), deadline, cancel); !s.ok()) return s;
    }
    return m;
  }
}

#ifndef FATHOM_ADB_HAVE_LIBUSB
std::shared_ptr<UsbBackend> DefaultUsbBackend() { return nullptr; }
#endif

}  // namespace fathom::adb
