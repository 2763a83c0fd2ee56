// __intrinsic_arg_set_to_json(arg_set_id): one arg set as a JSON object, as
// upstream Perfetto's function: keys nest on '.' ("debug.a.b") and "[i]"
// ("debug.list[0]") into objects and arrays, members keep the order the args
// were added in, and values keep their type (bool as true/false, pointer as
// its "0x.." text, real as %.16g). A set with no args gives "{}", NULL gives
// NULL, a non-integer id is an error.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "base/status.h"
#include "core/storage/trace_storage.h"

namespace fathom {

std::string ArgSetToJson(const TraceStorage& storage, uint32_t arg_set_id);

Status RegisterArgSetToJsonFunction(sqlite3* db, TraceStorage* storage);

}  // namespace fathom
