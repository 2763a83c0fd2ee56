// Base64 (RFC 4648, padded) for the standard library's v8.jit module and
// queries: base64_encode(blob) -> text, base64_decode(text|blob) -> blob,
// also as __intrinsic_base64_encode/_decode (the names upstream's prelude
// delegates to). As upstream: encoding takes bytes only, NULL gives NULL,
// and invalid input is an error.
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom {

Status RegisterBase64Functions(sqlite3* db);

}  // namespace fathom
