// The identity string carried in CNXN payloads ("system-identity", spec §4):
// "<type>:<serial>:<key=value;...>" with features as a comma list under "features".
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>

namespace fathom::adb {

struct Banner {
  std::string type;    // device, bootloader, recovery, sideload, rescue, host
  std::string serial;  // normally empty
  std::map<std::string, std::string> props;
  std::set<std::string> features;

  std::string product() const { return Prop("ro.product.name"); }
  std::string model() const { return Prop("ro.product.model"); }
  std::string device() const { return Prop("ro.product.device"); }
  bool Has(std::string_view feature) const { return features.count(std::string(feature)) > 0; }
  std::string Prop(const std::string& key) const {
    auto it = props.find(key);
    return it == props.end() ? std::string() : it->second;
  }
};

// Lenient by design: every byte string yields a Banner (unknown type ⇒ "host" as adb does;
// missing parts stay empty). A trailing NUL, if any, is ignored.
Banner ParseBanner(std::string_view identity);

// What we send in our CNXN: "host::features=a,b,c".
std::string HostBanner(const std::set<std::string>& features);

// Features we implement and therefore advertise. delayed_ack is left out on purpose
// (spec §7: optional, only for throughput).
const std::set<std::string>& HostFeatures();

}  // namespace fathom::adb
