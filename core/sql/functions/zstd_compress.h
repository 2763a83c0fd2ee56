// __intrinsic_zstd_compress(text|blob): the bytes as one zstd frame (a
// blob), NULL for NULL, as upstream's. Other types are an error.
#pragma once

#include <sqlite3.h>

#include "base/status.h"

namespace fathom {

Status RegisterZstdCompressFunction(sqlite3* db);

}  // namespace fathom
