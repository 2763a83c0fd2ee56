// TracePacket.winscope_extensions (field 112): the payloads of Android's
// winscope data sources, each an extension field of WinscopeExtensions.
// Input events go to android_input_events.h; the InputMethod dumps (clients,
// manager service, service) become one row each of
// __intrinsic_inputmethod_* (winscope_tables.h), ts the packet's. Payloads
// not known here are skipped.
#pragma once

#include <cstdint>

#include "core/import/proto_decoder.h"

namespace fathom {

struct TraceContext;

void ParseWinscopeExtensions(TraceContext* ctx, int64_t ts, proto::Bytes extensions);

}  // namespace fathom
