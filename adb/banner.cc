#include "adb/banner.h"

#include <vector>

#include "adb/sync_compression.h"

namespace fathom::adb {
namespace {

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, pos - start));
    start = pos + 1;
  }
}

}  // namespace

Banner ParseBanner(std::string_view identity) {
  while (!identity.empty() && identity.back() == '\0') identity.remove_suffix(1);
  Banner b;
  // Only the first two ':' separate fields: property values may contain ':'.
  size_t c1 = identity.find(':');
  std::string_view type = identity.substr(0, c1);
  std::string_view rest = c1 == std::string_view::npos ? "" : identity.substr(c1 + 1);
  size_t c2 = rest.find(':');
  b.serial = std::string(rest.substr(0, c2));
  std::string_view props = c2 == std::string_view::npos ? "" : rest.substr(c2 + 1);

  static const char* kKnown[] = {"device", "bootloader", "recovery", "sideload", "rescue", "host"};
  b.type = "host";
  for (const char* k : kKnown) {
    if (type == k) b.type = k;
  }
  for (std::string_view kv : Split(props, ';')) {
    if (kv.empty()) continue;
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key(kv.substr(0, eq));
    std::string_view value = kv.substr(eq + 1);
    b.props[key] = std::string(value);
    if (key == "features") {
      for (std::string_view f : Split(value, ',')) {
        if (!f.empty()) b.features.emplace(f);
      }
    }
  }
  return b;
}

std::string HostBanner(const std::set<std::string>& features) {
  std::string out = "host::features=";
  bool first = true;
  for (const auto& f : features) {
    if (!first) out += ',';
    out += f;
    first = false;
  }
  return out;
}

const std::set<std::string>& HostFeatures() {
  static const std::set<std::string> kFeatures = [] {
    std::set<std::string> f = {"shell_v2",
                               "cmd",
                               "stat_v2",
                               "ls_v2",
                               "fixed_push_mkdir",
                               "apex",
                               "abb",
                               "abb_exec",
                               "fixed_push_symlink_timestamp",
                               "remount_shell",
                               "sendrecv_v2"};
    // Only the codecs this build can decode and encode.
    for (SyncCompression c : BuiltSyncCompressions()) f.insert(SyncCompressionFeature(c));
    return f;
  }();
  return kFeatures;
}

}  // namespace fathom::adb
