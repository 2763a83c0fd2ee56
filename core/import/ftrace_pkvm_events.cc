#include "core/import/ftrace_pkvm_events.h"

#include <string>

#include "core/import/args_tracker.h"
#include "core/import/slice_tracker.h"
#include "core/import/track_tracker.h"

namespace fathom {
namespace {

struct HostEvent {
  uint32_t event;
  const char* reason;
  const char* field1;  // proto field 1
  const char* field2;  // proto field 2
};

constexpr HostEvent kHostEvents[] = {
    {kHostHcallFieldNumber, "host_hcall", "id", "invalid"},
    {kHostSmcFieldNumber, "host_smc", "id", "forwarded"},
    {kHostMemAbortFieldNumber, "host_mem_abort", "esr", "addr"},
};

}  // namespace

void ParsePkvmEvent(TraceContext* ctx, int64_t ts, uint32_t cpu, uint32_t event_id,
                    proto::Bytes payload) {
  TraceStorage* s = ctx->storage.get();
  const uint32_t track = ctx->track_tracker->InternCpuTrack(
      cpu, s->Intern("pkVM Hypervisor CPU " + std::to_string(cpu)), s->Intern("pkvm_hypervisor"));
  if (event_id == kHypEnterFieldNumber) {
    ctx->slice_tracker->Begin(ts, track, s->Intern("pkvm_hyp"), s->Intern("hyp"));
    return;
  }
  if (event_id == kHypExitFieldNumber) {
    ctx->slice_tracker->End(ts, track);
    return;
  }
  for (const HostEvent& h : kHostEvents) {
    if (h.event != event_id) continue;
    const auto open = ctx->slice_tracker->GetTopmostOpen(track);
    if (!open) return;  // no hyp_enter before it: nothing to describe
    proto::FlatMessage<4> m(payload);
    // 64-bit fields are kept as signed integers, as upstream's args are.
    auto args = ctx->args_tracker->NewSet()
                    .AddString("hyp_enter_reason", h.reason)
                    .AddInt(h.field1, static_cast<int64_t>(m[1].as_uint64()))
                    .AddInt(h.field2, static_cast<int64_t>(m[2].as_uint64()));
    ctx->slice_tracker->AddArgs(track, *open, std::move(args));
  }
}

}  // namespace fathom
