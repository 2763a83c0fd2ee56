// The Stack message that CAT_STACKS and the STACK_FROM_STACK_PROFILE_*
// functions return and EXPERIMENTAL_PROFILE reads: upstream Perfetto's
// trace_processor Stack proto, `repeated Entry entries = 1`, each Entry one of
// name = 1 (a frame named by a string), callsite_id = 2,
// annotated_callsite_id = 3 and frame_id = 4. Entries are leaf first.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace fathom {

struct StackEntry {
  enum Kind { kName = 1, kCallsite = 2, kAnnotatedCallsite = 3, kFrame = 4 };
  Kind kind = kName;
  std::string_view name;  // kName: points into the decoded blob
  uint64_t id = 0;        // the other kinds
};

// One serialized entry (field 1 of Stack holding an Entry).
std::string EncodeStackEntry(StackEntry::Kind kind, uint64_t id);
std::string EncodeStackNameEntry(std::string_view name);

// The entries of a serialized Stack, leaf first. An entry that sets none of
// its fields yields kind 0.
Result<std::vector<StackEntry>> DecodeStack(std::string_view blob);

}  // namespace fathom
