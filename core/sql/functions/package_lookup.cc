#include "core/sql/functions/package_lookup.h"

#include <algorithm>
#include <string_view>

namespace fathom {
namespace {

constexpr int64_t kPerUserRange = 100000;
constexpr int64_t kFirstApplicationUid = 10000;

struct Aid {
  int64_t uid;
  const char* name;
};

// Android's fixed uids (system/core/libcutils/include/private/android_filesystem_config.h)
// that upstream names; sorted by uid.
constexpr Aid kAids[] = {
    {0, "AID_ROOT"},
    {1000, "AID_SYSTEM_USER"},
    {1001, "AID_RADIO"},
    {1002, "AID_BLUETOOTH"},
    {1003, "AID_GRAPHICS"},
    {1004, "AID_INPUT"},
    {1005, "AID_AUDIO"},
    {1006, "AID_CAMERA"},
    {1007, "AID_LOG"},
    {1008, "AID_COMPASS"},
    {1009, "AID_MOUNT"},
    {1010, "AID_WIFI"},
    {1011, "AID_ADB"},
    {1012, "AID_INSTALL"},
    {1013, "AID_MEDIA"},
    {1014, "AID_DHCP"},
    {1015, "AID_SDCARD_RW"},
    {1016, "AID_VPN"},
    {1017, "AID_KEYSTORE"},
    {1018, "AID_USB"},
    {1019, "AID_DRM"},
    {1020, "AID_MDNSR"},
    {1021, "AID_GPS"},
    {1022, "AID_UNUSED1"},
    {1023, "AID_MEDIA_RW"},
    {1024, "AID_MTP"},
    {1025, "AID_UNUSED2"},
    {1026, "AID_DRMRPC"},
    {1027, "AID_NFC"},
    {1028, "AID_SDCARD_R"},
    {1029, "AID_CLAT"},
    {1030, "AID_LOOP_RADIO"},
    {1031, "AID_MEDIA_DRM"},
    {1032, "AID_PACKAGE_INFO"},
    {1033, "AID_SDCARD_PICS"},
    {1034, "AID_SDCARD_AV"},
    {1035, "AID_SDCARD_ALL"},
    {1036, "AID_LOGD"},
    {1037, "AID_SHARED_RELRO"},
    {1038, "AID_DBUS"},
    {1039, "AID_TLSDATE"},
    {1040, "AID_MEDIA_EX"},
    {1041, "AID_AUDIOSERVER"},
    {1042, "AID_METRICS_COLL"},
    {1043, "AID_METRICSD"},
    {1044, "AID_WEBSERV"},
    {1045, "AID_DEBUGGERD"},
    {1046, "AID_MEDIA_CODEC"},
    {1047, "AID_CAMERASERVER"},
    {1048, "AID_FIREWALL"},
    {1049, "AID_TRUNKS"},
    {1050, "AID_NVRAM"},
    {1051, "AID_DNS"},
    {1052, "AID_DNS_TETHER"},
    {1053, "AID_WEBVIEW_ZYGOTE"},
    {1054, "AID_VEHICLE_NETWORK"},
    {1055, "AID_MEDIA_AUDIO"},
    {1056, "AID_MEDIA_VIDEO"},
    {1057, "AID_MEDIA_IMAGE"},
    {1058, "AID_TOMBSTONED"},
    {1059, "AID_MEDIA_OBB"},
    {1060, "AID_ESE"},
    {1061, "AID_OTA_UPDATE"},
    {1062, "AID_AUTOMOTIVE_EVS"},
    {1063, "AID_LOWPAN"},
    {1064, "AID_HSM"},
    {1065, "AID_RESERVED_DISK"},
    {1066, "AID_STATSD"},
    {1067, "AID_INCIDENTD"},
    {1068, "AID_SECURE_ELEMENT"},
    {1069, "AID_LMKD"},
    {1070, "AID_LLKD"},
    {1071, "AID_IORAPD"},
    {1072, "AID_GPU_SERVICE"},
    {1073, "AID_NETWORK_STACK"},
    {1074, "AID_GSID"},
    {1075, "AID_FSVERITY_CERT"},
    {1076, "AID_CREDSTORE"},
    {1077, "AID_EXTERNAL_STORAGE"},
    {1078, "AID_EXT_DATA_RW"},
    {1079, "AID_EXT_OBB_RW"},
    {1080, "AID_CONTEXT_HUB"},
    {1081, "AID_VIRTMANAGER"},
    {1082, "AID_ARTD"},
    {1083, "AID_UWB"},
    {1084, "AID_THREAD_NETWORK"},
    {1085, "AID_DICED"},
    {1086, "AID_DMESGD"},
    {1087, "AID_JC_WEAVER"},
    {1088, "AID_JC_STRONGBOX"},
    {1089, "AID_JC_IDENTITYCRED"},
    {1090, "AID_SDK_SANDBOX"},
    {1091, "AID_SECURITY_LOG_WRITER"},
    {1092, "AID_PRNG_SEEDER"},
    {1093, "AID_UPROBESTATS"},
    {2000, "AID_SHELL"},
    {2001, "AID_CACHE"},
    {2002, "AID_DIAG"},
    {9999, "AID_NOBODY"},
};

std::optional<std::string_view> AidName(int64_t app_id) {
  auto it = std::lower_bound(std::begin(kAids), std::end(kAids), app_id,
                             [](const Aid& a, int64_t u) { return a.uid < u; });
  if (it == std::end(kAids) || it->uid != app_id) return std::nullopt;
  return std::string_view(it->name);
}

// The preferred package of an app id, if any package has it.
std::optional<std::string_view> PackageName(const TraceStorage& storage, int64_t app_id) {
  constexpr std::string_view kGms = "com.google.android.gms";
  constexpr std::string_view kProviders = "com.android.providers.";
  const PackageListTable& t = storage.package_list;
  std::optional<std::string_view> first, first_not_provider;
  for (uint32_t row = 0; row < t.row_count(); ++row) {
    if (t.uid[row] != app_id || t.package_name[row] == kNullStringId) continue;
    std::string_view name = storage.GetString(t.package_name[row]);
    if (name == kGms) return name;
    if (!first) first = name;
    if (!first_not_provider && name.substr(0, kProviders.size()) != kProviders)
      first_not_provider = name;
  }
  return first_not_provider ? first_not_provider : first;
}

void PackageLookupFn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return sqlite3_result_null(ctx);
  if (type != SQLITE_INTEGER)
    return sqlite3_result_error(ctx, "PACKAGE_LOOKUP: uid must be an integer", -1);
  const auto* storage = static_cast<const TraceStorage*>(sqlite3_user_data(ctx));
  const std::string name = PackageLookup(*storage, sqlite3_value_int64(argv[0]));
  sqlite3_result_text(ctx, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
}

}  // namespace

std::string PackageLookup(const TraceStorage& storage, int64_t uid) {
  // Uids are 32-bit unsigned on Android: a negative one wraps, as upstream's.
  const int64_t u = static_cast<int64_t>(static_cast<uint32_t>(uid));
  const int64_t app_id = u % kPerUserRange;
  if (app_id < kFirstApplicationUid) {
    if (auto aid = AidName(app_id)) return std::string(*aid);
  } else if (auto pkg = PackageName(storage, app_id)) {
    return std::string(*pkg);
  } else if (app_id >= 50000 && app_id <= 59999) {
    return "SHARED_GID";
  } else if (app_id >= 90000 && app_id <= 99999) {
    return "ISOLATED_UID";
  }
  return "uid=" + std::to_string(u);
}

Status RegisterPackageLookupFunction(sqlite3* db, TraceStorage* storage) {
  int rc = sqlite3_create_function_v2(db, "_intrinsic_package_lookup", 1, SQLITE_UTF8, storage,
                                      PackageLookupFn, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return ErrorStatus("cannot register _intrinsic_package_lookup");
  return Status::Ok();
}

}  // namespace fathom
