// pKVM hypervisor ftrace events as upstream imports them: hyp_enter and
// hyp_exit bound a "hyp" slice (category pkvm_hyp) on the CPU's
// "pkVM Hypervisor CPU N" track (type pkvm_hypervisor); host_hcall,
// host_smc and host_mem_abort give the open slice its reason
// (`hyp_enter_reason`) and their fields as args. pkvm.hypervisor reads them.
#pragma once

#include <cstdint>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

// FtraceEvent fields (not in Fathom's proto subset).
inline constexpr uint32_t kHypEnterFieldNumber = 476;
inline constexpr uint32_t kHypExitFieldNumber = 477;
inline constexpr uint32_t kHostHcallFieldNumber = 478;
inline constexpr uint32_t kHostSmcFieldNumber = 479;
inline constexpr uint32_t kHostMemAbortFieldNumber = 480;

inline bool IsPkvmHypEvent(uint32_t event_id) {
  return event_id >= kHypEnterFieldNumber && event_id <= kHostMemAbortFieldNumber;
}

void ParsePkvmEvent(TraceContext* ctx, int64_t ts, uint32_t cpu, uint32_t event_id,
                    proto::Bytes payload);

}  // namespace fathom
