// Winscope dumps that upstream keeps one row per traced state: the
// InputMethod clients / manager service / service dumps. Each row's
// arg_set_id holds the dump proto flattened into `args`; base64_proto_id is
// the string pool id of the serialized dump in base64 (as upstream).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "core/storage/column.h"

namespace fathom {

// One dump per row: the columns upstream's __intrinsic_inputmethod_* share.
struct WinscopeDumpTable : Table {
  explicit WinscopeDumpTable(std::string name) : Table(std::move(name)) {}
  IdColumn id{this, "id"};
  Int64Column ts{this, "ts"};
  UInt32Column arg_set_id{this, "arg_set_id", kNullable};
  Int64Column base64_proto_id{this, "base64_proto_id", kNullable};

  uint32_t Insert(int64_t t, std::optional<uint32_t> args, StringId base64_proto) {
    ts.Append(t);
    arg_set_id.Append(args);
    base64_proto_id.Append(static_cast<int64_t>(base64_proto));
    return CommitRow();
  }
};

struct WinscopeTables {
  WinscopeDumpTable inputmethod_clients{"__intrinsic_inputmethod_clients"};
  WinscopeDumpTable inputmethod_manager_service{"__intrinsic_inputmethod_manager_service"};
  WinscopeDumpTable inputmethod_service{"__intrinsic_inputmethod_service"};
};

}  // namespace fathom
