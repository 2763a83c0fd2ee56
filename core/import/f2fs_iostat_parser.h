// f2fs_iostat and f2fs_iostat_latency ftrace events as upstream shows them:
// one global counter per device and statistic, named
// "f2fs_iostat.[MAJOR:MINOR].write_app_total" and
// "f2fs_iostat_latency.[MAJOR:MINOR].read_data_peak".
#pragma once

#include <cstdint>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

// FtraceEvent fields (not in Fathom's proto subset).
inline constexpr uint32_t kF2fsIostatFieldNumber = 419;
inline constexpr uint32_t kF2fsIostatLatencyFieldNumber = 420;

void ParseF2fsIostat(TraceContext* ctx, int64_t ts, proto::Bytes payload);
void ParseF2fsIostatLatency(TraceContext* ctx, int64_t ts, proto::Bytes payload);

}  // namespace fathom
