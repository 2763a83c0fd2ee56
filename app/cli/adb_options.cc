#include "app/cli/adb_options.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "record/target_discovery.h"

namespace fathom::cli {

const char* RouteName(record::AdbRoute route) {
  switch (route) {
    case record::AdbRoute::kUsb:
      return "usb";
    case record::AdbRoute::kTcp:
      return "tcp";
    case record::AdbRoute::kServer:
      return "server";
    case record::AdbRoute::kAuto:
      break;
  }
  return "auto";
}

namespace {

// "--name VALUE" or "--name=VALUE": sets *value and *used (arguments taken), or returns
// false when args[i] is not this option.
bool TakeValue(const std::vector<std::string>& args, size_t i, const std::string& name,
               std::string* value, int* used) {
  const std::string& a = args[i];
  if (a == name) {
    if (i + 1 >= args.size()) {
      *used = -1;
      std::fprintf(stderr, "fathom-cli: %s needs a value\n", a.c_str());
      return true;
    }
    *value = args[i + 1];
    *used = 2;
    return true;
  }
  if (a.rfind(name + "=", 0) == 0) {
    *value = a.substr(name.size() + 1);
    *used = 1;
    return true;
  }
  return false;
}

// A whole positive count, or -1 after reporting the bad value.
int64_t ParseCount(const std::string& flag, const std::string& value) {
  char* end = nullptr;
  const long long n = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || n <= 0) {
    std::fprintf(stderr, "fathom-cli: %s %s: give a whole number above 0\n", flag.c_str(),
                 value.c_str());
    return -1;
  }
  return n;
}

// Limits of a directory pull; 0 when args[i] is not one of them.
int ParseTreeLimit(const std::vector<std::string>& args, size_t i, AdbOptions* o) {
  std::string value;
  int used = 0;
  for (const char* flag : {"--max-depth", "--max-entries"}) {
    if (!TakeValue(args, i, flag, &value, &used)) continue;
    if (used < 0) return used;
    const int64_t n = ParseCount(flag, value);
    if (n < 0) return -1;
    if (std::string(flag) == "--max-depth") {
      o->tree_limits.max_depth = static_cast<size_t>(n);
    } else {
      o->tree_limits.max_entries = static_cast<uint64_t>(n);
    }
    return used;
  }
  return 0;
}

// --timeout-NAME SEC; 0 when args[i] is not one of them.
int ParseTimeout(const std::vector<std::string>& args, size_t i, AdbOptions* o) {
  const std::pair<const char*, adb::Millis*> flags[] = {{"--timeout-connect", &o->timeouts.connect},
                                                        {"--timeout-auth", &o->timeouts.auth},
                                                        {"--timeout-open", &o->timeouts.open},
                                                        {"--timeout-idle", &o->timeouts.idle}};
  std::string value;
  int used = 0;
  for (const auto& [flag, into] : flags) {
    if (!TakeValue(args, i, flag, &value, &used)) continue;
    if (used < 0) return used;
    auto parsed = adb::ParseTimeoutSeconds(value);
    if (!parsed.ok()) {
      std::fprintf(stderr, "fathom-cli: %s: %s\n", flag, parsed.status().message().c_str());
      return -1;
    }
    *into = *parsed;
    adb::SetDefaultTimeouts(o->timeouts);
    return used;
  }
  return 0;
}

}  // namespace

int ParseAdbOption(const std::vector<std::string>& args, size_t i, AdbOptions* o) {
  if (int used = ParseTreeLimit(args, i, o); used != 0) return used;
  if (int used = ParseTimeout(args, i, o); used != 0) return used;
  const std::string& a = args[i];
  std::string value;
  int used = 2;
  if (a == "-s" || a == "--serial" || a == "--transport" || a == "-t") {
    if (i + 1 >= args.size()) {
      std::fprintf(stderr, "fathom-cli: %s needs a value\n", a.c_str());
      return -1;
    }
    value = args[i + 1];
  } else if (a.rfind("--transport=", 0) == 0 || a.rfind("--serial=", 0) == 0) {
    value = a.substr(a.find('=') + 1);
    used = 1;
  } else {
    return 0;
  }
  if (a[1] == 's' || a.rfind("--serial", 0) == 0) {
    o->serial = value;
    return used;
  }
  if (value == "auto") {
    o->route = record::AdbRoute::kAuto;
  } else if (value == "usb") {
    o->route = record::AdbRoute::kUsb;
  } else if (value == "tcp") {
    o->route = record::AdbRoute::kTcp;
  } else if (value == "server") {
    o->route = record::AdbRoute::kServer;
  } else {
    std::fprintf(stderr, "fathom-cli: --transport %s: use auto, usb, tcp or server\n",
                 value.c_str());
    return -1;
  }
  return used;
}

bool ParseAdbArgs(const std::vector<std::string>& args, AdbOptions* o,
                  std::vector<std::string>* positional) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      positional->insert(positional->end(), args.begin() + i + 1, args.end());
      return true;
    }
    int used = ParseAdbOption(args, i, o);
    if (used < 0) return false;
    if (used == 0) {
      if (args[i].size() > 1 && args[i][0] == '-') {
        std::fprintf(stderr, "fathom-cli: unknown option %s\n", args[i].c_str());
        return false;
      }
      positional->push_back(args[i]);
      continue;
    }
    i += used - 1;
  }
  return true;
}

namespace {
bool OnRoute(record::AdbRoute route, record::TargetEntry::Kind kind) {
  switch (route) {
    case record::AdbRoute::kServer:
      return kind == record::TargetEntry::kServer;
    case record::AdbRoute::kUsb:
      return kind == record::TargetEntry::kUsb;
    case record::AdbRoute::kTcp:
      return kind == record::TargetEntry::kTcp;
    case record::AdbRoute::kAuto:
      break;
  }
  return true;
}
}  // namespace

Result<std::string> ChooseSerial(const AdbOptions& o) {
  if (!o.serial.empty()) return o.serial;
  if (const char* env = std::getenv("ANDROID_SERIAL"); env && *env) return std::string(env);
  std::vector<std::string> usable, all;
  for (const record::TargetEntry& e : record::DiscoverTargets(record::LoadRememberedTcpTargets())) {
    if (e.kind == record::TargetEntry::kLocal) continue;
    if (!OnRoute(o.route, e.kind)) continue;
    all.push_back(e.serial + (e.problem.empty() ? "" : " (" + e.problem + ")"));
    if (e.problem.empty() && (e.state.empty() || e.state == "device")) usable.push_back(e.serial);
  }
  if (usable.size() == 1) return usable[0];
  std::string list;
  for (const std::string& s : all) list += "\n  " + s;
  if (usable.empty()) {
    return ErrorStatus(std::string("no usable device") +
                       (o.route == record::AdbRoute::kAuto
                            ? ""
                            : std::string(" on --transport ") + RouteName(o.route)) +
                       (all.empty() ? " (see `fathom-cli devices`; add a TCP device with "
                                      "`fathom-cli connect HOST:PORT`)"
                                    : ":" + list));
  }
  return ErrorStatus("more than one device: choose one with -s SERIAL or ANDROID_SERIAL:" + list);
}

}  // namespace fathom::cli
