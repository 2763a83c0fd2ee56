// TracePacket.journald_event (the systemd journal data source on Linux): one
// journal entry becomes a `logs` row with log_source "systemd_journald"; a
// packet carrying the recorder's counters sets the systemd_journal_* stats
// instead.
#pragma once

#include <cstdint>

#include "core/import/proto_decoder.h"
#include "core/import/trace_context.h"

namespace fathom {

// Upstream's field numbers (Fathom's protos do not carry the message), read
// from the difftest traces parser_linux/journald_* (names from the
// textprotos, numbers from the binaries).
inline constexpr uint32_t kJournaldEventFieldNumber = 132;

// As upstream answers on generated traces: the entry's pid (and tid, else the
// pid) give its thread, no pid no thread; prio is 0 when absent; uid, comm,
// systemd_unit, hostname and transport become the row's args. The counters
// are running totals: the last packet's values stand.
void ParseJournaldEvent(TraceContext* ctx, int64_t ts, proto::Bytes payload);

}  // namespace fathom
