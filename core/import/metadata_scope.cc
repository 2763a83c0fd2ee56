#include "core/import/metadata_scope.h"

#include <algorithm>
#include <array>

namespace fathom {
namespace {

// What the recording device is (hardware, OS, build): one row per machine.
constexpr std::array<std::string_view, 18> kMachineKeys = {"android_build_fingerprint",
                                                           "android_device_manufacturer",
                                                           "android_guest_soc_model",
                                                           "android_hardware_revision",
                                                           "android_incremental_build",
                                                           "android_ram_model",
                                                           "android_sdk_version",
                                                           "android_serial_console",
                                                           "android_soc_model",
                                                           "android_storage_model",
                                                           "system_machine",
                                                           "system_name",
                                                           "system_ram_bytes",
                                                           "system_ram_gb",
                                                           "system_release",
                                                           "system_version",
                                                           "timezone_off_mins",
                                                           "tracing_service_version"};

// What happened on one machine during one recording session.
constexpr std::array<std::string_view, 7> kMachineAndTraceKeys = {
    "all_data_source_flushed_ns", "all_data_source_started_ns", "ftrace_latest_data_start_ns",
    "ftrace_setup_errors",        "slow_start_data_source",     "tracing_disabled_ns",
    "tracing_started_ns"};

bool Contains(const auto& keys, std::string_view key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

}  // namespace

MetadataScope ScopeOfMetadataKey(std::string_view key) {
  // The clock every timestamp was converted to is shared by all traces of a load.
  if (key == "trace_time_clock_id") return MetadataScope::kLoad;
  // Attributes a machine's tracing service stamped on one recording.
  if (key.starts_with("trace_attribute.")) return MetadataScope::kMachineAndTrace;
  if (Contains(kMachineKeys, key)) return MetadataScope::kMachine;
  if (Contains(kMachineAndTraceKeys, key)) return MetadataScope::kMachineAndTrace;
  return MetadataScope::kTrace;
}

}  // namespace fathom
