#include "core/sql/functions/demangle.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace fathom {
namespace {

void Demangle(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) return sqlite3_result_null(ctx);
  const char* name = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  // Only symbols: __cxa_demangle would also read "i" as the type int.
  if (!name || std::strncmp(name, "_Z", 2) != 0) return sqlite3_result_null(ctx);
  int status = 0;
  char* out = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || !out) {
    std::free(out);
    return sqlite3_result_null(ctx);
  }
  sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
  std::free(out);
}

}  // namespace

Status RegisterDemangleFunction(sqlite3* db) {
  for (const char* name : {"demangle", "__intrinsic_demangle"}) {
    if (sqlite3_create_function_v2(db, name, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nullptr,
                                   Demangle, nullptr, nullptr, nullptr) != SQLITE_OK)
      return ErrorStatus(std::string("cannot register ") + name);
  }
  return Status::Ok();
}

}  // namespace fathom
