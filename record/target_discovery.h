// Every place Fathom can record right now: this computer, the devices a
// running adb server holds, USB devices no server holds, and the TCP devices
// the user added. Quick (no handshake): the Record page refreshes it every
// few seconds and on hotplug; details come from ProbeTarget() on selection.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace fathom::record {

struct TargetEntry {
  enum Kind { kLocal, kServer, kUsb, kTcp } kind = kLocal;
  std::string serial;   // empty for kLocal
  std::string label;    // "Pixel 7 (usb)", "This computer"
  std::string state;    // device, unauthorized, offline, "" when unknown
  std::string problem;  // why it cannot be used, in words a user can act on
  std::string details;  // "product:x model:y device:z transport_id:n usb:1-2" (`devices -l`)
};

std::vector<TargetEntry> DiscoverTargets(const std::vector<std::string>& tcp_serials);

// "HOST:PORT" targets the user added with `fathom-cli connect`, one per line in
// $XDG_CONFIG_HOME/fathom/tcp-targets (default ~/.config; %APPDATA% on Windows).
// A plain file so the CLI needs no Qt; a missing file is an empty list.
std::string RememberedTcpTargetsPath();
std::vector<std::string> LoadRememberedTcpTargets();
Status SetTcpTargetRemembered(const std::string& serial, bool remembered);

}  // namespace fathom::record
