// `fathom-cli devices [-l]`: every Android device Fathom can reach, as the
// Record page lists them (record::DiscoverTargets): devices a running adb
// server holds, USB devices no server holds, and remembered TCP devices,
// one line per serial. Serials, states and properties come from devices (USB
// descriptors, the adb server, device banners): printed TerminalSafe.
#include <cstdio>

#include "adb/server_client.h"
#include "app/cli/adb_options.h"
#include "app/cli/commands.h"
#include "app/cli/terminal_text.h"
#include "record/target_discovery.h"
#if defined(FATHOM_ADB_HAVE_LIBUSB)
#include "adb/usb_transport.h"
#endif

namespace fathom::cli {

int RunDevices(const std::vector<std::string>& args) {
  bool long_format = false;
  for (const std::string& a : args) {
    if (a == "-l") {
      long_format = true;
    } else {
      std::fprintf(stderr, "usage: fathom-cli devices [-l]\n");
      return 2;
    }
  }
  const std::vector<record::TargetEntry> targets =
      record::DiscoverTargets(record::LoadRememberedTcpTargets());
  std::printf("List of devices attached\n");
  for (const record::TargetEntry& e : targets) {
    if (e.kind == record::TargetEntry::kLocal) continue;
    const char* via = e.kind == record::TargetEntry::kServer ? "server"
                      : e.kind == record::TargetEntry::kUsb  ? "usb"
                                                             : "tcp";
    std::string state = e.state;
    if (state.empty()) state = e.problem.empty() ? "available" : "unusable";
    std::printf("%-24s %-13s %-7s", TerminalSafe(e.serial).c_str(), TerminalSafe(state).c_str(),
                via);
    if (long_format && !e.details.empty()) std::printf(" %s", TerminalSafe(e.details).c_str());
    std::printf("\n");
    if (!e.problem.empty()) std::printf("    %s\n", TerminalSafe(e.problem).c_str());
  }
  // Where the list came from, so an empty or short list is explicable.
  adb::ServerAddress address = adb::ServerAddress::FromEnvironment();
  auto server = adb::ServerClient(address, adb::Millis(1500)).Devices();
  std::printf("adb server %s:%u: ", address.host.c_str(), address.port);
  if (server.ok()) {
    std::printf("%zu device%s\n", server->size(), server->size() == 1 ? "" : "s");
  } else {
    std::printf("not reachable (%s)\n", TerminalSafe(server.status().message()).c_str());
  }
#if defined(FATHOM_ADB_HAVE_LIBUSB)
  auto usb = adb::UsbTransport::List();
  if (usb.ok()) {
    std::printf("usb: %zu device%s with an adb interface\n", usb->size(),
                usb->size() == 1 ? "" : "s");
  } else {
    std::printf("usb: unavailable (%s)\n", TerminalSafe(usb.status().message()).c_str());
  }
#else
  std::printf("usb: not built with libusb\n");
#endif
  std::printf("tcp: %zu remembered (%s)\n", record::LoadRememberedTcpTargets().size(),
              record::RememberedTcpTargetsPath().c_str());
  return 0;
}

}  // namespace fathom::cli
