// _intrinsic_package_lookup(uid): the name of the Android package (or system
// user) behind a uid, as upstream's android_package_lookup answers:
//  - the app id is uid % 100000 (the per-user offset dropped);
//  - app ids under 10000 are Android's fixed system uids (AID_* names from
//    android_filesystem_config.h), or "uid=N";
//  - otherwise the package_list packages whose uid is the app id: exactly
//    "com.google.android.gms" if present, else the first (in table order) not
//    under "com.android.providers.", else the first;
//  - no package: "SHARED_GID" for app ids 50000..59999, "ISOLATED_UID" for
//    90000..99999, else "uid=N" (N the uid as an unsigned 32-bit number).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"
#include "core/storage/trace_storage.h"

namespace fathom {

std::string PackageLookup(const TraceStorage& storage, int64_t uid);

Status RegisterPackageLookupFunction(sqlite3* db, TraceStorage* storage);

}  // namespace fathom
