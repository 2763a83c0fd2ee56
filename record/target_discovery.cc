#include "record/target_discovery.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "adb/server_client.h"
#include "base/utf8_path.h"
#if defined(FATHOM_ADB_HAVE_LIBUSB)
#include "adb/usb_transport.h"
#endif

namespace fathom::record {

std::vector<TargetEntry> DiscoverTargets(const std::vector<std::string>& tcp_serials) {
  std::vector<TargetEntry> out;
#if defined(__linux__)
  out.push_back({TargetEntry::kLocal, "", "This computer (Linux)", "device", "", ""});
#endif
  std::set<std::string> seen;
  adb::ServerClient server(adb::ServerAddress::FromEnvironment(), adb::Millis(1500));
  if (auto devices = server.Devices(); devices.ok()) {
    for (const adb::DeviceEntry& d : *devices) {
      TargetEntry e{TargetEntry::kServer, d.serial, "", d.state, "", ""};
      const std::string model = d.Attr("model");
      e.label = (model.empty() ? d.serial : model + " — " + d.serial) + " (adb server)";
      if (d.state == "unauthorized") {
        e.problem = "unauthorized: unlock the device and accept \"Allow USB debugging\"";
      } else if (d.state == "offline") {
        e.problem = "offline: reconnect the cable or restart adb on the device";
      }
      for (const auto& [k, v] : d.attributes)
        e.details += (e.details.empty() ? "" : " ") + k + ":" + v;
      seen.insert(d.serial);
      out.push_back(e);
    }
  }
#if defined(FATHOM_ADB_HAVE_LIBUSB)
  if (auto usb = adb::UsbTransport::List(); usb.ok()) {
    for (const adb::UsbDeviceInfo& d : *usb) {
      if (seen.count(d.serial)) continue;  // the server holds it: use the server
      TargetEntry e{TargetEntry::kUsb, d.serial, d.serial + " (usb)", "", d.problem, ""};
      char ids[16];
      snprintf(ids, sizeof(ids), "%04x:%04x", d.vendor_id, d.product_id);
      e.details = "usb:" + d.path + " id:" + ids;
      if (!d.problem.empty() && d.problem.find("busy") != std::string::npos) {
        e.problem =
            "the USB interface is held by another adb (an adb server of another user "
            "or tool): stop it with `adb kill-server`, or record through it";
      }
      out.push_back(e);
    }
  }
#endif
  for (const std::string& s : tcp_serials) {
    if (!seen.insert(s).second) continue;  // the server has it, or listed twice
    out.push_back({TargetEntry::kTcp, s, s + " (tcp)", "", "", "remembered"});
  }
  return out;
}

std::string RememberedTcpTargetsPath() {
  std::filesystem::path dir;
#if defined(_WIN32)
  if (const wchar_t* app = _wgetenv(L"APPDATA")) dir = app;  // UTF-16: any user name
#else
  if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg) {
    dir = xdg;
  } else if (const char* home = std::getenv("HOME")) {
    dir = std::filesystem::path(home) / ".config";
  }
#endif
  return PathToUtf8(dir / "fathom" / "tcp-targets");
}

std::vector<std::string> LoadRememberedTcpTargets() {
  std::vector<std::string> out;
  std::ifstream in(PathFromUtf8(RememberedTcpTargetsPath()));
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty() && line[0] != '#' && std::find(out.begin(), out.end(), line) == out.end()) {
      out.push_back(line);
    }
  }
  return out;
}

Status SetTcpTargetRemembered(const std::string& serial, bool remembered) {
  std::vector<std::string> list = LoadRememberedTcpTargets();
  auto it = std::find(list.begin(), list.end(), serial);
  if (remembered == (it != list.end())) return Status::Ok();
  if (remembered) {
    list.push_back(serial);
  } else {
    list.erase(it);
  }
  const std::filesystem::path path = PathFromUtf8(RememberedTcpTargetsPath());
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  // Whole-file replace so a crash never leaves half a list.
  std::filesystem::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    for (const std::string& s : list) out << s << "\n";
    if (!out) return ErrorStatus(PathToUtf8(tmp) + ": cannot write");
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) return ErrorStatus(PathToUtf8(path) + ": " + ec.message());
  return Status::Ok();
}

}  // namespace fathom::record
