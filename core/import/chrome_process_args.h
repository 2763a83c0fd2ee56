// TrackDescriptor.chrome_process (ChromeProcessDescriptor) as args of the
// described process: chrome.process_type (the process type's display name,
// NULL when unknown or unset), chrome.host_app_package_name and
// chrome.crash_trace_id, as upstream writes them.
#pragma once

#include <cstdint>

#include "core/import/proto_decoder.h"

namespace fathom {

struct TraceContext;

// False when `chrome_process` is not valid protobuf.
bool AddChromeProcessArgs(proto::Bytes chrome_process, uint32_t upid, TraceContext* ctx);

}  // namespace fathom
