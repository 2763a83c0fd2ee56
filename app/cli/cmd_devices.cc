// `fathom-cli devices`: every Android device Fathom can reach, the way the
// Record page will list them: through a running adb server (which owns the
// USB devices it has claimed) and directly over USB (libusb) when no server
// holds them.
#include <chrono>
#include <cstdio>

#include "adb/server_client.h"
#include "app/cli/commands.h"
#if defined(FATHOM_ADB_HAVE_LIBUSB)
#include "adb/usb_transport.h"
#endif

namespace fathom::cli {

int RunDevices(const std::vector<std::string>& args) {
  if (!args.empty()) {
    fprintf(stderr, "usage: fathom-cli devices\n");
    return 2;
  }
  adb::ServerAddress address = adb::ServerAddress::FromEnvironment();
  printf("adb server %s:%u: ", address.host.c_str(), address.port);
  adb::ServerClient server(address, adb::Millis(3000));
  auto devices = server.Devices();
  if (!devices.ok()) {
    printf("not reachable (%s)\n", devices.status().message().c_str());
  } else {
    printf("%zu device%s\n", devices->size(), devices->size() == 1 ? "" : "s");
    for (const adb::DeviceEntry& d : *devices)
      printf("  %-24s %-14s model=%s product=%s\n", d.serial.c_str(), d.state.c_str(),
             d.Attr("model").c_str(), d.Attr("product").c_str());
  }
#if defined(FATHOM_ADB_HAVE_LIBUSB)
  auto usb = adb::UsbTransport::List();
  if (!usb.ok()) {
    printf("usb: unavailable (%s)\n", usb.status().message().c_str());
  } else {
    printf("usb: %zu device%s with an adb interface\n", usb->size(), usb->size() == 1 ? "" : "s");
    for (const adb::UsbDeviceInfo& d : *usb)
      printf("  %-24s usb:%s %04x:%04x%s%s\n", d.serial.c_str(), d.path.c_str(), d.vendor_id,
             d.product_id, d.problem.empty() ? "" : "  ", d.problem.c_str());
  }
#else
  printf("usb: not built with libusb\n");
#endif
  return 0;
}

}  // namespace fathom::cli
