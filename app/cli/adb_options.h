// Device selection shared by the adb verbs of fathom-cli (devices, shell, push,
// pull, connect): -s SERIAL, ANDROID_SERIAL, --transport auto|usb|tcp|server.
#pragma once

#include <string>
#include <vector>

#include "adb/remote_tree.h"
#include "adb/timeouts.h"
#include "base/status.h"
#include "record/target_shell.h"

namespace fathom::cli {

struct AdbOptions {
  std::string serial;  // -s, else $ANDROID_SERIAL (filled by ChooseSerial)
  record::AdbRoute route = record::AdbRoute::kAuto;
  adb::RemoteTreeLimits tree_limits;  // pull DIR: --max-depth N, --max-entries N
  // --timeout-connect/-auth/-open/-idle SEC; parsing one also makes it the process default
  // (adb::SetDefaultTimeouts), which every connection and stream opened afterwards uses.
  adb::AdbTimeouts timeouts = adb::DefaultTimeouts();
};

// The option list for usage texts.
inline constexpr const char* kAdbLimitOptions =
    "[--timeout-connect SEC] [--timeout-auth SEC] [--timeout-open SEC] [--timeout-idle SEC]";

// Parses one option at args[i]: returns how many arguments it used (0: not one
// of ours, -1: bad value, already reported on stderr).
int ParseAdbOption(const std::vector<std::string>& args, size_t i, AdbOptions* o);
// Options anywhere, everything else into *positional. False after a usage error.
bool ParseAdbArgs(const std::vector<std::string>& args, AdbOptions* o,
                  std::vector<std::string>* positional);
// -s, then ANDROID_SERIAL, then the only usable device Fathom can see on the
// chosen route (adb server, USB, remembered TCP); an error naming the choices
// when there are none or several.
Result<std::string> ChooseSerial(const AdbOptions& o);
const char* RouteName(record::AdbRoute route);

}  // namespace fathom::cli
