#include "adb/usb_transport.h"

#include <libusb.h>

#include <algorithm>
#include <set>

namespace fathom::adb {
namespace {

constexpr uint8_t kAdbClass = 0xff, kAdbSubclass = 0x42, kAdbProtocol = 0x01;

// One libusb context per process, created on first use.
Result<std::shared_ptr<libusb_context>> Context() {
  static std::mutex mu;
  static std::weak_ptr<libusb_context> cached;
  std::lock_guard<std::mutex> l(mu);
  if (auto c = cached.lock()) return c;
  libusb_context* raw = nullptr;
  if (int r = libusb_init(&raw); r != 0) {
    return ErrorStatus(std::string("libusb_init: ") + libusb_error_name(r));
  }
  std::shared_ptr<libusb_context> c(raw, libusb_exit);
  cached = c;
  return c;
}

Status UsbError(const std::string& what, int r) {
  std::string hint;
  if (r == LIBUSB_ERROR_ACCESS) {
    hint =
        " (no permission to open the device: on Linux install Fathom's udev rule "
        "70-fathom-adb.rules — the package puts it in /lib/udev/rules.d, the archive ships it "
        "in packaging/linux — then run `sudo udevadm control --reload-rules` and replug)";
  } else if (r == LIBUSB_ERROR_BUSY) {
    hint =
        " (another program holds the device, often a running adb server: use it, or run "
        "`adb kill-server`)";
  } else if (r == LIBUSB_ERROR_NOT_SUPPORTED) {
    hint = " (on Windows the ADB interface must use the WinUSB driver)";
  }
  return ErrorStatus("usb: " + what + ": " + libusb_error_name(r) + hint);
}

std::string PortPath(libusb_device* dev) {
  uint8_t ports[8];
  int n = libusb_get_port_numbers(dev, ports, sizeof(ports));
  std::string path = std::to_string(libusb_get_bus_number(dev)) + "-";
  for (int i = 0; i < n; ++i) {
    if (i) path += '.';
    path += std::to_string(ports[i]);
  }
  return path;
}

struct AdbInterface {
  int number = -1;
  unsigned char in = 0, out = 0;
  size_t out_max_packet = 0;
};

// The ADB interface of the active configuration, if any.
bool FindAdbInterface(libusb_device* dev, AdbInterface* found) {
  libusb_config_descriptor* config = nullptr;
  if (libusb_get_active_config_descriptor(dev, &config) != 0) return false;
  bool ok = false;
  for (int i = 0; i < config->bNumInterfaces && !ok; ++i) {
    const libusb_interface& itf = config->interface[i];
    if (itf.num_altsetting < 1) continue;
    const libusb_interface_descriptor& alt = itf.altsetting[0];
    if (alt.bInterfaceClass != kAdbClass || alt.bInterfaceSubClass != kAdbSubclass ||
        alt.bInterfaceProtocol != kAdbProtocol) {
      continue;
    }
    AdbInterface a;
    a.number = alt.bInterfaceNumber;
    for (int e = 0; e < alt.bNumEndpoints; ++e) {
      const libusb_endpoint_descriptor& ep = alt.endpoint[e];
      if ((ep.bmAttributes & LIBUSB_TRANSFER_TYPE_MASK) != LIBUSB_TRANSFER_TYPE_BULK) continue;
      if ((ep.bEndpointAddress & LIBUSB_ENDPOINT_DIR_MASK) == LIBUSB_ENDPOINT_IN) {
        if (!a.in) a.in = ep.bEndpointAddress;
      } else if (!a.out) {
        a.out = ep.bEndpointAddress;
        a.out_max_packet = ep.wMaxPacketSize & 0x7ff;
      }
    }
    if (a.in && a.out) {
      *found = a;
      ok = true;
    }
  }
  libusb_free_config_descriptor(config);
  return ok;
}

// Reads the serial string; needs the device opened (and permission to do so).
std::string ReadSerial(libusb_device_handle* h, libusb_device* dev) {
  libusb_device_descriptor desc;
  if (libusb_get_device_descriptor(dev, &desc) != 0 || desc.iSerialNumber == 0) return {};
  unsigned char buf[256];
  int n = libusb_get_string_descriptor_ascii(h, desc.iSerialNumber, buf, sizeof(buf));
  return n > 0 ? std::string(reinterpret_cast<char*>(buf), static_cast<size_t>(n)) : "";
}

}  // namespace

Result<std::vector<UsbDeviceInfo>> UsbTransport::List() {
  auto ctx = Context();
  if (!ctx.ok()) return ctx.status();
  libusb_device** list = nullptr;
  ssize_t n = libusb_get_device_list(ctx->get(), &list);
  if (n < 0) return UsbError("list devices", static_cast<int>(n));
  std::vector<UsbDeviceInfo> out;
  for (ssize_t i = 0; i < n; ++i) {
    libusb_device* dev = list[i];
    AdbInterface itf;
    if (!FindAdbInterface(dev, &itf)) continue;
    UsbDeviceInfo info;
    libusb_device_descriptor desc;
    if (libusb_get_device_descriptor(dev, &desc) == 0) {
      info.vendor_id = desc.idVendor;
      info.product_id = desc.idProduct;
    }
    info.path = PortPath(dev);
    libusb_device_handle* h = nullptr;
    if (int r = libusb_open(dev, &h); r == 0) {
      info.serial = ReadSerial(h, dev);
      libusb_close(h);
    } else {
      info.problem = UsbError("open", r).message();
    }
    if (info.serial.empty()) info.serial = "usb:" + info.path;
    out.push_back(std::move(info));
  }
  libusb_free_device_list(list, 1);
  return out;
}

Result<std::unique_ptr<UsbTransport>> UsbTransport::Open(const std::string& serial) {
  auto ctx = Context();
  if (!ctx.ok()) return ctx.status();
  libusb_device** list = nullptr;
  ssize_t n = libusb_get_device_list(ctx->get(), &list);
  if (n < 0) return UsbError("list devices", static_cast<int>(n));
  Status last = ErrorStatus("usb: device '" + serial + "' not found");
  std::unique_ptr<UsbTransport> t;
  for (ssize_t i = 0; i < n && !t; ++i) {
    libusb_device* dev = list[i];
    AdbInterface itf;
    if (!FindAdbInterface(dev, &itf)) continue;
    std::string path = PortPath(dev);
    libusb_device_handle* h = nullptr;
    if (int r = libusb_open(dev, &h); r != 0) {
      if (serial == "usb:" + path || serial == path) last = UsbError("open " + serial, r);
      continue;
    }
    std::string s = ReadSerial(h, dev);
    if (s != serial && serial != "usb:" + path && serial != path) {
      libusb_close(h);
      continue;
    }
    // No kernel driver binds the ADB interface on Linux/macOS; claiming fails with BUSY when
    // another adb holds it.
    if (int r = libusb_claim_interface(h, itf.number); r != 0) {
      last = UsbError("claim interface of " + serial, r);
      libusb_close(h);
      continue;
    }
    // Clears stale halts left by a previous client; failures here are harmless.
    libusb_clear_halt(h, itf.in);
    libusb_clear_halt(h, itf.out);
    t.reset(new UsbTransport());
    t->ctx_ = *ctx;
    t->handle_ = h;
    t->interface_ = itf.number;
    t->in_ = itf.in;
    t->out_ = itf.out;
    t->out_max_packet_ = itf.out_max_packet ? itf.out_max_packet : 512;
    t->path_ = path;
  }
  libusb_free_device_list(list, 1);
  if (!t) return last;
  return t;
}

UsbTransport::~UsbTransport() {
  closed_ = true;
  if (handle_) {
    libusb_release_interface(handle_, interface_);
    libusb_close(handle_);
  }
}

Status UsbTransport::Bulk(unsigned char endpoint, unsigned char* data, size_t size,
                          Deadline deadline, const CancelToken& cancel) {
  size_t done = 0;
  // size == 0 still performs one transfer: that is the zero-length packet.
  while (true) {
    if (closed_) return ErrorStatus("usb: transport closed");
    if (cancel.cancelled()) return ErrorStatus("cancelled");
    if (deadline.expired()) return ErrorStatus("usb: timed out");
    int transferred = 0;
    auto slice =
        static_cast<unsigned int>(std::max<long long>(1, deadline.Remaining(Millis(250)).count()));
    int r = libusb_bulk_transfer(handle_, endpoint, data + done,
                                 static_cast<int>(std::min<size_t>(size - done, 1 << 20)),
                                 &transferred, slice);
    done += static_cast<size_t>(transferred);
    if (r == LIBUSB_ERROR_TIMEOUT && (size == 0 || done < size)) continue;
    if (r != 0 && r != LIBUSB_ERROR_TIMEOUT) {
      // NO_DEVICE / IO / PIPE after an unplug all mean the device is gone.
      return UsbError(endpoint & LIBUSB_ENDPOINT_IN ? "read" : "write", r);
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
  // libusb takes a non-const buffer but never writes to OUT data: no copy needed.
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

// ---- UsbWatcher ----

namespace {
int LIBUSB_CALL OnHotplug(libusb_context*, libusb_device*, libusb_hotplug_event, void* user) {
  (*static_cast<std::function<void()>*>(user))();
  return 0;  // stay registered
}
}  // namespace

UsbWatcher::UsbWatcher(std::function<void()> on_change) : on_change_(std::move(on_change)) {
  auto ctx = Context();
  if (!ctx.ok()) return;
  ctx_ = *ctx;
  if (libusb_has_capability(LIBUSB_CAP_HAS_HOTPLUG)) {
    hotplug_ = libusb_hotplug_register_callback(
                   ctx_.get(),
                   static_cast<libusb_hotplug_event>(LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED |
                                                     LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT),
                   LIBUSB_HOTPLUG_NO_FLAGS, LIBUSB_HOTPLUG_MATCH_ANY, LIBUSB_HOTPLUG_MATCH_ANY,
                   LIBUSB_HOTPLUG_MATCH_ANY, OnHotplug, &on_change_, &hotplug_handle_) == 0;
  }
  thread_ = std::thread([this] {
    std::set<std::string> last;
    while (!stop_) {
      if (hotplug_) {
        timeval tv{0, 200 * 1000};  // wake up regularly to notice stop_
        libusb_handle_events_timeout_completed(ctx_.get(), &tv, nullptr);
        continue;
      }
      auto list = UsbTransport::List();
      std::set<std::string> now;
      if (list.ok()) {
        for (const auto& d : *list) now.insert(d.serial);
      }
      if (now != last) on_change_();
      last = std::move(now);
      for (int i = 0; i < 10 && !stop_; ++i) std::this_thread::sleep_for(Millis(100));
    }
  });
}

UsbWatcher::~UsbWatcher() {
  stop_ = true;
  if (hotplug_) libusb_hotplug_deregister_callback(ctx_.get(), hotplug_handle_);
  if (thread_.joinable()) thread_.join();
}

}  // namespace fathom::adb
