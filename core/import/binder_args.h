// The arg set upstream gives each binder slice: the sending event's fields
// (with flags and code spelled out as text) and, once a thread receives the
// transaction, who received it.
#pragma once

#include <cstdint>
#include <string>

#include "core/import/args_tracker.h"

namespace fathom {

// One binder_transaction event's fields.
struct BinderTxnFields {
  int32_t debug_id = 0;
  int32_t dest_node = 0;
  int32_t dest_proc = 0;
  int32_t dest_thread = 0;  // to_thread: set on replies (the caller), often 0 otherwise
  bool is_reply = false;
  uint32_t flags = 0;
  uint32_t code = 0;
  uint32_t calling_tid = 0;
};

// "0x11 this is a one-way call: async, no return; allow replies with file
// descriptors; ": the hex value, then a phrase per known bit; "0x00 No Flags Set".
std::string BinderFlagsString(uint32_t flags);
// "0x04 Java Layer Dependent": upstream names no code specially.
std::string BinderCodeString(uint32_t code);

// Appends the sending event's args in upstream's key order.
void AddBinderTxnArgs(ArgsTracker::Builder* b, const BinderTxnFields& t);

}  // namespace fathom
