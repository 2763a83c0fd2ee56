// Names and value types of every ftrace event and field our protos know,
// built once from the generated descriptors of FtraceEvent. The raw
// `ftrace_event` table needs, for each event, its ftrace name ("sched_switch")
// and the name of each field ("prev_comm"): upstream takes them from the same
// proto field names, so deriving them from the descriptors keeps us in sync
// with protos/ without a hand-written table.
#pragma once

#include <cstdint>
#include <vector>

#include "core/base/string_pool.h"

namespace fathom {

class TraceStorage;

// How a field's wire value is turned into an arg.
enum class FtraceArgType : uint8_t {
  kNone,    // unknown field id or a nested message: not stored
  kInt,     // int32/int64/bool/enum/sfixed: signed integer
  kUint,    // uint32/uint64/fixed: unsigned integer
  kSint,    // zigzag
  kString,  // string/bytes
  kDouble,
  kFloat,
};

struct FtraceFieldInfo {
  StringId name = kNullStringId;
  FtraceArgType type = FtraceArgType::kNone;
};

struct FtraceEventInfo {
  StringId name = kNullStringId;        // kNullStringId: not an event we know
  std::vector<FtraceFieldInfo> fields;  // indexed by field number
};

class FtraceDescriptors {
 public:
  explicit FtraceDescriptors(TraceStorage* storage);

  // Info for FtraceEvent field `event_id`, or nullptr when unknown.
  const FtraceEventInfo* Get(uint32_t event_id) const {
    if (event_id >= events_.size() || events_[event_id].name == kNullStringId) return nullptr;
    return &events_[event_id];
  }

 private:
  std::vector<FtraceEventInfo> events_;  // indexed by FtraceEvent field number
};

}  // namespace fathom
