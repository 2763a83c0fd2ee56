// UsbBackend on libusb-1.0, and the libusb hotplug watcher. The only file that includes
// libusb.h; compiled when libusb is found (FATHOM_ADB_HAVE_LIBUSB).
#include <libusb.h>

#include <functional>
#include <mutex>
#include <set>

#include "adb/usb_transport.h"

namespace fathom::adb {
namespace {

constexpr bool Same(int a, int b) { return a == b; }
static_assert(Same(kUsbErrorAccess, LIBUSB_ERROR_ACCESS) &&
                  Same(kUsbErrorBusy, LIBUSB_ERROR_BUSY) &&
                  Same(kUsbErrorNoDevice, LIBUSB_ERROR_NO_DEVICE) &&
                  Same(kUsbErrorTimeout, LIBUSB_ERROR_TIMEOUT) &&
                  Same(kUsbErrorPipe, LIBUSB_ERROR_PIPE) &&
                  Same(kUsbErrorOverflow, LIBUSB_ERROR_OVERFLOW) &&
                  Same(kUsbErrorNotSupported, LIBUSB_ERROR_NOT_SUPPORTED) &&
                  Same(kUsbErrorNotFound, LIBUSB_ERROR_NOT_FOUND) &&
                  Same(kUsbErrorIo, LIBUSB_ERROR_IO),
              "usb_backend.h mirrors libusb's error codes");

// One libusb context per process, created on first use.
std::shared_ptr<libusb_context> Context(int* error) {
  static std::mutex mu;
  static std::weak_ptr<libusb_context> cached;
  std::lock_guard<std::mutex> l(mu);
  if (auto c = cached.lock()) return c;
  libusb_context* raw = nullptr;
  if (int r = libusb_init(&raw); r != 0) {
    if (error) *error = r;
    return nullptr;
  }
  std::shared_ptr<libusb_context> c(raw, libusb_exit);
  cached = c;
  return c;
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

void Describe(libusb_device* dev, UsbDeviceDescriptor* out) {
  out->path = PortPath(dev);
  libusb_device_descriptor desc;
  if (libusb_get_device_descriptor(dev, &desc) == 0) {
    out->vendor_id = desc.idVendor;
    out->product_id = desc.idProduct;
  }
  libusb_config_descriptor* config = nullptr;
  if (libusb_get_active_config_descriptor(dev, &config) != 0) return;
  for (int i = 0; i < config->bNumInterfaces; ++i) {
    const libusb_interface& itf = config->interface[i];
    if (itf.num_altsetting < 1) continue;
    const libusb_interface_descriptor& alt = itf.altsetting[0];
    UsbInterfaceDescriptor d;
    d.number = alt.bInterfaceNumber;
    d.interface_class = alt.bInterfaceClass;
    d.interface_subclass = alt.bInterfaceSubClass;
    d.interface_protocol = alt.bInterfaceProtocol;
    for (int e = 0; e < alt.bNumEndpoints; ++e) {
      const libusb_endpoint_descriptor& ep = alt.endpoint[e];
      d.endpoints.push_back({ep.bEndpointAddress, ep.bmAttributes, ep.wMaxPacketSize});
    }
    out->interfaces.push_back(std::move(d));
  }
  libusb_free_config_descriptor(config);
}

class LibusbHandle : public UsbDeviceHandle {
 public:
  LibusbHandle(std::shared_ptr<libusb_context> ctx, libusb_device_handle* h)
      : ctx_(std::move(ctx)), h_(h) {}
  ~LibusbHandle() override { libusb_close(h_); }
  int ReadSerial(std::string* serial) override {
    serial->clear();
    libusb_device_descriptor desc;
    int r = libusb_get_device_descriptor(libusb_get_device(h_), &desc);
    if (r != 0 || desc.iSerialNumber == 0) return r;
    unsigned char buf[256];
    int n = libusb_get_string_descriptor_ascii(h_, desc.iSerialNumber, buf, sizeof(buf));
    if (n < 0) return n;
    serial->assign(reinterpret_cast<char*>(buf), static_cast<size_t>(n));
    return 0;
  }
  int ClaimInterface(int number) override { return libusb_claim_interface(h_, number); }
  int ReleaseInterface(int number) override { return libusb_release_interface(h_, number); }
  int ClearHalt(uint8_t endpoint) override { return libusb_clear_halt(h_, endpoint); }
  int BulkTransfer(uint8_t endpoint, unsigned char* data, int length, int* transferred,
                   unsigned timeout_ms) override {
    return libusb_bulk_transfer(h_, endpoint, data, length, transferred, timeout_ms);
  }

 private:
  std::shared_ptr<libusb_context> ctx_;  // outlives the handle
  libusb_device_handle* h_;
};

class LibusbBackend : public UsbBackend {
 public:
  int ListDevices(std::vector<UsbDeviceDescriptor>* out) override {
    return ForEachDevice([&](const std::shared_ptr<libusb_context>&, libusb_device* dev) {
      UsbDeviceDescriptor d;
      Describe(dev, &d);
      out->push_back(std::move(d));
      return true;
    });
  }
  int Open(const std::string& path, std::unique_ptr<UsbDeviceHandle>* out) override {
    int r = LIBUSB_ERROR_NOT_FOUND;
    int listed = ForEachDevice([&](const std::shared_ptr<libusb_context>& ctx, libusb_device* dev) {
      if (PortPath(dev) != path) return true;
      libusb_device_handle* h = nullptr;
      r = libusb_open(dev, &h);
      if (r == 0) out->reset(new LibusbHandle(ctx, h));
      return false;
    });
    return listed < 0 ? listed : r;
  }

 private:
  // Calls `visit(context, device)` for each attached device until it returns false. A
  // libusb error code (< 0) when the devices cannot be listed, else 0.
  static int ForEachDevice(
      const std::function<bool(const std::shared_ptr<libusb_context>&, libusb_device*)>& visit) {
    int error = LIBUSB_ERROR_OTHER;
    auto ctx = Context(&error);
    if (!ctx) return error;
    libusb_device** list = nullptr;
    ssize_t n = libusb_get_device_list(ctx.get(), &list);
    if (n < 0) return static_cast<int>(n);
    for (ssize_t i = 0; i < n && visit(ctx, list[i]); ++i) {
    }
    libusb_free_device_list(list, 1);
    return 0;
  }
};

int LIBUSB_CALL OnHotplug(libusb_context*, libusb_device*, libusb_hotplug_event, void* user) {
  (*static_cast<std::function<void()>*>(user))();
  return 0;  // stay registered
}

}  // namespace

std::shared_ptr<UsbBackend> DefaultUsbBackend() {
  static std::shared_ptr<UsbBackend> backend = std::make_shared<LibusbBackend>();
  return backend;
}

UsbWatcher::UsbWatcher(std::function<void()> on_change) : on_change_(std::move(on_change)) {
  ctx_ = Context(nullptr);
  if (!ctx_) return;
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
