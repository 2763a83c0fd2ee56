#include "core/sql/functions/zstd_compress.h"

#include <zstd.h>

#include <string>

namespace fathom {
namespace {

void Compress(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const int type = sqlite3_value_type(argv[0]);
  if (type == SQLITE_NULL) return sqlite3_result_null(ctx);
  if (type != SQLITE_TEXT && type != SQLITE_BLOB)
    return sqlite3_result_error(ctx, "__intrinsic_zstd_compress: expects text or a blob", -1);
  const void* in = type == SQLITE_BLOB ? sqlite3_value_blob(argv[0])
                                       : static_cast<const void*>(sqlite3_value_text(argv[0]));
  const size_t size = static_cast<size_t>(sqlite3_value_bytes(argv[0]));
  std::string out(ZSTD_compressBound(size), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), in, size, ZSTD_CLEVEL_DEFAULT);
  if (ZSTD_isError(n)) return sqlite3_result_error(ctx, ZSTD_getErrorName(n), -1);
  sqlite3_result_blob(ctx, out.data(), static_cast<int>(n), SQLITE_TRANSIENT);
}

}  // namespace

Status RegisterZstdCompressFunction(sqlite3* db) {
  if (sqlite3_create_function_v2(db, "__intrinsic_zstd_compress", 1,
                                 SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr, Compress, nullptr,
                                 nullptr, nullptr) != SQLITE_OK)
    return ErrorStatus("cannot register __intrinsic_zstd_compress");
  return Status::Ok();
}

}  // namespace fathom
