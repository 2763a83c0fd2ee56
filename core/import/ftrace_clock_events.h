// clk/clock_set_rate, clock_enable and clock_disable ftrace events, as
// upstream imports them: one global counter per clock, "<clock> Frequency"
// (type clock_frequency) for the rate and "<clock> State" (type
// clock_state) for enable/disable, each with the clock as its
// `linux_device` dimension. android.dvfs reads the frequency counters.
#pragma once

#include <cstdint>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

// FtraceEvent fields: clock_enable, clock_disable, clock_set_rate.
inline constexpr uint32_t kClockEnableFieldNumber = 14;
inline constexpr uint32_t kClockDisableFieldNumber = 15;
inline constexpr uint32_t kClockSetRateFieldNumber = 16;

void ParseClockEvent(TraceContext* ctx, int64_t ts, uint32_t event_id, proto::Bytes payload);

}  // namespace fathom
