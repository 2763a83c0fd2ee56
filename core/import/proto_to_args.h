// Flattens a serialized proto message into an arg set, the way upstream's
// proto-to-args conversion names things: a field's key is its name, nested
// messages join names with '.', and every element of a repeated field gets
// its index ("pointer[0].axis_value[2].value"). Only fields present on the
// wire become args; their order is wire order.
//
// Field names and types come from the descriptor protoc compiled into the
// binary (fathom_protos), so any message of protos/ can be flattened without
// a per-message table; decoding itself walks the wire with proto::Decoder.
#pragma once

#include <string>
#include <string_view>

#include "core/import/args_tracker.h"
#include "core/import/proto_decoder.h"

namespace google::protobuf {
class Descriptor;
}

namespace fathom {

// Adds the fields of `msg` (a serialized `desc`) to `out`, keys prefixed by
// `prefix` ("" for none, else "prefix." is prepended). Fields the descriptor
// does not know, and fields whose wire type does not fit their declared type,
// are skipped. Returns false when `msg` is malformed (the args decoded before
// the bad byte are kept).
bool ProtoToArgs(const google::protobuf::Descriptor* desc, proto::Bytes msg,
                 ArgsTracker::Builder& out, std::string_view prefix = {});

}  // namespace fathom
